/**
 * Open a PDF with pdf.js (legacy build) and turn it into the document model.
 * Typed errors: PasswordRequired, IncorrectPassword, NotAPdf, DamagedPdf, NoTextLayer,
 * TooLarge, Timeout.
 *
 * Limits (OpenOptions, with defaults in DEFAULT_LIMITS): file size, pages, text items per page and
 * per document, and a time budget. pdf.js runs in this thread (its "fake worker") and yields to
 * other work between 20 ms slices only through resolved promises, never through the event loop, so
 * a timer alone cannot stop a long document: the budget is also checked between text chunks and
 * pages. What no check inside this process can stop is a single synchronous stretch inside pdf.js
 * (a content stream nested 200,000 `q` deep, a FlateDecode bomb decoded into one buffer): those
 * need the wall-clock and memory limits the callers put around a parse job (a worker they can
 * terminate). An encryption key length pdf.js would spin on is refused before pdf.js sees the
 * file (guard.ts). Rejections pdf.js leaves unhandled inside its worker are absorbed (see
 * `isPdfjsInternalRejection`), never a crash.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promises as fs } from 'node:fs';
import { DocumentError } from '../errors.js';
import { buildLines, type RawItem } from './lines.js';
import { loadPdfjsModules } from './node-env.js';
import { checkEncryption } from './guard.js';
import type { PdfDocument, Page } from './model.js';

/** Limits left out take DEFAULT_LIMITS; the callers map their settings (CAS_PARSE_*) onto these. */
export interface OpenOptions {
  password?: string;
  /** Maximum file size in bytes (default 50 MiB). */
  maxBytes?: number;
  /** Maximum page count (default 500; statements are rarely longer). */
  maxPages?: number;
  /** Time budget for the whole document in ms (default 60 s). */
  timeoutMs?: number;
  /** Maximum text items on one page (default 20,000; real statement pages have a few hundred). */
  maxPageItems?: number;
  /** Maximum text items in the whole document (default 500,000). */
  maxTextItems?: number;
}

export const DEFAULT_LIMITS = { maxBytes: 50 * 1024 * 1024, maxPages: 500, timeoutMs: 60_000, maxPageItems: 20_000, maxTextItems: 500_000 };

type Limits = typeof DEFAULT_LIMITS;

/** The limits in force: DEFAULT_LIMITS, then the options that are set. */
export function pdfLimits(opts: Partial<Limits> = {}): Limits {
  const out = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) if (opts[key] !== undefined) out[key] = opts[key];
  return out;
}

const require = createRequire(import.meta.url);
let pdfjsPromise: Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')> | undefined;
let standardFontDataUrl: string | undefined;

async function pdfjs(): Promise<typeof import('pdfjs-dist/legacy/build/pdf.mjs')> {
  if (!pdfjsPromise) {
    pdfjsPromise = (async () => {
      const pkgDir = path.dirname(require.resolve('pdfjs-dist/package.json'));
      standardFontDataUrl = `${pathToFileURL(path.join(pkgDir, 'standard_fonts')).href}/`;
      const workerSrc = pathToFileURL(path.join(pkgDir, 'legacy/build/pdf.worker.mjs')).href;
      // Load the library and its (in-process) worker module side by side; pdf.js picks up
      // globalThis.pdfjsWorker instead of importing the worker itself on the first document.
      const [lib, worker] = await loadPdfjsModules(() => Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import(workerSrc)]));
      (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
      lib.GlobalWorkerOptions.workerSrc = workerSrc;
      process.prependListener('unhandledRejection', absorbPdfjsRejection);
      return lib;
    })();
  }
  return pdfjsPromise;
}

/**
 * True for a rejection pdf.js left unhandled inside its (in-process) worker, e.g. the page
 * dictionaries it prefetches while it walks a damaged page tree and never awaits. Its errors carry
 * pdf.js's own stack (pdf.worker.mjs / pdf.mjs). Process-level handlers (a CLI or job worker that
 * fails on any unhandled rejection) should ignore these: openPdf has already answered with a
 * typed error or a result.
 */
export function isPdfjsInternalRejection(reason: unknown): boolean {
  const stack = (reason as { stack?: unknown } | null)?.stack;
  return (
    typeof stack === 'string' &&
    /[\\/]pdfjs-dist[\\/]legacy[\\/]build[\\/]pdf(\.worker)?\.mjs/.test(stack.split('\n').slice(0, 4).join('\n'))
  );
}

let absorbed = 0;
/** How many pdf.js-internal rejections were absorbed in this process (for tests and debugging). */
export function absorbedRejections(): number {
  return absorbed;
}

function absorbPdfjsRejection(reason: unknown): void {
  if (isPdfjsInternalRejection(reason)) {
    absorbed++;
    return;
  }
  // Not ours: when no one else listens, keep Node's default (the rejection becomes an uncaught exception).
  if (process.listenerCount('unhandledRejection') === 1) throw reason;
}

export type PdfSource = string | Uint8Array | NodeJS.ReadableStream;

export async function readSource(src: PdfSource, maxBytes = DEFAULT_LIMITS.maxBytes): Promise<Uint8Array> {
  if (typeof src === 'string') {
    const st = await fs.stat(src);
    if (st.isDirectory()) throw new DocumentError('NotAPdf', `${src} is a folder, not a PDF`);
    if (st.size > maxBytes) throw new DocumentError('TooLarge', `the file is ${st.size} bytes; the limit is ${maxBytes}`);
    return new Uint8Array(await fs.readFile(src));
  }
  if (src instanceof Uint8Array) return src;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of src as AsyncIterable<Buffer | string>) {
    const b = typeof c === 'string' ? Buffer.from(c) : c;
    size += b.length;
    if (size > maxBytes) throw new DocumentError('TooLarge', `the input is larger than the limit of ${maxBytes} bytes`);
    chunks.push(b);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function checkHeader(data: Uint8Array): void {
  if (data.length === 0) throw new DocumentError('NotAPdf', 'the file is empty (0 bytes), not a PDF');
  const head = Buffer.from(data.subarray(0, 1024)).toString('latin1');
  if (!head.includes('%PDF-')) throw new DocumentError('NotAPdf', 'the file is not a PDF (no %PDF- header)');
}

function mapError(err: unknown, hadPassword: boolean): DocumentError {
  const e = err as { name?: string; code?: number; message?: string };
  if (e?.name === 'PasswordException') {
    if (e.code === 2 || hadPassword) return new DocumentError('IncorrectPassword', 'the password is incorrect for this PDF');
    return new DocumentError(
      'PasswordRequired',
      'the PDF is password-protected; give its password (--password-file, CAS_PDF_PASSWORD or the prompt)',
    );
  }
  if (e instanceof DocumentError) return e;
  return new DocumentError(
    'DamagedPdf',
    `the PDF is damaged and cannot be read (${e?.name ?? 'error'}: ${String(e?.message ?? '').split('\n')[0]})`,
  );
}

function meta(info: Record<string, unknown> | undefined, key: string): string | null {
  const v = info?.[key];
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}

export async function openPdf(src: PdfSource, opts: OpenOptions = {}): Promise<PdfDocument> {
  const limits = pdfLimits(opts);
  const data = await readSource(src, limits.maxBytes);
  if (data.length > limits.maxBytes)
    throw new DocumentError('TooLarge', `the file is ${data.length} bytes; the limit is ${limits.maxBytes}`);
  checkHeader(data);
  checkEncryption(data);
  const lib = await pdfjs();
  const task = lib.getDocument({
    data: data.slice(),
    password: opts.password,
    isEvalSupported: false,
    standardFontDataUrl,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    // Text only: no canvas, no image decoding, no images kept in operator lists.
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    maxImageSize: 0,
    enableXfa: false,
    verbosity: 0,
  });
  // pdf.js's own promise for the document is awaited in extract(); this catch only keeps a
  // rejection that arrives after the budget has already answered from being unhandled.
  task.promise.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DocumentError('Timeout', `reading the PDF took longer than ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
  });
  try {
    return await Promise.race([extract(task, limits, Date.now() + limits.timeoutMs), budget]);
  } catch (err) {
    throw mapError(err, Boolean(opts.password));
  } finally {
    clearTimeout(timer);
    void task.destroy().catch(() => undefined);
  }
}

interface TextItem {
  str?: string;
  transform: number[];
  width: number;
  height: number;
}

/**
 * The text items of one page, read from pdf.js's stream chunk by chunk so that the item caps and
 * the time budget are checked while pdf.js works (its slices yield to promises, not to timers).
 */
async function pageItems(page: any, n: number, limits: Limits, deadline: number, itemsSoFar: number): Promise<TextItem[]> {
  const reader = page.streamTextContent({ disableNormalization: false }).getReader();
  const items: TextItem[] = [];
  try {
    for (;;) {
      const { value, done } = (await reader.read()) as { value?: { items: TextItem[] }; done: boolean };
      if (done) return items;
      for (const it of value!.items) items.push(it);
      if (items.length > limits.maxPageItems)
        throw new DocumentError(
          'TooLarge',
          `page ${n} has more than ${limits.maxPageItems} text items; the limit is ${limits.maxPageItems}`,
        );
      if (itemsSoFar + items.length > limits.maxTextItems)
        throw new DocumentError('TooLarge', `the PDF has more than ${limits.maxTextItems} text items; the limit is ${limits.maxTextItems}`);
      overBudget(deadline, limits);
    }
  } catch (err) {
    reader.cancel().catch(() => undefined);
    throw err;
  }
}

function overBudget(deadline: number, limits: Limits): void {
  if (Date.now() > deadline) throw new DocumentError('Timeout', `reading the PDF took longer than ${limits.timeoutMs} ms`);
}

async function extract(task: { promise: Promise<any> }, limits: Limits, deadline: number): Promise<PdfDocument> {
  const doc = await task.promise;
  if (doc.numPages > limits.maxPages)
    throw new DocumentError('TooLarge', `the PDF has ${doc.numPages} pages; the limit is ${limits.maxPages}`);
  const md = await doc.getMetadata().catch(() => ({ info: {} }));
  const info = md.info as Record<string, unknown>;
  const pages: Page[] = [];
  let chars = 0;
  let itemCount = 0;
  for (let n = 1; n <= doc.numPages; n++) {
    overBudget(deadline, limits);
    const page = await doc.getPage(n);
    const vp = page.getViewport({ scale: 1 });
    const text = await pageItems(page, n, limits, deadline, itemCount);
    itemCount += text.length;
    const items: RawItem[] = [];
    // Text matrices are in PDF user space; the viewport maps them to the page as shown (page
    // /Rotate, a crop box not at the origin, y from the top). Orientation and positions are read
    // in that shown space, so a landscape note stored as a rotated portrait page reads normally.
    const [va, vb, vc, vd, ve, vf] = vp.transform as number[];
    for (const it of text) {
      if (typeof it.str !== 'string' || !it.str) continue;
      const [ta, tb, tc, td, te, tf] = it.transform;
      const a = va * ta + vc * tb;
      const b = vb * ta + vd * tb;
      const c = va * tc + vc * td;
      const d = vb * tc + vd * td;
      const e = va * te + vc * tf + ve;
      const f = vb * te + vd * tf + vf;
      const run = Math.hypot(a, b);
      // Height perpendicular to the baseline: italic made by shearing the matrix (c != 0) is still
      // horizontal text; only a turned baseline (b != 0, or drawn right to left) is rotated.
      const size = (run ? Math.abs(a * d - b * c) / run : 0) || it.height || 10;
      const rotated = !run || Math.abs(b) > 0.02 * run || a < 0;
      items.push({ text: it.str, x: e, y: f, width: it.width, size, rotated });
      chars += it.str.trim().length;
    }
    const { lines, rotated } = buildLines(items, n);
    pages.push({ number: n, width: vp.width, height: vp.height, lines, rotated });
    page.cleanup();
  }
  if (chars === 0) {
    throw new DocumentError(
      'NoTextLayer',
      'the PDF has no text layer (a scanned or image-only file, or a copy printed to PDF as images); there is no text to read: use the original PDF from the issuer',
    );
  }
  return {
    pages,
    metadata: {
      producer: meta(info, 'Producer'),
      creator: meta(info, 'Creator'),
      title: meta(info, 'Title'),
      author: meta(info, 'Author'),
      subject: meta(info, 'Subject'),
    },
  };
}

/** Raw pdf.js text extraction with no model building: the benchmark baseline. */
export async function rawExtract(data: Uint8Array, password?: string): Promise<number> {
  const lib = await pdfjs();
  const task = lib.getDocument({
    data: data.slice(),
    password,
    isEvalSupported: false,
    standardFontDataUrl,
    disableFontFace: true,
    verbosity: 0,
  });
  const doc = await task.promise;
  let n = 0;
  for (let i = 1; i <= doc.numPages; i++) {
    const page = await doc.getPage(i);
    const c = await page.getTextContent();
    n += c.items.length;
    page.cleanup();
  }
  await task.destroy();
  return n;
}

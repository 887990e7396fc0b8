/**
 * Open a PDF with pdf.js (legacy build) and turn it into the document model.
 * Typed errors: PasswordRequired, IncorrectPassword, NotAPdf, DamagedPdf, NoTextLayer,
 * TooLarge, Timeout. A per-document time budget means it never hangs.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promises as fs } from 'node:fs';
import { DocumentError } from '../errors.js';
import { buildLines, type RawItem } from './lines.js';
import { loadPdfjsModules } from './node-env.js';
import type { PdfDocument, Page } from './model.js';

export interface OpenOptions {
  password?: string;
  /** Maximum file size in bytes (default 50 MiB). */
  maxBytes?: number;
  /** Maximum page count (default 1000). */
  maxPages?: number;
  /** Time budget for the whole document in ms (default 60 s). */
  timeoutMs?: number;
}

export const DEFAULT_LIMITS = { maxBytes: 50 * 1024 * 1024, maxPages: 1000, timeoutMs: 60_000 };

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
      return lib;
    })();
  }
  return pdfjsPromise;
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
    return new DocumentError('PasswordRequired', 'the PDF is password-protected; give its password (--password-file, CAS_PDF_PASSWORD or the prompt)');
  }
  if (e instanceof DocumentError) return e;
  return new DocumentError('DamagedPdf', `the PDF is damaged and cannot be read (${e?.name ?? 'error'}: ${String(e?.message ?? '').split('\n')[0]})`);
}

function meta(info: Record<string, unknown> | undefined, key: string): string | null {
  const v = info?.[key];
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}

export async function openPdf(src: PdfSource, opts: OpenOptions = {}): Promise<PdfDocument> {
  const limits = { ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  const data = await readSource(src, limits.maxBytes);
  if (data.length > limits.maxBytes) throw new DocumentError('TooLarge', `the file is ${data.length} bytes; the limit is ${limits.maxBytes}`);
  checkHeader(data);
  const lib = await pdfjs();
  const task = lib.getDocument({
    data: data.slice(),
    password: opts.password,
    isEvalSupported: false,
    standardFontDataUrl,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DocumentError('Timeout', `reading the PDF took longer than ${limits.timeoutMs} ms`)), limits.timeoutMs);
  });
  try {
    return await Promise.race([extract(task, limits.maxPages), budget]);
  } catch (err) {
    throw mapError(err, Boolean(opts.password));
  } finally {
    clearTimeout(timer);
    void task.destroy().catch(() => undefined);
  }
}

async function extract(task: { promise: Promise<any> }, maxPages: number): Promise<PdfDocument> {
  const doc = await task.promise;
  if (doc.numPages > maxPages) throw new DocumentError('TooLarge', `the PDF has ${doc.numPages} pages; the limit is ${maxPages}`);
  const md = await doc.getMetadata().catch(() => ({ info: {} }));
  const info = md.info as Record<string, unknown>;
  const pages: Page[] = [];
  let chars = 0;
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const vp = page.getViewport({ scale: 1 });
    const content = await page.getTextContent({ disableNormalization: false });
    const items: RawItem[] = [];
    // Text matrices are in PDF user space; the viewport maps them to the page as shown (page
    // /Rotate, a crop box not at the origin, y from the top). Orientation and positions are read
    // in that shown space, so a landscape note stored as a rotated portrait page reads normally.
    const [va, vb, vc, vd, ve, vf] = vp.transform as number[];
    for (const it of content.items as { str?: string; transform: number[]; width: number; height: number }[]) {
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
    throw new DocumentError('NoTextLayer', 'the PDF has no text layer (a scanned or image-only file, or a copy printed to PDF as images); there is no text to read: use the original PDF from the issuer');
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
  const task = lib.getDocument({ data: data.slice(), password, isEvalSupported: false, standardFontDataUrl, disableFontFace: true, verbosity: 0 });
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

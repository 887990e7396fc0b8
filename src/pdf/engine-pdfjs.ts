/**
 * The pdf.js text engine (legacy build, `isEvalSupported: false`), the second engine
 * (`engine: 'pdfjs'`, CAS_PDF_ENGINE=pdfjs).
 *
 * pdf.js runs in this thread (its "fake worker") and yields to other work between 20 ms slices
 * only through resolved promises, never through the event loop, so a timer alone cannot stop a
 * long document: the budget is also checked between text chunks and pages. What no check inside
 * this process can stop is a single synchronous stretch inside pdf.js (a content stream nested
 * 200,000 `q` deep, a FlateDecode bomb decoded into one buffer): those need the wall-clock and
 * memory limits the callers put around a parse job (a worker they can terminate). Rejections
 * pdf.js leaves unhandled inside its worker are absorbed (see `isPdfjsInternalRejection`), never a
 * crash.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DocumentError } from '../errors.js';
import { loadPdfjsModules } from './node-env.js';
import { checkDeadline, checkItemCount, metaValue, shownItem, stoppedAtLimit, type EngineLimits, type TextEngine } from './engine.js';

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
async function pageItems(page: any, n: number, limits: EngineLimits, deadline: number, itemsSoFar: number): Promise<TextItem[]> {
  const reader = page.streamTextContent({ disableNormalization: false }).getReader();
  const items: TextItem[] = [];
  try {
    for (;;) {
      const { value, done } = (await reader.read()) as { value?: { items: TextItem[] }; done: boolean };
      if (done) return items;
      for (const it of value!.items) items.push(it);
      checkItemCount(n, items.length, itemsSoFar + items.length, limits);
      checkDeadline(deadline, limits);
    }
  } catch (err) {
    reader.cancel().catch(() => undefined);
    throw err;
  }
}

/** The options every pdf.js document is opened with: a copy of the bytes (pdf.js detaches the buffer it is given), no eval, no font faces. */
function baseOptions(data: Uint8Array, password: string | undefined) {
  return { data: data.slice(), password, isEvalSupported: false, standardFontDataUrl, disableFontFace: true, verbosity: 0 };
}

export const pdfjsEngine: TextEngine = {
  name: 'pdfjs',
  async extract(data, password, limits, deadline, sink) {
    const lib = await pdfjs();
    const task = lib.getDocument({
      ...baseOptions(data, password),
      useSystemFonts: false,
      stopAtErrors: false,
      // Text only: no canvas, no image decoding, no images kept in operator lists.
      isOffscreenCanvasSupported: false,
      isImageDecoderSupported: false,
      maxImageSize: 0,
      enableXfa: false,
    });
    // pdf.js's own promise for the document is awaited below; this catch only keeps a rejection
    // that arrives after the budget has already answered from being unhandled.
    task.promise.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DocumentError('Timeout', stoppedAtLimit(limits.timeoutMs))), Math.max(0, deadline - Date.now()));
    });
    const read = async () => {
      const doc = await task.promise;
      if (doc.numPages > limits.maxPages)
        throw new DocumentError('TooLarge', `the PDF has ${doc.numPages} pages; the limit is ${limits.maxPages}`);
      const md = await doc.getMetadata().catch(() => ({ info: {} }));
      const info = md.info as Record<string, unknown>;
      let itemCount = 0;
      for (let n = 1; n <= doc.numPages; n++) {
        checkDeadline(deadline, limits);
        const page = await doc.getPage(n);
        const vp = page.getViewport({ scale: 1 });
        const text = await pageItems(page, n, limits, deadline, itemCount);
        itemCount += text.length;
        const v = vp.transform as number[];
        const items = text
          .filter((it) => typeof it.str === 'string' && it.str)
          .map((it) => shownItem(v, it.transform, it.str!, it.width, it.height));
        sink(n, vp.width, vp.height, items);
        page.cleanup();
      }
      return {
        producer: metaValue(info?.Producer),
        creator: metaValue(info?.Creator),
        title: metaValue(info?.Title),
        author: metaValue(info?.Author),
        subject: metaValue(info?.Subject),
      };
    };
    try {
      return await Promise.race([read(), budget]);
    } catch (err) {
      throw mapError(err, Boolean(password));
    } finally {
      clearTimeout(timer);
      void task.destroy().catch(() => undefined);
    }
  },

  async raw(data, password) {
    const lib = await pdfjs();
    const task = lib.getDocument(baseOptions(data, password));
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
  },
};

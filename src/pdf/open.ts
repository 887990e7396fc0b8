/**
 * Open a PDF and turn it into the document model, with one of two text engines (engine.ts):
 * PDFium-WASM (the default) or pdf.js. Typed errors: PasswordRequired, IncorrectPassword, NotAPdf,
 * DamagedPdf, NoTextLayer, TooLarge, Timeout.
 *
 * Limits (OpenOptions, with defaults in DEFAULT_LIMITS): file size, pages, text items per page and
 * per document, and a time budget, checked between pages (and, with pdf.js, between text chunks).
 * A checkpoint cannot stop a single synchronous stretch inside an engine (a content stream nested
 * 200,000 `q` deep, a FlateDecode bomb decoded into one buffer): on a worker, the callers' limits
 * around a parse job do (a worker they can terminate); in a thread nobody else can stop
 * (`selfTimed`), PDFium's stretches run under a watchdog that ends them at the deadline, and its
 * heap has its cap. An encryption key length an engine would spin on is refused before the engine
 * sees the file (guard.ts). Only the engine in use is loaded.
 */
import { promises as fs } from 'node:fs';
import { DocumentError } from '../errors.js';
import { buildLines } from './lines.js';
import { checkEncryption } from './guard.js';
import { resolveEngine, type EngineName, type TextEngine } from './engine.js';
import type { PdfDocument, Page } from './model.js';

export { isPdfjsInternalRejection, absorbedRejections } from './engine-pdfjs.js';

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
  /** The text engine (default: CAS_PDF_ENGINE, else pdfium); see engine.ts. */
  engine?: EngineName;
  /** An earlier end than `timeoutMs` gives (ms since the epoch): a job's budget shared by its password attempts. */
  deadline?: number;
  /** Nobody outside this thread can stop it: the engine bounds its synchronous stretches by the deadline itself (EngineLimits.selfTimed). */
  selfTimed?: boolean;
}

export const DEFAULT_LIMITS = { maxBytes: 50 * 1024 * 1024, maxPages: 500, timeoutMs: 60_000, maxPageItems: 20_000, maxTextItems: 500_000 };

type Limits = typeof DEFAULT_LIMITS;

/** The limits in force: DEFAULT_LIMITS, then the options that are set. */
export function pdfLimits(opts: Partial<Limits> = {}): Limits {
  const out = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) if (opts[key] !== undefined) out[key] = opts[key];
  return out;
}

/** The engine's module, loaded on first use (only the one asked for). */
export async function loadEngine(name: EngineName): Promise<TextEngine> {
  return name === 'pdfjs' ? (await import('./engine-pdfjs.js')).pdfjsEngine : (await import('./engine-pdfium.js')).pdfiumEngine;
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

export async function openPdf(src: PdfSource, opts: OpenOptions = {}): Promise<PdfDocument> {
  const limits = pdfLimits(opts);
  const engine = await loadEngine(resolveEngine(opts.engine));
  const data = await readSource(src, limits.maxBytes);
  if (data.length > limits.maxBytes)
    throw new DocumentError('TooLarge', `the file is ${data.length} bytes; the limit is ${limits.maxBytes}`);
  checkHeader(data);
  checkEncryption(data);
  const pages: Page[] = [];
  let chars = 0;
  const deadline = Math.min(Date.now() + limits.timeoutMs, opts.deadline ?? Infinity);
  const engineLimits = { ...limits, selfTimed: opts.selfTimed };
  const metadata = await engine.extract(data, opts.password, engineLimits, deadline, (number, width, height, items) => {
    for (const it of items) chars += it.text.trim().length;
    const { lines, rotated } = buildLines(items, number);
    pages.push({ number, width, height, lines, rotated });
  });
  if (chars === 0) {
    throw new DocumentError(
      'NoTextLayer',
      'the PDF has no text layer (a scanned or image-only file, or a copy printed to PDF as images); there is no text to read: use the original PDF from the issuer',
    );
  }
  return { pages, metadata };
}

/** Raw text extraction with no model building: the benchmark baseline (pdf.js unless another engine is named). */
export async function rawExtract(data: Uint8Array, password?: string, engine: EngineName = 'pdfjs'): Promise<number> {
  return (await loadEngine(engine)).raw(data, password);
}

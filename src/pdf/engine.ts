/**
 * The text engines behind `openPdf` and what they hand back. Both read a PDF's text layer into the
 * same raw text items (pdf.js's text runs: one per run of glyphs on a baseline, a space where the
 * gap is a space's width), which `open.ts` turns into the document model with `buildLines`.
 *
 * - `pdfium` (the default): PDFium compiled to WebAssembly (`@embedpdf/pdfium`), one instance per
 *   thread, loaded once and reused. Its per-character boxes are merged into runs by the rules
 *   pdf.js uses (engine-pdfium.ts), so the parsers see the same pieces from either engine.
 * - `pdfjs`: Mozilla's pdf.js (legacy build), the engine `cas` used first.
 *
 * The engine is chosen by `OpenOptions.engine`, else by CAS_PDF_ENGINE, else pdfium.
 */
import vm from 'node:vm';
import { DocumentError, UsageError } from '../errors.js';
import type { DocumentMetadata } from './model.js';
import type { RawItem } from './lines.js';

import { DEFAULT_ENGINE, ENGINES, type EngineName } from '../shared/pdf-engines.js';

export { DEFAULT_ENGINE, ENGINES, type EngineName };

/** The engine named by `name` (an option or a flag), else by CAS_PDF_ENGINE, else the default; anything else is a usage error. */
export function resolveEngine(name?: string, env: NodeJS.ProcessEnv = process.env): EngineName {
  const [value, from] = name !== undefined ? [name, 'the PDF engine'] : [env.CAS_PDF_ENGINE ?? '', 'CAS_PDF_ENGINE'];
  if (value === '') return DEFAULT_ENGINE;
  const v = value.trim().toLowerCase();
  if ((ENGINES as readonly string[]).includes(v)) return v as EngineName;
  throw new UsageError(`${from} must be one of ${ENGINES.join(', ')} (got '${value}')`);
}

/** The limits an engine checks while it reads (see OpenOptions). */
export interface EngineLimits {
  maxPages: number;
  maxPageItems: number;
  maxTextItems: number;
  timeoutMs: number;
  /**
   * Nobody outside this thread can stop it (a small file parsed in the CLI's own thread, not on a
   * worker the pool can terminate): the engine's synchronous stretches run under a watchdog that
   * ends them at the deadline (`withinDeadline`), even inside a call into PDFium.
   */
  selfTimed?: boolean;
}

/** Receives each page as soon as an engine has read it: its shown size (rotation and crop box applied) and its text items in that space. */
export type PageSink = (n: number, width: number, height: number, items: RawItem[]) => void;

/** What `open.ts` asks of an engine: read the text layer of `data`, page by page into `sink`, and the metadata. */
export interface TextEngine {
  readonly name: EngineName;
  extract(
    data: Uint8Array,
    password: string | undefined,
    limits: EngineLimits,
    deadline: number,
    sink: PageSink,
  ): Promise<DocumentMetadata>;
  /** Raw text extraction with no model building (the benchmark baseline): the number of text items. */
  raw(data: Uint8Array, password?: string): Promise<number>;
}

export function metaValue(v: unknown): string | null {
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}

/**
 * A text item in the page as shown: its text matrix `t` (PDF user space) through the viewport
 * transform `v`. Text matrices are in PDF user space; the viewport maps them to the page as shown
 * (page /Rotate, a crop box not at the origin, y from the top). Orientation and positions are read
 * in that shown space, so a landscape note stored as a rotated portrait page reads normally.
 */
export function shownItem(v: number[], t: number[], text: string, width: number, height: number): RawItem {
  const [va, vb, vc, vd, ve, vf] = v;
  const [ta, tb, tc, td, te, tf] = t;
  const a = va * ta + vc * tb;
  const b = vb * ta + vd * tb;
  const c = va * tc + vc * td;
  const d = vb * tc + vd * td;
  const run = Math.sqrt(a * a + b * b);
  // Height perpendicular to the baseline: italic made by shearing the matrix (c != 0) is still
  // horizontal text; only a turned baseline (b != 0, or drawn right to left) is rotated.
  const size = (run ? Math.abs(a * d - b * c) / run : 0) || height || 10;
  const rotated = !run || Math.abs(b) > 0.02 * run || a < 0;
  return { text, x: va * te + vc * tf + ve, y: vb * te + vd * tf + vf, width, size, rotated };
}

/** The item caps: `onPage` items on page `n`, `total` in the document so far (TooLarge past either). */
export function checkItemCount(n: number, onPage: number, total: number, limits: EngineLimits): void {
  if (onPage > limits.maxPageItems)
    throw new DocumentError('TooLarge', `page ${n} has more than ${limits.maxPageItems} text items; the limit is ${limits.maxPageItems}`);
  if (total > limits.maxTextItems)
    throw new DocumentError('TooLarge', `the PDF has more than ${limits.maxTextItems} text items; the limit is ${limits.maxTextItems}`);
}

/** The time budget (Timeout past the deadline). */
export function checkDeadline(deadline: number, limits: EngineLimits): void {
  if (Date.now() > deadline) throw new DocumentError('Timeout', stoppedAtLimit(limits.timeoutMs));
}

/** The Timeout of a parse stopped at its time limit (the pool's timer, a check between pages, `withinDeadline`'s watchdog). */
export const stoppedAtLimit = (timeoutMs: number): string =>
  `reading the PDF took longer than the limit of ${timeoutMs / 1000} s; it was stopped`;

const WATCHED = Symbol.for('cas.withinDeadline');
let watched: vm.Script | undefined;

/**
 * Run the synchronous `fn` under a watchdog that stops it at `deadline`: V8 ends the stretch
 * wherever it is, in JavaScript or inside WebAssembly (the same termination a worker's `terminate`
 * uses), through Node's `vm` time limit on a one-line script that calls `fn` in this context. A stop
 * (or a deadline already past) is the parse's Timeout; after it the caller must treat whatever `fn`
 * was changing as broken (a PDFium instance is dropped). Errors `fn` throws pass through unchanged.
 */
export function withinDeadline<T>(deadline: number, timeoutMs: number, fn: () => T): T {
  const ms = Math.floor(deadline - Date.now());
  if (ms <= 0) throw new DocumentError('Timeout', stoppedAtLimit(timeoutMs));
  watched ??= new vm.Script(`globalThis[Symbol.for('cas.withinDeadline')]()`);
  const g = globalThis as unknown as Record<symbol, (() => void) | undefined>;
  let out: { value: T } | undefined;
  g[WATCHED] = () => {
    out = { value: fn() };
  };
  try {
    watched.runInThisContext({ timeout: ms });
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      throw new DocumentError('Timeout', stoppedAtLimit(timeoutMs));
    throw err;
  } finally {
    g[WATCHED] = undefined;
  }
  return out!.value;
}

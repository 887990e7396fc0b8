/**
 * A small file parsed in the caller's own thread (issue 36): `cas parse` of one statement need not
 * start a worker (a second Node environment and a second load of the parse code, about a third of
 * a one-page parse and 10 MB), so a file of at most INLINE_MAX_BYTES read with the PDFium engine is
 * parsed here, with the limits a worker would have had:
 * - time: one deadline for the whole job (its password attempts included), checked between pages,
 *   and a watchdog around every synchronous stretch of the engine and of the parser that ends it at
 *   the deadline even inside a call into PDFium (`withinDeadline`): Timeout, with the pool's message;
 * - memory: PDFium's WebAssembly heap is capped at the per-parse limit (CAS_PARSE_MAX_MEMORY_MB), as
 *   on a worker; its text items are capped as everywhere (a small file cannot hold more text than
 *   that in the JavaScript heap);
 * - failure: a trap or a stop drops the PDFium instance (the next file gets a new one); every error
 *   is an outcome, never a throw.
 * Larger files, pdf.js (its heap is the JavaScript heap), batches and the server use the pool.
 */
import { statSync } from 'node:fs';
import v8 from 'node:v8';
import { inputPath } from './input.js';
import { capPdfiumHeap, pdfiumForOneDocument, pdfiumModule } from '../pdf/engine-pdfium.js';
import { runParseJob, type ParseJob, type ParseOutcome } from './parse-job.js';
import type { ParseLimits } from './limits.js';

/** The largest file parsed in-thread: statements and contract notes are 30 KB to 1 MB. */
export const INLINE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * A file up to this size, read on its own by a process that then exits, keeps PDFium in its first
 * compiler tier (`pdfiumForOneDocument`). Measured cold (`cas parse FILE`, issue 36): 5-11% faster
 * on every genuine statement and contract note studied (10-30 pages, 150-410 KB) and 1-20 generated
 * pages; 10% slower on a generated 100-page statement of 346 KB, where PDFium's hot loops run long
 * enough to repay their optimising recompile. Statements are rarely larger than this.
 */
export const FIRST_TIER_MAX_BYTES = 512 * 1024;

/**
 * Load PDFium in this thread now (its WebAssembly compiles in the background while the command gets
 * ready). With `oneDocument` (the one file a command reads before it exits, `-` for stdin), the
 * process is tuned for a short life: V8's young generation keeps its starting size instead of
 * doubling after collections (the objects of one parse live until it ends; a larger nursery only
 * raises the peak RSS: 79.5 -> 74 MB for a 3-page statement, the same time), and a small file's
 * PDFium stays in its first tier (FIRST_TIER_MAX_BYTES; stdin's size is not known yet: first tier).
 */
export function warmInline(oneDocument?: string): void {
  if (oneDocument !== undefined) {
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    if (oneDocument === '-' || fileSize(oneDocument) <= FIRST_TIER_MAX_BYTES) pdfiumForOneDocument();
  }
  void pdfiumModule().catch(() => undefined);
}

function fileSize(file: string): number {
  try {
    const p = inputPath(file);
    return statSync(typeof p === 'string' ? p : Buffer.from(p)).size;
  } catch {
    return Infinity; // its error is reported when it is read
  }
}

/** Run `job` (with its bytes) in this thread within `limits`; see the module comment. */
export function runInline(job: ParseJob & { bytes: Uint8Array }, limits: ParseLimits): Promise<ParseOutcome> {
  capPdfiumHeap(limits.memoryMb * 1024 * 1024);
  return runParseJob({ ...job, limits, engine: 'pdfium' }, { deadline: Date.now() + limits.timeoutMs, selfTimed: true });
}

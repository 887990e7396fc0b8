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
import { capPdfiumHeap, pdfiumModule } from '../pdf/engine-pdfium.js';
import { runParseJob, type ParseJob, type ParseOutcome } from './parse-job.js';
import type { ParseLimits } from './limits.js';

/** The largest file parsed in-thread: statements and contract notes are 30 KB to 1 MB. */
export const INLINE_MAX_BYTES = 2 * 1024 * 1024;

/** Load PDFium in this thread now (its WebAssembly compiles in the background while the command gets ready). */
export function warmInline(): void {
  void pdfiumModule().catch(() => undefined);
}

/** Run `job` (with its bytes) in this thread within `limits`; see the module comment. */
export function runInline(job: ParseJob & { bytes: Uint8Array }, limits: ParseLimits): Promise<ParseOutcome> {
  capPdfiumHeap(limits.memoryMb * 1024 * 1024);
  return runParseJob({ ...job, limits, engine: 'pdfium' }, { deadline: Date.now() + limits.timeoutMs, selfTimed: true });
}

/**
 * The parse worker: jobs in, outcomes out, one at a time. Everything is caught here: a side
 * promise of the PDF engine that rejects with no handler is counted and dropped (the job's own
 * promise still settles, or the pool's timer ends it); an uncaught exception answers the job and
 * ends this worker, which the pool replaces. While a job runs, the worker reports its memory
 * (heap + array buffers) so that the pool can stop it at the limit.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openPdf } from '../pdf/open.js';
import type { EngineName } from '../pdf/engine.js';
import { capPdfiumHeap } from '../pdf/engine-pdfium.js';
import { errorInfo } from './errors.js';
import { runParseJob, type ParseJob, type ParseOutcome } from './parse-job.js';

export type ToWorker = { id: number; job: ParseJob };
export type FromWorker = { id: number; outcome: ParseOutcome } | { id: number; mem: number } | { rejection: string };

let current: number | undefined;
const post = (m: FromWorker): void => parentPort?.postMessage(m);

process.on('unhandledRejection', (reason) => {
  post({ rejection: String((reason as Error)?.message ?? reason).split('\n')[0] });
});
process.on('uncaughtException', (err) => {
  if (current !== undefined) post({ id: current, outcome: { ok: false, ...errorInfo(err) } });
  current = undefined;
  process.exit(1);
});

// Load the pool's PDF engine now, while the caller is still starting up (an empty document: it fails, the
// engine stays loaded). The engine (for PDFium, the compiled WebAssembly instance) lives as long as this
// worker and serves every document it is given.
const { engine, memoryMb } = (workerData ?? {}) as { engine?: EngineName; memoryMb?: number };
// PDFium's WebAssembly heap is outside the worker's JS heap limit: it gets the same limit.
if (memoryMb) capPdfiumHeap(memoryMb * 1024 * 1024);
void openPdf(new TextEncoder().encode('%PDF-1.7\n'), { engine }).catch(() => undefined);

parentPort?.on('message', (msg: ToWorker) => {
  current = msg.id;
  const beat = setInterval(() => {
    const m = process.memoryUsage();
    post({ id: msg.id, mem: m.heapUsed + m.external });
  }, 100);
  void runParseJob(msg.job)
    .catch((err: unknown): ParseOutcome => ({ ok: false, ...errorInfo(err) }))
    .then((outcome) => {
      clearInterval(beat);
      current = undefined;
      post({ id: msg.id, outcome });
    });
});

/**
 * The parse worker: jobs in, outcomes out, one at a time. Everything is caught here: a side
 * promise of the PDF engine that rejects with no handler is counted and dropped (the job's own
 * promise still settles, or the pool's timer ends it); an uncaught exception answers the job and
 * ends this worker, which the pool replaces. While a job runs, the worker reports its memory so
 * that the pool can stop it at the limit: what the document holds (the JS heap in use and array
 * buffers), measured again after a full garbage collection before it is reported above the limit,
 * so that the figure does not depend on when the collector last ran (a busy machine). PDFium's
 * WebAssembly heap is capped by itself (capPdfiumHeap); a worker whose WebAssembly memory has grown
 * past half the limit (it never shrinks), or whose engine was dropped, asks to be replaced after its job.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { openPdf } from '../pdf/open.js';
import type { EngineName } from '../pdf/engine.js';
import { capPdfiumHeap } from '../pdf/engine-pdfium.js';
import { errorInfo } from './errors.js';
import { runParseJob, type ParseJob, type ParseOutcome } from './parse-job.js';

export type ToWorker = { id: number; job: ParseJob };
export type FromWorker = { id: number; outcome: ParseOutcome; recycle?: boolean } | { id: number; mem: number } | { rejection: string };

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
const limit = (memoryMb ?? 0) * 1024 * 1024;

// A full collection on demand (the flag is read when a context is made), for the figure reported above the limit.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as (() => void) | undefined;

/** What the job holds: the JS heap in use and array buffers (the WebAssembly heap is not one of them). */
function held(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Memory outside the JS heap and array buffers: mostly PDFium's WebAssembly heap (kept at its high-water mark). */
function wasmHeld(): number {
  const m = process.memoryUsage();
  return m.external - m.arrayBuffers;
}
void openPdf(new TextEncoder().encode('%PDF-1.7\n'), { engine }).catch(() => undefined);

parentPort?.on('message', (msg: ToWorker) => {
  current = msg.id;
  const beat = setInterval(() => {
    let mem = held();
    // Above the limit, count only what survives a full collection (garbage is not what the document needs).
    if (limit && mem > limit && gc) {
      gc();
      mem = held();
    }
    post({ id: msg.id, mem });
  }, 100);
  void runParseJob(msg.job)
    .catch((err: unknown): ParseOutcome => ({ ok: false, ...errorInfo(err) }))
    .then((outcome) => {
      clearInterval(beat);
      current = undefined;
      const recycle = Boolean(limit) && (wasmHeld() > limit / 2 || (!outcome.ok && outcome.code === 'ResourceLimit'));
      post({ id: msg.id, outcome, recycle });
    });
});

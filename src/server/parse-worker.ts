/** Parse worker: bytes in, unified JSON (or a typed error) out. */
import { parentPort } from 'node:worker_threads';
import { CasError } from '../errors.js';
import { openPdf } from '../pdf/open.js';
import { parseDocument } from '../parsers/index.js';
import type { ParseJob, ParseOutcome } from './pool.js';

parentPort?.on('message', (job: ParseJob) => {
  void (async (): Promise<ParseOutcome> => {
    try {
      const doc = await openPdf(new Uint8Array(job.bytes), { password: job.password });
      const r = parseDocument(doc, { type: job.type, broker: job.broker });
      return { ok: true, data: r.data, warnings: r.warnings, detection: { type: r.detection.type, issuer: r.detection.issuer } };
    } catch (err) {
      if (err instanceof CasError) return { ok: false, code: err.code, message: err.message, exitCode: err.exitCode };
      return { ok: false, code: 'Unexpected', message: 'the document could not be parsed', exitCode: 1 };
    }
  })().then((o) => parentPort?.postMessage(o));
});

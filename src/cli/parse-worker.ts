/** Worker thread for batch parsing: one file at a time, results posted back as plain data. */
import { parentPort, workerData } from 'node:worker_threads';
import { parseOne } from './parse-core.js';

const { plan, opts } = workerData as { plan: Parameters<typeof parseOne>[1]; opts: Parameters<typeof parseOne>[2] };
parentPort?.on('message', (msg: { file: string }) => {
  void parseOne(msg.file, plan, opts).then((o) => parentPort?.postMessage(o));
});

/** A worker-thread pool so that parsing never blocks the event loop. */
import { Worker } from 'node:worker_threads';
import os from 'node:os';
import type { BrokerType } from '../schema/index.js';
import type { StatementKind } from '../parsers/index.js';

export interface ParseJob {
  bytes: Uint8Array;
  password?: string;
  type?: StatementKind;
  broker?: BrokerType;
}

export type ParseOutcome =
  | { ok: true; data: unknown; warnings: { code: string; message: string }[]; detection: { type: string; issuer: string } }
  | { ok: false; code: string; message: string; exitCode: number };

interface Pending { job: ParseJob; resolve: (o: ParseOutcome) => void }

export class ParsePool {
  private idle: Worker[] = [];
  private all: Worker[] = [];
  private queue: Pending[] = [];
  private closed = false;

  constructor(size = Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length)) {
    for (let i = 0; i < size; i++) this.spawn();
  }

  private spawn(): void {
    const w = new Worker(new URL('./parse-worker.js', import.meta.url));
    w.unref();
    this.all.push(w);
    this.idle.push(w);
    w.on('error', () => {
      this.all = this.all.filter((x) => x !== w);
      this.idle = this.idle.filter((x) => x !== w);
      if (!this.closed) this.spawn();
    });
  }

  run(job: ParseJob): Promise<ParseOutcome> {
    return new Promise((resolve) => {
      this.queue.push({ job, resolve });
      this.pump();
    });
  }

  private pump(): void {
    while (this.idle.length && this.queue.length) {
      const w = this.idle.pop()!;
      const p = this.queue.shift()!;
      w.once('message', (o: ParseOutcome) => {
        this.idle.push(w);
        p.resolve(o);
        this.pump();
      });
      w.postMessage(p.job);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}

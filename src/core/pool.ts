/**
 * The one worker pool of parse jobs, for `cas parse` and `cas serve`. Limits are enforced from
 * outside the job: each worker has a heap limit (`resourceLimits`), a timer stops a job that runs
 * past its wall-clock budget (terminating the worker even while it spins synchronously), and a
 * watch on memory stops a worker whose heap and buffers pass the limit. A worker that is stopped,
 * crashes or runs out of memory is replaced, and its job is answered with a typed error
 * (`Timeout`, `ResourceLimit`, `WorkerCrashed`): `run` never rejects and never stays pending.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { jobError } from './errors.js';
import { defaultWorkers, parseLimits, type ParseLimits } from './limits.js';
import { resolveEngine, stoppedAtLimit, type EngineName } from '../pdf/engine.js';
import type { ParseJob, ParseOutcome } from './parse-job.js';
import type { FromWorker } from './worker.js';

export interface PoolOptions {
  /** Workers (default CAS_PARSE_WORKERS, else the number of cores). */
  size?: number;
  limits?: Partial<ParseLimits>;
  /** Start every worker now rather than on the first jobs (a server's first requests then wait less). */
  warm?: boolean;
  /** The PDF text engine of this pool's jobs (default CAS_PDF_ENGINE, else pdfium; a job may name its own). */
  engine?: EngineName;
}

export interface PoolStats {
  jobs: number;
  timeouts: number;
  memoryStops: number;
  crashes: number;
  /** Rejections of the PDF engine's side promises, caught inside workers. */
  rejectionsCaught: number;
}

interface Task {
  id: number;
  job: ParseJob;
  resolve: (o: ParseOutcome) => void;
  timer?: NodeJS.Timeout;
  /** Times the whole-process memory check stopped this job without proof it was the one growing. */
  suspected?: number;
}

interface Slot {
  w: Worker;
  task?: Task;
  /** Last memory the worker reported for its task, and when. */
  mem: number;
  beat: number;
  dead: boolean;
}

const MB = 1024 * 1024;
/**
 * The whole-process check allows each worker twice the limit (plus 64 MB of its own): its JS heap and
 * its WebAssembly heap may each reach the limit, and the RSS keeps freed pages for a while. It is the
 * net for a worker that cannot report (a synchronous stretch); the limit itself is measured by the
 * worker (after a collection), by the heap limit and by the WebAssembly cap, none of which depend on load.
 */
const WORKER_BUDGET = 2;

/** The process's resident memory less what the main thread's heap and buffers hold (uploads in a server): mostly the workers'. */
function outsideMain(): number {
  const m = process.memoryUsage();
  return m.rss - m.heapTotal - m.external;
}
/** The machine's cores: the default number of workers, for the server's pool and `cas parse --jobs`. */
export const cores = (): number => (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);

export class ParsePool {
  private workers: number;
  readonly limits: ParseLimits;
  /** The engine each worker loads once and reuses for every document. */
  readonly engine: EngineName;
  readonly stats: PoolStats = { jobs: 0, timeouts: 0, memoryStops: 0, crashes: 0, rejectionsCaught: 0 };
  private slots: Slot[] = [];
  private queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  private watch?: NodeJS.Timeout;
  private quietUntil = 0;
  /** Workers terminated that have not exited yet. */
  private exiting = 0;
  /** This process's memory outside the main thread's heap and buffers, before any job: the base of the whole-process check. */
  private readonly baseRss = outsideMain();

  constructor(opts: PoolOptions = {}) {
    this.workers = Math.max(1, Math.floor(opts.size ?? defaultWorkers(process.env, cores())));
    this.limits = parseLimits(opts.limits);
    this.engine = resolveEngine(opts.engine);
    if (opts.warm) while (this.slots.length < this.size) this.spawn();
  }

  /** Most workers this pool runs at once. */
  get size(): number {
    return this.workers;
  }

  /** Allow more workers (a batch after a single file); never fewer. */
  grow(size: number): void {
    this.workers = Math.max(this.workers, Math.floor(size));
    this.pump();
  }

  /** Parse on a worker; resolves with an outcome in every case (a closed pool answers `Cancelled`). */
  run(job: ParseJob): Promise<ParseOutcome> {
    return new Promise((resolve) => {
      if (this.closed) return resolve({ ok: false, ...jobError('Cancelled', 'the parser is shutting down') });
      this.stats.jobs++;
      this.queue.push({
        id: this.nextId++,
        job: { ...job, limits: { ...this.limits, ...job.limits }, engine: job.engine ?? this.engine },
        resolve,
      });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length && !this.closed) {
      let slot: Slot | undefined;
      try {
        slot = this.slots.find((s) => !s.task) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      } catch (err) {
        // No worker could be started (threads or memory exhausted): answer rather than wait.
        this.queue
          .shift()!
          .resolve({ ok: false, ...jobError('WorkerCrashed', `no parse worker could be started (${(err as Error).message})`) });
        continue;
      }
      if (!slot) return;
      const task = this.queue.shift()!;
      try {
        this.assign(slot, task);
      } catch (err) {
        slot.task = task;
        this.stop(slot, 'WorkerCrashed', (err as Error).message);
      }
    }
  }

  private spawn(): Slot {
    const w = new Worker(new URL('./worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb },
      workerData: { engine: this.engine, memoryMb: this.limits.memoryMb },
    });
    const slot: Slot = { w, mem: 0, beat: 0, dead: false };
    w.on('message', (m: FromWorker) => {
      if ('rejection' in m) {
        this.stats.rejectionsCaught++;
        return;
      }
      if (slot.dead || !slot.task || m.id !== slot.task.id) return;
      if ('mem' in m) {
        slot.mem = m.mem;
        slot.beat = Date.now();
        if (m.mem > this.limits.memoryMb * MB) this.stop(slot, 'ResourceLimit');
        return;
      }
      const t = slot.task;
      clearTimeout(t.timer);
      slot.task = undefined;
      w.unref();
      t.resolve(m.outcome);
      // A worker left holding a large WebAssembly heap (it never shrinks) is replaced, so the next job starts small.
      if (m.recycle) this.retire(slot);
      this.pump();
    });
    w.on('error', (err: Error & { code?: string }) =>
      this.stop(slot, err?.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'ResourceLimit' : 'WorkerCrashed', err?.message),
    );
    w.on('exit', (code) => this.stop(slot, 'WorkerCrashed', `exit code ${code}`));
    // After the listeners (adding a 'message' listener refs the worker again): an idle worker keeps no process alive.
    w.unref();
    this.slots.push(slot);
    return slot;
  }

  private assign(slot: Slot, task: Task): void {
    slot.task = task;
    slot.mem = 0;
    slot.beat = Date.now();
    slot.w.ref();
    task.timer = setTimeout(() => this.stop(slot, 'Timeout'), this.limitOf(task, 'timeoutMs'));
    slot.w.postMessage({ id: task.id, job: task.job });
    this.watch ??= setInterval(() => this.checkMemory(), 100).unref();
  }

  private limitOf(task: Task, key: keyof ParseLimits): number {
    return task.job.limits?.[key] ?? this.limits[key];
  }

  /**
   * The whole process's memory: a worker blocked in a synchronous loop cannot report its own, so
   * past the budget (the process at start, plus the limit per worker; the main thread's own heap
   * and buffers left out) the busy worker that has gone quiet longest, or else the largest, is stopped.
   */
  private checkMemory(): void {
    const busy = this.slots.filter((s) => s.task && !s.dead);
    if (!busy.length) {
      clearInterval(this.watch);
      this.watch = undefined;
      return;
    }
    const now = Date.now();
    // While a stopped worker has not exited, its memory is still in the RSS: not a job's.
    if (now < this.quietUntil || this.exiting > 0) return;
    if (outsideMain() <= this.baseRss + 128 * MB + this.slots.length * (WORKER_BUDGET * this.limits.memoryMb + 64) * MB) return;
    const quiet = busy.filter((s) => now - s.beat > 300).sort((a, b) => a.beat - b.beat);
    const victim = quiet[0] ?? busy.sort((a, b) => b.mem - a.mem)[0];
    this.quietUntil = now + 1000;
    this.stop(victim, 'ResourceLimit', undefined, true);
  }

  /** Terminate a worker; until it has exited, its memory still counts in the process's RSS. */
  private terminate(slot: Slot): void {
    this.exiting++;
    void slot.w
      .terminate()
      .catch(() => undefined)
      .finally(() => {
        this.exiting--;
        this.quietUntil = Math.max(this.quietUntil, Date.now() + 300);
      });
  }

  /** Replace an idle worker (its job is answered). */
  private retire(slot: Slot): void {
    if (slot.dead) return;
    slot.dead = true;
    this.slots = this.slots.filter((s) => s !== slot);
    this.terminate(slot);
  }

  /** Stop a worker (or note that it stopped), answer its job, and let a new one take its place. */
  private stop(slot: Slot, code: 'Timeout' | 'ResourceLimit' | 'WorkerCrashed', detail?: string, suspected = false): void {
    if (slot.dead) return;
    slot.dead = true;
    this.slots = this.slots.filter((s) => s !== slot);
    this.terminate(slot);
    const t = slot.task;
    slot.task = undefined;
    // A worker blocked in a synchronous stretch cannot say what it holds, so the whole-process check
    // may stop a blameless neighbour of the job that is growing. Such a job runs once more (first in
    // line); stopped on suspicion a second time, it is answered.
    if (t && suspected && !t.suspected) {
      clearTimeout(t.timer);
      t.suspected = 1;
      this.queue.unshift(t);
      this.pump();
      return;
    }
    if (t) {
      clearTimeout(t.timer);
      if (code === 'Timeout') this.stats.timeouts++;
      else if (code === 'ResourceLimit') this.stats.memoryStops++;
      else this.stats.crashes++;
      const message =
        code === 'Timeout'
          ? stoppedAtLimit(this.limitOf(t, 'timeoutMs'))
          : code === 'ResourceLimit'
            ? `reading the PDF needed more memory than the limit of ${this.limits.memoryMb} MB; it was stopped`
            : `the parser stopped unexpectedly${detail ? ` (${detail.split('\n')[0]})` : ''}`;
      t.resolve({ ok: false, ...jobError(code, message) });
    }
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watch);
    for (const t of this.queue.splice(0)) t.resolve({ ok: false, ...jobError('Cancelled', 'the parser is shutting down') });
    const slots = this.slots.splice(0);
    for (const s of slots) {
      s.dead = true;
      if (s.task) {
        clearTimeout(s.task.timer);
        s.task.resolve({ ok: false, ...jobError('Cancelled', 'the parser is shutting down') });
      }
    }
    await Promise.all(slots.map((s) => s.w.terminate().catch(() => undefined)));
  }
}

/**
 * One `cas serve` data folder run as successive processes on the same HTTP and SMTP ports: start,
 * SIGKILL, start again. Every process's stderr is kept; its peak RSS is sampled from /proc, and a
 * watchdog kills a process whose RSS passes a ceiling (so a memory bomb the server fails to contain
 * cannot take the shared machine down with it; the test then reports it).
 */
import { execa, type ResultPromise } from 'execa';
import { readFileSync } from 'node:fs';
import { BIN, cleanEnv } from '../helpers/cas.js';

export interface Incarnation {
  pid: number;
  /** ms from spawn to "listening on". */
  startMs: number;
  /** Peak resident set (VmHWM) seen, in MB. */
  peakRssMb: number;
  /** How it ended: 'sigkill' (by the test), 'sigterm' (by the test), 'watchdog', 'died' (on its own), or null while running. */
  end: null | 'sigkill' | 'sigterm' | 'watchdog' | 'died';
  exitCode?: number | null;
  signal?: string | null;
}

function procStatus(pid: number): { rssMb: number; hwmMb: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? 0);
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

export class LoadServer {
  url = '';
  port = 0;
  smtpPort = 0;
  readonly runs: Incarnation[] = [];
  private logs: string[] = [];
  private proc: ResultPromise | null = null;
  private current: Incarnation | null = null;
  private watch: NodeJS.Timeout | null = null;
  /** Called when a process ends without the test asking (died, or killed by the watchdog). */
  onUnexpectedEnd: (run: Incarnation) => void = () => undefined;

  constructor(
    readonly dataDir: string,
    private readonly args: string[],
    private readonly env: Record<string, string>,
    private readonly rssCeilingMb: number,
  ) {}

  /** Everything every process wrote to stderr, in order. */
  log(): string {
    return this.logs.join('');
  }

  get running(): boolean {
    return this.current !== null && this.current.end === null;
  }

  get pid(): number | undefined {
    return this.current?.pid;
  }

  private starting: Promise<Incarnation> | null = null;

  /** Start a process on the ports of the first one (port 0 the first time); resolves once it listens. One start at a time. */
  start(): Promise<Incarnation> {
    this.starting ??= this.spawn().finally(() => (this.starting = null));
    return this.starting;
  }

  private async spawn(): Promise<Incarnation> {
    // The previous process is gone before its ports are taken again.
    if (this.proc) await this.proc;
    if (this.running) return this.current!;
    const t0 = performance.now();
    const proc = execa(
      'node',
      [BIN, 'serve', '--port', String(this.port), '--smtp-port', String(this.smtpPort), '--data-dir', this.dataDir, ...this.args],
      { env: { ...cleanEnv(), ...this.env }, extendEnv: false, reject: false, stdin: 'ignore', stdout: 'ignore' },
    );
    const i = this.logs.push('') - 1;
    const run: Incarnation = { pid: proc.pid ?? 0, startMs: 0, peakRssMb: 0, end: null };
    this.runs.push(run);
    this.proc = proc;
    this.current = run;
    proc.stderr!.on('data', (d: Buffer) => (this.logs[i] += d.toString()));
    void proc.then((r) => {
      this.sample(run);
      run.exitCode = r.exitCode ?? null;
      run.signal = r.signal ?? null;
      if (run.end === null) {
        run.end = 'died';
        this.onUnexpectedEnd(run);
      }
      if (this.current === run) this.stopWatch();
    });
    this.watch = setInterval(() => {
      const s = this.sample(run);
      if (s && s.rssMb > this.rssCeilingMb && run.end === null) {
        run.end = 'watchdog';
        this.logs[i] += `\n[load test] watchdog: RSS ${Math.round(s.rssMb)} MB passed ${this.rssCeilingMb} MB; SIGKILL\n`;
        proc.kill('SIGKILL');
        this.onUnexpectedEnd(run);
      }
    }, 50);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`cas serve did not start in 30 s:\n${this.logs[i]}`)), 30_000);
      const check = (): void => {
        const m = /listening on (http:\/\/\S+)/.exec(this.logs[i]);
        if (m) {
          clearTimeout(timer);
          this.url = m[1];
          this.port = Number(new URL(m[1]).port);
          const smtp = /SMTP on [\d.]+:(\d+)/.exec(this.logs[i]);
          if (smtp) this.smtpPort = Number(smtp[1]);
          resolve();
        }
      };
      proc.stderr!.on('data', check);
      void proc.then(() => {
        clearTimeout(timer);
        reject(new Error(`cas serve exited before listening:\n${this.logs[i]}`));
      });
    });
    run.startMs = Math.round(performance.now() - t0);
    return run;
  }

  private sample(run: Incarnation): { rssMb: number; hwmMb: number } | null {
    const s = procStatus(run.pid);
    if (s) run.peakRssMb = Math.max(run.peakRssMb, Math.round(s.hwmMb));
    return s;
  }

  private stopWatch(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
  }

  /** End the running process (SIGKILL: nothing gets to finish; SIGTERM: a graceful stop) and wait for it. */
  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const run = this.current;
    const proc = this.proc;
    if (!run || !proc) return;
    if (run.end === null) {
      this.sample(run);
      run.end = signal === 'SIGKILL' ? 'sigkill' : 'sigterm';
      proc.kill(signal);
    }
    // A graceful stop that hangs is ended after 60 s (and shows as exit signal SIGKILL): a hang guard.
    const guard = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    await proc;
    clearTimeout(guard);
    this.stopWatch();
  }
}

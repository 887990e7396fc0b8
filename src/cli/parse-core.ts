/**
 * The CLI's side of the parse core: files in, per-file outcomes out, with the same limits for one
 * file as for a batch. A file parsed on its own (one file, `--jobs 1`, a fetch's `--parse`) that is
 * small and read with PDFium is parsed in this thread under a watchdog (src/core/inline.ts); every
 * other file goes to the shared worker pool (src/core).
 */
// The pool and the error map only: the parse job itself (parsers, PDF engine) loads in the workers,
// or on demand for a file parsed in this thread.
import { errorInfo, PASSWORD_HINT, type JobError } from '../core/errors.js';
import { parseLimits } from '../core/limits.js';
import { cores, ParsePool } from '../core/pool.js';
import { inputPath, readPdfFile } from '../core/input.js';
import type { ParseJob, ParseOutcome, PasswordPlan } from '../core/parse-job.js';
import { DEFAULT_ENGINE, type EngineName } from '../pdf/engine.js';
import type { AnyResult, Detection, ParseOptions } from '../parsers/index.js';
import type { EngineChoice } from './job-settings.js';
import type { Progress } from './progress.js';

export { errorInfo, PASSWORD_HINT, type PasswordPlan };

/** One file's outcome as the commands render it (the core outcome, with the file name). */
export interface FileOutcome {
  file: string;
  ok: boolean;
  result?: AnyResult;
  detection?: Detection;
  error?: JobError;
}

/** What a command asks of each job: the format and broker, detection only, and the PDF engine (decided once). */
export type Opts = ParseOptions & { detectOnly?: boolean; engine: EngineChoice };

let shared: ParsePool | undefined;

/**
 * The process's pool, grown when more workers are asked for. Idle workers do not keep the process
 * alive. Its settings are checked in the pool's order: the limits, then the engine.
 */
function pool(size: number, engine: EngineChoice): ParsePool {
  if (shared) {
    shared.grow(size);
    return shared;
  }
  const limits = parseLimits();
  if ('error' in engine) throw engine.error;
  return (shared = new ParsePool({ size, limits, engine: engine.name }));
}

/**
 * Start the first worker (and its PDF engine) now, while the command is still getting ready: called
 * by each command that opens PDFs, as soon as it knows the engine. Bad settings are left for the
 * parse to report.
 */
export function warmParsePool(engine: EngineChoice): void {
  if ('error' in engine) return;
  try {
    shared ??= new ParsePool({ size: 1, warm: true, engine: engine.name });
  } catch {
    // Bad limits in the environment: the parse reports them.
  }
}

/** The job of one file: its source, the password plan as it is, what the command asks, and the engine. */
function job(file: string, plan: PasswordPlan, opts: Opts, engine: EngineName, stdinBytes?: Uint8Array): ParseJob {
  return {
    ...(file === '-' && stdinBytes ? { bytes: stdinBytes } : { file: inputPath(file) }),
    ...plan,
    type: opts.type,
    broker: opts.broker,
    detectOnly: opts.detectOnly,
    engine,
  };
}

/** The engine of a command's jobs (past `pool`, which reports a bad choice). */
const engineOf = (engine: EngineChoice): EngineName => ('name' in engine ? engine.name : DEFAULT_ENGINE);

export function fileOutcome(file: string, o: ParseOutcome): FileOutcome {
  if (!o.ok) {
    const { ok: _ok, ...error } = o;
    return { file, ok: false, error };
  }
  if (o.data === null) return { file, ok: true, detection: o.detection };
  return {
    file,
    ok: true,
    result: { data: o.data as AnyResult['data'], warnings: o.warnings, detection: o.detection },
    detection: o.detection,
  };
}

/** Parse one file (or stdin's bytes) within the limits: in this thread when it is small and read with PDFium, else on a worker. */
export async function parseOne(file: string, plan: PasswordPlan, opts: Opts, stdinBytes?: Uint8Array): Promise<FileOutcome> {
  const j = job(file, plan, opts, engineOf(opts.engine), stdinBytes);
  try {
    if (inThread(opts.engine)) {
      // Read here (within the byte limit, FIFOs and special files as everywhere): small -> this thread, else the bytes go to a worker.
      const limits = parseLimits();
      const bytes = j.bytes ?? (await readPdfFile(j.file!, limits.maxBytes));
      const { INLINE_MAX_BYTES, runInline } = await import('../core/inline.js');
      if (bytes.length <= INLINE_MAX_BYTES) return fileOutcome(file, await runInline({ ...j, bytes, file: undefined }, limits));
      return fileOutcome(file, await pool(1, opts.engine).run({ ...j, bytes, file: undefined }));
    }
    return fileOutcome(file, await pool(1, opts.engine).run(j));
  } catch (err) {
    return { file, ok: false, error: errorInfo(err) };
  }
}

/** Files parsed one at a time with PDFium run in this thread when small (CAS_PARSE_IN_THREAD=0: always on a worker). */
function inThread(engine: EngineChoice): boolean {
  return 'name' in engine && engine.name === 'pdfium' && process.env.CAS_PARSE_IN_THREAD !== '0';
}

/** Parse many files on `jobs` workers; results come back in input order. */
export async function parseMany(
  files: string[],
  plan: PasswordPlan,
  opts: Opts,
  jobs: number,
  onDone: (o: FileOutcome, done: number) => void,
): Promise<FileOutcome[]> {
  const each = files.map((file) => job(file, plan, opts, engineOf(opts.engine)));
  let p: ParsePool;
  try {
    p = pool(Math.max(1, Math.min(jobs, files.length)), opts.engine);
  } catch (err) {
    return files.map((file) => ({ file, ok: false, error: errorInfo(err) }));
  }
  let done = 0;
  return Promise.all(
    files.map(async (file, i) => {
      const o = fileOutcome(file, await p.run(each[i]));
      onDone(o, ++done);
      return o;
    }),
  );
}

/** How a command runs its files: on how many workers, stdin's bytes, its progress line, and who asks for a password. */
export interface FilesRun {
  jobs: number;
  stdinBytes?: Uint8Array;
  /** Starts the progress line of `total` files (on a terminal; elsewhere it prints nothing). */
  startProgress: (total: number) => Promise<Progress>;
  /** Asks for a file's password (attempt 1 to 3); none: never asked. */
  askPassword?: (file: string, attempt: number) => Promise<string>;
}

export const isPasswordError = (o: FileOutcome): boolean =>
  !o.ok && (o.error?.code === 'PasswordRequired' || o.error?.code === 'IncorrectPassword');

/**
 * A command's files, one outcome per file in input order (`-` is stdin's bytes): one at a time when
 * there is one file or one job, else on `jobs` workers (stdin's after them, kept in its place), the
 * progress line following them. Then, when it can be asked, each file that needs a password is asked
 * for it up to three times.
 */
export async function parseFiles(files: string[], plan: PasswordPlan, opts: Opts, run: FilesRun): Promise<FileOutcome[]> {
  const oneAtATime = files.length === 1 || run.jobs === 1;
  // The PDF engine loads while the progress line starts: in this thread for files parsed here, else on the first worker.
  if (oneAtATime && inThread(opts.engine))
    void import('../core/inline.js').then((m) => m.warmInline(files.length === 1 ? files[0] : undefined));
  else warmParsePool(opts.engine);
  const progress = await run.startProgress(files.length);
  const { stdinBytes } = run;
  let outcomes: FileOutcome[];
  if (oneAtATime) {
    outcomes = [];
    for (const f of files) {
      progress.update(outcomes.length, f);
      outcomes.push(await parseOne(f, plan, opts, stdinBytes));
    }
  } else {
    const fileList = files.filter((f) => f !== '-');
    const parsed = await parseMany(fileList, plan, opts, run.jobs, (o, done) => progress.update(done, o.file));
    const fromStdin = stdinBytes ? [await parseOne('-', plan, opts, stdinBytes)] : [];
    outcomes = files.map((f) => (f === '-' ? fromStdin[0] : parsed[fileList.indexOf(f)]));
  }
  progress.stop();
  if (!run.askPassword) return outcomes;
  for (let i = 0; i < outcomes.length; i++) {
    for (let attempt = 1; attempt <= 3 && isPasswordError(outcomes[i]); attempt++) {
      const password = await run.askPassword(outcomes[i].file, attempt);
      outcomes[i] = await parseOne(outcomes[i].file, { password, candidates: [] }, opts, stdinBytes);
    }
  }
  return outcomes;
}

export function defaultJobs(): number {
  return cores();
}

/** A file's failure as one line that names the file once (a message from the reader may name it already). */
export function fileMessage(file: string, msg: string): string {
  return msg.includes(file) ? msg : `${file}: ${msg}`;
}

/**
 * A document printed as one line of several (a batch, `--parse` after a fetch): `source_file` first,
 * naming the file it came from (`stdin` for standard input), then the document itself.
 */
export function withSource<T extends object>(file: string, data: T): { source_file: string } & T {
  return { source_file: file === '-' ? 'stdin' : file, ...data };
}

/**
 * Parse files that a command just saved (fetch, inbox download) and write one compact JSON
 * document per line; errors go to stderr. Returns the exit code (3 when any file failed).
 */
export async function parseSaved(
  files: string[],
  plan: PasswordPlan,
  engine: EngineChoice,
  write: (text: string) => Promise<void>,
): Promise<number> {
  const docs: string[] = [];
  let failed = 0;
  for (const file of files) {
    const o = await parseOne(file, plan, { engine });
    if (o.ok) docs.push(`${JSON.stringify(withSource(file, o.result!.data))}\n`);
    else {
      failed++;
      process.stderr.write(`cas: ${fileMessage(file, o.error?.message ?? 'failed')}\n`);
    }
  }
  await write(docs.join(''));
  return failed ? 3 : 0;
}

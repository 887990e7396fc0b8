/**
 * `cas parse` and `cas smart`, step 1 of 3: the plan. Every usage error is found here, before any
 * work, in one direction: the flags alone first, then the files (the places written, stdin read
 * within the byte limit, the password file, the inputs with folders expanded), then what
 * every job carries (job-settings.ts: the password plan and the PDF engine, each decided once and
 * carried unchanged to every job). Planning prints nothing, starts no worker and parses nothing: a
 * warning it finds (a `--jobs` lowered) travels in the plan. The checks run in one fixed order, so
 * that of two mistakes on one command line the same one is always reported.
 */
import { DocumentError, UsageError } from '../../errors.js';
import { parseLimits } from '../../core/limits.js';
import { cores } from '../../core/pool.js';
import { expandInputs } from '../../core/input.js';
import type { PasswordPlan } from '../../core/parse-job.js';
import type { ParseOptions } from '../../parsers/index.js';
import type { CommandInput } from '../command.js';
import type { Context } from '../context.js';
import type { parseSpec, smartSpec } from '../definitions/parse.js';
import { argPath, checkOutputFile, ensureOutDir, readPasswordFile, readStdin } from '../io.js';
import { engineChoice, passwordPlan, type EngineChoice } from '../job-settings.js';

/** The input of `cas parse` and `cas smart` (`--type` and `--broker` come resolved through the format registry). */
export type ParseFlags = CommandInput<typeof parseSpec> &
  Partial<CommandInput<typeof smartSpec>> & {
    /** PANs to try as passwords after the password flags (the `--pan` of fetch/verify-otp). */
    pans?: (string | undefined)[];
  };

export type OutputFormat = NonNullable<ParseFlags['format']>;

/** The most workers `--jobs` starts, per core (a larger value is lowered to this, with a warning). */
export const JOBS_PER_CORE = 4;

/** Everything the run and the render need, decided. */
export interface ParsePlan {
  mode: 'parse' | 'smart';
  /** The files in order (folders expanded; `-` is stdin). */
  files: string[];
  /** stdin's bytes when `-` is one of the files. */
  stdinBytes?: Uint8Array;
  /** What each job asks for: the type and broker, detection only. */
  opts: ParseOptions & { detectOnly: boolean };
  engine: EngineChoice;
  passwords: PasswordPlan;
  format: OutputFormat;
  /** Workers for a batch (unset with --debug-layout). */
  jobs: number;
  /** `--debug-layout`: the text lines instead of a parse (`redact`: masked). */
  layout?: { redact: boolean };
  csv?: ParseFlags['csv'];
  outDir?: string;
  names?: ParseFlags['names'];
  transactions: boolean;
  /** Warnings for stderr before the work starts. */
  warnings: string[];
}

function parseOpts(flags: ParseFlags): ParseOptions {
  let type = flags.type;
  if (flags.broker) {
    if (!type) type = 'contract_note';
    if (type !== 'contract_note') throw new UsageError('--broker applies only to contract notes (--type contract_note)');
  }
  return { type, broker: flags.broker };
}

/**
 * The output format: `--format`, else `--csv`, else `--json` / `--table` / the terminal's rule
 * (tables on a terminal, JSON elsewhere). Two different formats asked for at once are a usage error.
 */
function outputFormat(ctx: Context, flags: ParseFlags): OutputFormat {
  const f = flags.format;
  if (!f) return flags.csv ? 'csv' : ctx.format;
  const other = ctx.opts.json ? '--json' : ctx.opts.table ? '--table' : flags.csv ? `--csv ${flags.csv}` : undefined;
  if (other && other !== `--${f}` && !(f === 'csv' && flags.csv))
    throw new UsageError(`${other} and --format ${f} ask for two formats: give one`);
  return f;
}

/** `--jobs` (default: the cores); more than JOBS_PER_CORE per core only adds threads and memory, so it is lowered. */
function jobsOf(flags: ParseFlags, warnings: string[]): number {
  const jobs = flags.jobs ? Number(flags.jobs) : cores();
  if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError('--jobs takes a whole number of 1 or more');
  const maxJobs = JOBS_PER_CORE * cores();
  if (jobs <= maxJobs) return jobs;
  warnings.push(`--jobs ${jobs} is more than ${JOBS_PER_CORE} per core (${cores()} cores here): using ${maxJobs}`);
  return maxJobs;
}

const stdinTooLarge = (limit: number): Error =>
  new DocumentError('TooLarge', `stdin is larger than the limit of ${limit} bytes (CAS_PARSE_MAX_BYTES)`);

export async function planParse(flags: ParseFlags, ctx: Context, mode: 'parse' | 'smart' = 'parse'): Promise<ParsePlan> {
  // 1. The flags alone: a command line that is wrong in itself touches no file.
  const opts = { ...parseOpts(flags), detectOnly: Boolean(flags.detectOnly) };
  const format = outputFormat(ctx, flags);
  const special = format === 'csv' ? '--csv' : format === 'html' ? '--format html' : undefined;
  if (special && flags.detectOnly) throw new UsageError(`${special} and --detect-only cannot be combined`);
  if (flags.outDir && (special || ctx.opts.output))
    throw new UsageError(`--out-dir writes one JSON file per input: it cannot be combined with ${special ?? '--output'}`);
  if (flags.format && flags.debugLayout) throw new UsageError('--debug-layout prints the text lines: it takes no --format');
  if (format === 'html' && ctx.stdoutTty && (!ctx.opts.output || ctx.opts.output === '-'))
    throw new UsageError('--format html writes a web page, not terminal text: add -o report.html (or redirect stdout to a file)');
  if (flags.redact && !flags.debugLayout) throw new UsageError('--redact applies to --debug-layout');
  if (flags.files.filter((f) => f === '-').length > 1) throw new UsageError('stdin (-) can be given only once');
  const warnings: string[] = [];
  // --debug-layout reads in this thread: --jobs is not read.
  const jobs = flags.debugLayout ? 1 : jobsOf(flags, warnings);

  // 2. The files. Where the results go, checked before any work (nothing is parsed only to fail at
  // the write); stdin, which holds a PDF, read within the same byte limit as a file (counted as it
  // arrives); the password file (io.ts); the inputs, folders expanded (core/input.ts).
  if (flags.outDir) await ensureOutDir(flags.outDir, '--out-dir', false);
  if (ctx.opts.output && ctx.opts.output !== '-') await checkOutputFile(ctx.opts.output);
  const inputs = flags.files.map(argPath);
  const stdinBytes = flags.files.includes('-') ? new Uint8Array(await readStdin(parseLimits().maxBytes, stdinTooLarge)) : undefined;
  const passwordFromFile = await readPasswordFile(flags.passwordFile, Boolean(stdinBytes));
  const files = await expandInputs(inputs);
  if (!files.length) throw new UsageError('no PDF files found in the given folder');

  // 3. What every job carries (job-settings.ts): the password plan and the engine.
  return {
    mode,
    files,
    stdinBytes,
    opts,
    passwords: passwordPlan(ctx, { password: flags.password, passwordFromFile }, flags.pans),
    engine: engineChoice(flags.engine, ctx.env),
    format,
    jobs,
    layout: flags.debugLayout ? { redact: Boolean(flags.redact) } : undefined,
    csv: flags.csv,
    outDir: flags.outDir,
    names: flags.names,
    transactions: Boolean(flags.transactions),
    warnings,
  };
}

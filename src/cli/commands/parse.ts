/** `cas parse` (and the engine of `cas smart`): local parsing of one file, many files or a folder. */
import path from 'node:path';
import chalk from 'chalk';
import { DocumentError, outcomeExitCode, UsageError } from '../../errors.js';
import type { ParseOptions } from '../../parsers/index.js';
import type { EngineName } from '../../pdf/engine.js';
import type { ContractNote, ParsedStatement } from '../../schema/index.js';
import type { CommandInput, Handler, Result } from '../command.js';
import { passwordPlan } from '../passwords.js';
import type { Context } from '../context.js';
import { checkOutputFile, ensureOutDir, readStdin } from '../io.js';
import { startProgress } from '../progress.js';
import { toJson, writeFileAtomic } from '../output.js';
import { readPdfFile } from '../../core/input.js';
import { parseLimits } from '../../core/limits.js';
import { cores } from '../../core/pool.js';
import {
  defaultJobs,
  expandInputs,
  inputPath,
  openWithPasswords,
  parseMany,
  parseOne,
  withSource,
  fileMessage,
  type FileOutcome,
  type PasswordPlan,
} from '../parse-core.js';
import { contractNoteTables, isStatement, statementCsv, statementTables } from '../render-statement.js';
import type { parseSpec, smartSpec } from '../definitions/parse.js';
import { BROKER_IDS } from '../../formats/index.js';

/** The brokers `--broker` names (kept for test/schema.test.ts; the registry's BROKER_IDS). */
export const KNOWN_BROKERS = BROKER_IDS;

/** The input of `cas parse` and `cas smart` (`--type` and `--broker` come resolved through the format registry). */
export type ParseFlags = CommandInput<typeof parseSpec> &
  Partial<CommandInput<typeof smartSpec>> & {
    /** PANs to try as passwords after the password flags (the `--pan` of fetch/verify-otp). */
    pans?: (string | undefined)[];
  };

function parseOpts(flags: ParseFlags): ParseOptions {
  let type = flags.type;
  if (flags.broker) {
    if (!type) type = 'contract_note';
    if (type !== 'contract_note') throw new UsageError('--broker applies only to contract notes (--type contract_note)');
  }
  return { type, broker: flags.broker };
}

const isPasswordError = (o: FileOutcome): boolean =>
  !o.ok && (o.error?.code === 'PasswordRequired' || o.error?.code === 'IncorrectPassword');

/** On a terminal, ask for the password (hidden) up to three times. */
async function promptForPassword(
  ctx: Context,
  o: FileOutcome,
  plan: PasswordPlan,
  opts: ParseOptions & { detectOnly?: boolean },
  stdinBytes?: Uint8Array,
): Promise<FileOutcome> {
  const { password } = await import('@inquirer/prompts');
  let current = o;
  for (let attempt = 1; attempt <= 3 && isPasswordError(current); attempt++) {
    const label = current.file === '-' ? 'stdin' : current.file;
    const msg = attempt === 1 ? `Password for ${label}:` : `Incorrect password. Password for ${label} (try ${attempt} of 3):`;
    const pw = await password({ message: msg, mask: '*' }, { output: process.stderr });
    current = await parseOne(o.file, { explicit: pw, candidates: [] }, opts, stdinBytes);
  }
  void plan;
  return current;
}

type OutputFormat = NonNullable<ParseFlags['format']>;

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

/** The most workers `--jobs` starts, per core (a larger value is lowered to this, with a warning). */
export const JOBS_PER_CORE = 4;

const stdinTooLarge = (limit: number): Error =>
  new DocumentError('TooLarge', `stdin is larger than the limit of ${limit} bytes (CAS_PARSE_MAX_BYTES)`);

export async function runParse(ctx: Context, flags: ParseFlags, mode: 'parse' | 'smart'): Promise<Result> {
  const inputs = flags.files;
  const opts = { ...parseOpts(flags), detectOnly: Boolean(flags.detectOnly), engine: flags.engine };
  const format = outputFormat(ctx, flags);
  const special = format === 'csv' ? '--csv' : format === 'html' ? '--format html' : undefined;
  if (special && flags.detectOnly) throw new UsageError(`${special} and --detect-only cannot be combined`);
  if (flags.outDir && (special || ctx.opts.output))
    throw new UsageError(`--out-dir writes one JSON file per input: it cannot be combined with ${special ?? '--output'}`);
  if (flags.format && flags.debugLayout) throw new UsageError('--debug-layout prints the text lines: it takes no --format');
  if (format === 'html' && ctx.stdoutTty && (!ctx.opts.output || ctx.opts.output === '-'))
    throw new UsageError('--format html writes a web page, not terminal text: add -o report.html (or redirect stdout to a file)');
  // Where the results go is checked before any work: nothing is parsed only to fail at the write.
  if (flags.outDir) await ensureOutDir(flags.outDir, '--out-dir', false);
  if (ctx.opts.output && ctx.opts.output !== '-') await checkOutputFile(ctx.opts.output);
  const files = await expandInputs(inputs);
  if (!files.length) throw new UsageError('no PDF files found in the given folder');
  if (files.filter((f) => f === '-').length > 1) throw new UsageError('stdin (-) can be given only once');
  // stdin holds a PDF: read within the same byte limit as a file (counted as it arrives).
  const stdinBytes = files.includes('-') ? new Uint8Array(await readStdin(parseLimits().maxBytes, stdinTooLarge)) : undefined;
  const plan = await passwordPlan(ctx, flags, { pans: flags.pans, stdinUsedForPdf: Boolean(stdinBytes) });
  if (flags.redact && !flags.debugLayout) throw new UsageError('--redact applies to --debug-layout');
  if (flags.debugLayout) return { text: await debugLayout(ctx, files, plan, Boolean(flags.redact), stdinBytes, flags.engine) };
  let jobs = flags.jobs ? Number(flags.jobs) : defaultJobs();
  if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError('--jobs takes a whole number of 1 or more');
  // Each worker may take the memory limit: more than JOBS_PER_CORE per core only adds threads and memory.
  const maxJobs = JOBS_PER_CORE * cores();
  if (jobs > maxJobs) {
    ctx.warn(`--jobs ${jobs} is more than ${JOBS_PER_CORE} per core (${cores()} cores here): using ${maxJobs}`);
    jobs = maxJobs;
  }

  let outcomes: FileOutcome[];
  // Several files on a terminal: a progress line on stderr (count, current file, elapsed); nothing on a pipe.
  const progress = await startProgress(ctx, files.length);
  if (files.length === 1 || jobs === 1) {
    outcomes = [];
    for (const f of files) {
      progress.update(outcomes.length, f);
      outcomes.push(await parseOne(f, plan, opts, stdinBytes));
    }
  } else {
    const fileList = files.filter((f) => f !== '-');
    const parsed = await parseMany(fileList, plan, opts, jobs, (o, done) => progress.update(done, o.file));
    const fromStdin = stdinBytes ? [await parseOne('-', plan, opts, stdinBytes)] : [];
    outcomes = files.map((f) => (f === '-' ? fromStdin[0] : parsed[fileList.indexOf(f)]));
  }
  progress.stop();

  for (let i = 0; i < outcomes.length; i++) {
    if (isPasswordError(outcomes[i]) && ctx.interactive) outcomes[i] = await promptForPassword(ctx, outcomes[i], plan, opts, stdinBytes);
  }

  // Tables and CSV read the neutral structure; the names apply to the JSON.
  if (flags.names === 'real' && !opts.detectOnly && (flags.outDir || format === 'json')) {
    // Real names at the edge (names.ts): the parsers never see them.
    const { parseResultToReal } = await import('../../schema/dialect.js');
    for (const o of outcomes)
      if (o.ok && o.result) o.result = { ...o.result, data: parseResultToReal(o.result.data) as typeof o.result.data };
  }
  const ok = outcomes.filter((o) => o.ok);
  const failed = outcomes.filter((o) => !o.ok);
  for (const o of outcomes) {
    const label = o.file === '-' ? 'stdin' : o.file;
    if (!o.ok) {
      let msg = o.error?.message ?? 'failed';
      if (isPasswordError(o) && !ctx.interactive)
        msg += ctx.opts.input === false ? ' (--no-input: no prompt)' : ' (no terminal to prompt on)';
      process.stderr.write(`${chalk.red('cas:')} ${fileMessage(label, msg)}\n`);
      continue;
    }
    if (mode === 'smart' && o.detection && !ctx.opts.quiet) {
      const d = o.detection;
      ctx.log(
        `${label}: ${d.type}${d.issuer !== d.type ? ` (${d.issuer}${d.form ? `, ${d.form}` : ''})` : d.form ? ` (${d.form})` : ''}; evidence: ${d.evidence.join('; ')}`,
      );
    }
    for (const w of o.result?.warnings ?? []) ctx.warn(`${label}: ${w.message}`);
  }

  let result: Result = {};
  if (ok.length && flags.outDir) {
    await writeEach(flags.outDir, ok, Boolean(opts.detectOnly));
  } else if (ok.length) {
    if (opts.detectOnly) {
      const det = ok.map((o) => ({ file: o.file, ...o.detection }));
      result = det.length === 1 ? { data: det[0], format: 'json', pretty: true } : { lines: det };
    } else if (format === 'csv') {
      const statements = ok
        .filter((o) => o.result && isStatement(o.result.data))
        .map((o) => ({ file: o.file, data: o.result!.data as ParsedStatement }));
      if (!statements.length) throw new UsageError('--csv applies to statements; contract notes have no holdings or scheme transactions');
      result = { text: statementCsv(flags.csv ?? 'holdings', statements) };
    } else if (format === 'html') {
      // The page renderer loads only here: a plain parse never reads it.
      const { renderHtmlReport } = await import('../render-html.js');
      const out = ctx.opts.output && ctx.opts.output !== '-' ? ctx.opts.output : undefined;
      result = {
        text: renderHtmlReport(ok.map((o) => ({ file: o.file === '-' ? 'stdin' : path.basename(o.file), data: o.result!.data }))),
        notes: out ? [`wrote ${out} (${ok.length} ${ok.length === 1 ? 'document' : 'documents'}; open it in a browser)`] : [],
      };
    } else {
      const table = (): string =>
        ok
          .map((o) => {
            const d = o.result!.data;
            return isStatement(d) ? statementTables(o.file, d, Boolean(flags.transactions)) : contractNoteTables(o.file, d as ContractNote);
          })
          .join('\n');
      result =
        ok.length === 1 && outcomes.length === 1
          ? { data: ok[0].result!.data, table, pretty: true, format }
          : { lines: ok.map((o) => withSource(o.file, o.result!.data)), ...(format === 'table' ? { text: table() } : {}) };
    }
  }

  // The batch summary: always when a file failed; otherwise only on a terminal (a pipe gets data and errors only).
  if (outcomes.length > 1 && (failed.length || (!ctx.opts.quiet && ctx.stderrTty))) {
    const summary = `${ok.length} of ${outcomes.length} files parsed${failed.length ? `; failed: ${failed.map((f) => `${f.file} (${f.error?.code})`).join(', ')}` : ''}`;
    result.summary = failed.length ? chalk.red(summary) : summary;
  }
  if (!failed.length) return result;
  const codes = new Set(failed.map((f) => outcomeExitCode(f.error)));
  return { ...result, exitCode: codes.size === 1 ? [...codes][0] : 1 };
}

/** `--debug-layout`: the text lines with positions (JSON with --json or off a terminal as JSON lines, else text). */
async function debugLayout(
  ctx: Context,
  files: string[],
  plan: PasswordPlan,
  redact: boolean,
  stdinBytes?: Uint8Array,
  engine?: EngineName,
): Promise<string> {
  const { layoutDump, layoutText } = await import('../../pdf/debug.js');
  const parts: string[] = [];
  for (const f of files) {
    const bytes = f === '-' && stdinBytes ? stdinBytes : await readPdfFile(inputPath(f), parseLimits().maxBytes);
    const dump = layoutDump(await openWithPasswords(bytes, plan, engine), f === '-' ? 'stdin' : f, redact);
    parts.push(ctx.opts.json ? toJson(dump, files.length === 1) : layoutText(dump));
  }
  return parts.join('');
}

/** `--out-dir`: DIR/<input name>.json per parsed file, each written atomically; stdin is `stdin.json`. */
async function writeEach(dir: string, ok: FileOutcome[], detectOnly: boolean): Promise<void> {
  await ensureOutDir(dir);
  const used = new Set<string>();
  for (const o of ok) {
    let base = o.file === '-' ? 'stdin' : path.basename(o.file).replace(/\.pdf$/i, '');
    for (let n = 2; used.has(base); n++) base = `${base.replace(/-\d+$/, '')}-${n}`;
    used.add(base);
    const data = detectOnly ? { file: o.file, ...o.detection } : o.result!.data;
    await writeFileAtomic(path.join(dir, `${base}.json`), toJson(data, true));
  }
}

export const run: Handler<CommandInput<typeof parseSpec>> = async (ctx, input) => runParse(ctx, input, 'parse');

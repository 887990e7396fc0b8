/**
 * `cas parse` and `cas smart`, step 2 of 3: the plan's files through the worker pool, one outcome
 * per file in input order (a progress line on a terminal); on a terminal a file that needs a
 * password is asked for it. `--debug-layout` opens each file in this thread instead and keeps its
 * text lines (its first failure ends the command, as a parse error would).
 */
import type { LayoutDump } from '../../pdf/debug.js';
import { inputPath, readPdfFile } from '../../core/input.js';
import { parseLimits } from '../../core/limits.js';
import type { Context } from '../context.js';
import { openWithPasswords, parseMany, parseOne, type FileOutcome, type Opts } from '../parse-core.js';
import { startProgress } from '../progress.js';
import type { ParsePlan } from './plan.js';

/** A file's outcome, or with --debug-layout its text lines. */
export type ParseOutcomes = { files: FileOutcome[] } | { layouts: { file: string; dump: LayoutDump }[] };

export const isPasswordError = (o: FileOutcome): boolean =>
  !o.ok && (o.error?.code === 'PasswordRequired' || o.error?.code === 'IncorrectPassword');

export async function runJobs(plan: ParsePlan, ctx: Context): Promise<ParseOutcomes> {
  if (plan.layout) return { layouts: await layouts(plan) };
  const { files, stdinBytes, passwords } = plan;
  const opts: Opts = { ...plan.opts, engine: plan.engine };
  let outcomes: FileOutcome[];
  // Several files on a terminal: a progress line on stderr (count, current file, elapsed); nothing on a pipe.
  const progress = await startProgress(ctx, files.length);
  if (files.length === 1 || plan.jobs === 1) {
    outcomes = [];
    for (const f of files) {
      progress.update(outcomes.length, f);
      outcomes.push(await parseOne(f, passwords, opts, stdinBytes));
    }
  } else {
    const fileList = files.filter((f) => f !== '-');
    const parsed = await parseMany(fileList, passwords, opts, plan.jobs, (o, done) => progress.update(done, o.file));
    const fromStdin = stdinBytes ? [await parseOne('-', passwords, opts, stdinBytes)] : [];
    outcomes = files.map((f) => (f === '-' ? fromStdin[0] : parsed[fileList.indexOf(f)]));
  }
  progress.stop();

  for (let i = 0; i < outcomes.length; i++) {
    if (isPasswordError(outcomes[i]) && ctx.interactive) outcomes[i] = await promptForPassword(outcomes[i], opts, stdinBytes);
  }
  return { files: outcomes };
}

/** On a terminal, ask for the password (hidden) up to three times. */
async function promptForPassword(o: FileOutcome, opts: Opts, stdinBytes?: Uint8Array): Promise<FileOutcome> {
  const { password } = await import('@inquirer/prompts');
  let current = o;
  for (let attempt = 1; attempt <= 3 && isPasswordError(current); attempt++) {
    const label = current.file === '-' ? 'stdin' : current.file;
    const msg = attempt === 1 ? `Password for ${label}:` : `Incorrect password. Password for ${label} (try ${attempt} of 3):`;
    const pw = await password({ message: msg, mask: '*' }, { output: process.stderr });
    current = await parseOne(o.file, { password: pw, candidates: [] }, opts, stdinBytes);
  }
  return current;
}

/** `--debug-layout`: each file opened in this thread (the document model is needed), in order. */
async function layouts(plan: ParsePlan): Promise<{ file: string; dump: LayoutDump }[]> {
  const { layoutDump } = await import('../../pdf/debug.js');
  const out: { file: string; dump: LayoutDump }[] = [];
  for (const f of plan.files) {
    const bytes = f === '-' && plan.stdinBytes ? plan.stdinBytes : await readPdfFile(inputPath(f), parseLimits().maxBytes);
    out.push({
      file: f,
      dump: layoutDump(await openWithPasswords(bytes, plan.passwords, plan.engine), f === '-' ? 'stdin' : f, Boolean(plan.layout?.redact)),
    });
  }
  return out;
}

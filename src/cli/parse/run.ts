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
import { parseFiles, type FileOutcome, type Opts } from '../parse-core.js';
import { startProgress } from '../progress.js';
import type { ParsePlan } from './plan.js';

/** A file's outcome, or with --debug-layout its text lines. */
export type ParseOutcomes = { files: FileOutcome[] } | { layouts: { file: string; dump: LayoutDump }[] };

export async function runJobs(plan: ParsePlan, ctx: Context): Promise<ParseOutcomes> {
  if (plan.layout) return { layouts: await layouts(plan) };
  const opts: Opts = { ...plan.opts, engine: plan.engine };
  return {
    files: await parseFiles(plan.files, plan.passwords, opts, {
      jobs: plan.jobs,
      stdinBytes: plan.stdinBytes,
      // Several files on a terminal: a progress line on stderr (count, current file, elapsed); nothing on a pipe.
      startProgress: (total) => startProgress(ctx, total),
      askPassword: ctx.interactive ? askPassword : undefined,
    }),
  };
}

/** On a terminal, the password of a file (hidden); after the first attempt, the last one was wrong. */
async function askPassword(file: string, attempt: number): Promise<string> {
  const { password } = await import('@inquirer/prompts');
  const label = file === '-' ? 'stdin' : file;
  const msg = attempt === 1 ? `Password for ${label}:` : `Incorrect password. Password for ${label} (try ${attempt} of 3):`;
  return password({ message: msg, mask: '*' }, { output: process.stderr });
}

/** `--debug-layout`: each file opened in this thread (the document model is needed), in order. */
async function layouts(plan: ParsePlan): Promise<{ file: string; dump: LayoutDump }[]> {
  const { engine, passwords, stdinBytes } = plan;
  const { openWithPasswords } = await import('../../core/parse-job.js');
  const { layoutDump } = await import('../../pdf/debug.js');
  const out: { file: string; dump: LayoutDump }[] = [];
  for (const f of plan.files) {
    const bytes = f === '-' && stdinBytes ? stdinBytes : await readPdfFile(inputPath(f), parseLimits().maxBytes);
    if ('error' in engine) throw engine.error;
    const doc = await openWithPasswords(bytes, passwords, {}, engine.name);
    out.push({ file: f, dump: layoutDump(doc, f === '-' ? 'stdin' : f, Boolean(plan.layout?.redact)) });
  }
  return out;
}

/**
 * `cas parse` (and the engine of `cas smart`): local parsing of one file, many files or a folder,
 * in three steps: the plan (every usage error; parse/plan.ts), the jobs (parse/run.ts) and the
 * output (parse/render.ts).
 */
import type { CommandInput, Handler, Result } from '../command.js';
import type { Context } from '../context.js';
import type { parseSpec } from '../definitions/parse.js';
import { BROKER_IDS } from '../../formats/index.js';
import { planParse, type ParseFlags } from '../parse/plan.js';
import { renderParse } from '../parse/render.js';
import { runJobs } from '../parse/run.js';

/** The brokers `--broker` names (kept for test/schema/schema.test.ts; the registry's BROKER_IDS). */
export const KNOWN_BROKERS = BROKER_IDS;

export async function runParse(ctx: Context, flags: ParseFlags, mode: 'parse' | 'smart'): Promise<Result> {
  const plan = await planParse(flags, ctx, mode);
  for (const w of plan.warnings) ctx.warn(w);
  const outcomes = await runJobs(plan, ctx);
  return renderParse(plan, outcomes, ctx);
}

export const run: Handler<CommandInput<typeof parseSpec>> = async (ctx, input) => runParse(ctx, input, 'parse');

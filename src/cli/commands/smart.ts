/** `cas smart`: detect, report the type and evidence on stderr, and parse (or only detect). */
import type { Context } from '../context.js';
import { runParse, type ParseFlags } from './parse.js';

export async function run(ctx: Context, args: unknown[], opts: Record<string, unknown>): Promise<number> {
  return runParse(ctx, args[0] as string[], opts as ParseFlags, 'smart');
}

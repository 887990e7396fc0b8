import type { Context } from '../context.js';
export async function run(_ctx: Context, _args: unknown[], _opts: Record<string, unknown>): Promise<number> { return 0; }

import { SCHEMAS, jsonSchemaOf } from '../../schema/index.js';
import { UsageError } from '../../errors.js';
import type { Context } from '../context.js';
import { emit, renderTable, toJson } from '../output.js';

export async function run(ctx: Context, args: unknown[]): Promise<number> {
  const name = args[0] as string | undefined;
  if (!name) {
    const names = Object.entries(SCHEMAS).map(([n, e]) => ({ name: n, description: e.description }));
    if (ctx.format === 'table') await emit(renderTable({ head: ['name', 'description'], rows: names.map((n) => [n.name, n.description]) }), ctx.opts.output);
    else await emit(toJson(names, ctx.stdoutTty), ctx.opts.output);
    return 0;
  }
  const schema = jsonSchemaOf(name);
  if (!schema) throw new UsageError(`unknown schema '${name}'; run 'cas schema' to list names`);
  await emit(toJson(schema, true), ctx.opts.output);
  return 0;
}

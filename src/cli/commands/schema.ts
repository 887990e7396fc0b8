/** `cas schema [name]`: JSON Schemas of the resources. */
import { SCHEMAS, jsonSchemaOf } from '../../schema/index.js';
import { UsageError } from '../../errors.js';
import type { CommandInput, Handler } from '../command.js';
import type { schemaSpec } from '../definitions/schema.js';
import { renderTable } from '../output.js';

export const run: Handler<CommandInput<typeof schemaSpec>> = async (_ctx, { name }) => {
  if (!name) {
    const names = Object.entries(SCHEMAS).map(([n, e]) => ({ name: n, description: e.description }));
    return { data: names, table: () => renderTable({ head: ['name', 'description'], rows: names.map((n) => [n.name, n.description]) }) };
  }
  const schema = jsonSchemaOf(name);
  if (!schema) throw new UsageError(`unknown schema '${name}'; run 'cas schema' to list names`);
  return { data: schema, format: 'json', pretty: true };
};

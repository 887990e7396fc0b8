/** Output renderers: JSON, tables (cli-table3), CSV; atomic file writes. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type TableType from 'cli-table3';
import chalk from 'chalk';
import type { Result } from './command.js';
import type { Context } from './context.js';

export function toJson(data: unknown, pretty: boolean): string {
  return pretty ? `${JSON.stringify(data, null, 2)}\n` : `${JSON.stringify(data)}\n`;
}

/** cli-table3 (and string-width under it) loads on the first table, not on every start: JSON runs never need it. */
let tableClass: typeof TableType | undefined;
function Table(): typeof TableType {
  tableClass ??= createRequire(import.meta.url)('cli-table3') as typeof TableType;
  return tableClass;
}

export interface TableSpec {
  title?: string;
  head: string[];
  rows: (string | number | null | undefined)[][];
  /** Column indexes to right-align (numbers). */
  numeric?: number[];
}

export function renderTable(spec: TableSpec): string {
  const t = new (Table())({
    head: spec.head.map((h) => chalk.bold(h)),
    style: { head: [], border: [] },
    colAligns: spec.head.map((_, i) => (spec.numeric?.includes(i) ? 'right' : 'left')),
    wordWrap: true,
  });
  for (const r of spec.rows) t.push(r.map((c) => (c === null || c === undefined ? '' : String(c))));
  return `${spec.title ? `${chalk.bold(spec.title)}\n` : ''}${t.toString()}\n`;
}

export function renderKeyValues(title: string, pairs: [string, unknown][]): string {
  const t = new (Table())({ style: { head: [], border: [] } });
  for (const [k, v] of pairs) t.push({ [chalk.bold(k)]: v === null || v === undefined ? '' : String(v) });
  return `${chalk.bold(title)}\n${t.toString()}\n`;
}

export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(header: string[], rows: unknown[][]): string {
  return [header.join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\n') + '\n';
}

/** Write a file atomically: temp file in the same folder, then rename. Never a half-written file. */
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  const dir = path.dirname(path.resolve(file));
  const tmp = path.join(dir, `.cas-tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await fs.writeFile(tmp, data, { mode });
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/** Write data to --output FILE (atomically) or to stdout. */
export async function emit(data: string, output?: string): Promise<void> {
  if (output && output !== '-') {
    await writeFileAtomic(output, data);
    return;
  }
  await new Promise<void>((resolve, reject) => {
    process.stdout.write(data, (err) => (err ? reject(err) : resolve()));
  });
}

/**
 * The one renderer of command results: text as it is, JSON lines, or the data as JSON (pretty on a
 * terminal) or as the command's table; to `--output` atomically or to stdout; then the notes.
 */
export async function renderResult(ctx: Context, r: Result): Promise<void> {
  let text = r.text;
  if (text === undefined && r.lines) text = r.lines.map((d) => toJson(d, false)).join('');
  if (text === undefined && r.data !== undefined) text = (r.format ?? ctx.format) === 'table' && r.table ? r.table() : toJson(r.data, r.pretty ?? ctx.stdoutTty);
  for (const f of r.files ?? []) await writeFileAtomic(f.path, f.text);
  if (text !== undefined) await emit(text, ctx.opts.output);
  for (const n of r.notes ?? []) ctx.log(n);
  if (r.summary) process.stderr.write(`${r.summary}\n`);
}

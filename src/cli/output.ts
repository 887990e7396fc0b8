/** Output renderers: JSON, tables that fit the terminal, CSV; atomic file writes. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type TableType from 'cli-table3';
import chalk from 'chalk';
import type { Result } from './command.js';
import type { Context } from './context.js';
import { writeError } from './io.js';

export function toJson(data: unknown, pretty: boolean): string {
  return pretty ? `${JSON.stringify(data, null, 2)}\n` : `${JSON.stringify(data)}\n`;
}

type Cell = string | number | null | undefined;

export interface TableSpec {
  title?: string;
  head: string[];
  rows: Cell[][];
  /** Column indexes to right-align (numbers). */
  numeric?: number[];
  /** Columns to leave out when the table is too wide, least valuable first. */
  drop?: number[];
  /** Columns that may be cut short with an ellipsis (default: every column that is not numeric). */
  shrink?: number[];
  /** Terminal width to fit (default: terminalWidth()). */
  width?: number;
}

/**
 * The width tables fit: the terminal's columns when stdout is one, else the COLUMNS environment
 * variable (scripts and tests), else no limit.
 */
export function terminalWidth(): number {
  if (process.stdout.isTTY && process.stdout.columns) return process.stdout.columns;
  const env = Number(process.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : Infinity;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
/** Display width: code points without colour codes (the tables hold no wide CJK text). */
export function textWidth(s: string): number {
  return [...s.replace(ANSI, '')].length;
}

/** Cut to `width` display columns, ending with an ellipsis when cut. */
export function truncate(s: string, width: number): string {
  if (textWidth(s) <= width) return s;
  if (width <= 1) return '…'.slice(0, width);
  return `${[...s.replace(ANSI, '')]
    .slice(0, width - 1)
    .join('')
    .trimEnd()}…`;
}

function pad(s: string, width: number, right: boolean): string {
  const fill = ' '.repeat(Math.max(0, width - textWidth(s)));
  return right ? fill + s : s + fill;
}

/** Indian digit grouping (12,34,567.89); '' for no value. */
export function inr(v: number | null | undefined, decimals = 2): string {
  return v === null || v === undefined
    ? ''
    : v.toLocaleString('en-IN', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

const cellText = (c: Cell): string => (c === null || c === undefined ? '' : String(c).replace(/\s*\n\s*/g, ' '));
const lineWidth = (widths: number[]): number => widths.reduce((a, b) => a + b, 0) + 3 * widths.length + 1;

/** Column widths that fit `max`, cutting shrinkable columns (widest first) down to `floor`; undefined if they cannot. */
function fitWidths(natural: number[], shrinkable: boolean[], floor: number, max: number): number[] | undefined {
  const w = [...natural];
  let excess = lineWidth(w) - max;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < w.length; i++)
      if (shrinkable[i] && w[i] > Math.min(natural[i], floor) && (widest < 0 || w[i] > w[widest])) widest = i;
    if (widest < 0) return undefined;
    w[widest]--;
    excess--;
  }
  return w;
}

/** cli-table3 (and string-width under it) loads on the first table, not on every start: JSON runs never need it. */
let tableClass: typeof TableType | undefined;
function Table(): typeof TableType {
  tableClass ??= createRequire(import.meta.url)('cli-table3') as typeof TableType;
  return tableClass;
}

/** Columns of the given widths drawn by cli-table3, with one rule under the heading and none between rows. */
function boxed(head: string[], rows: string[][], widths: number[], right: boolean[]): string {
  const t = new (Table())({
    head: head.map((h, i) => chalk.bold(truncate(h, widths[i]))),
    colWidths: widths.map((w) => w + 2),
    colAligns: right.map((r) => (r ? 'right' : 'left')),
    wordWrap: false,
    style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  t.push(...rows.map((r) => r.map((c, i) => truncate(c, widths[i]))));
  const lines = t.toString().split('\n');
  return [lines[0], lines[1], `├${widths.map((w) => '─'.repeat(w + 2)).join('┼')}┤`, ...lines.slice(2)].join('\n');
}

/** Too narrow for columns: one block per row, `label  value` per line. */
function vertical(head: string[], rows: string[][], max: number): string {
  const labelWidth = Math.min(Math.max(...head.map(textWidth)), Math.max(4, Math.floor(max / 3)));
  const valueWidth = Math.max(1, max - labelWidth - 2);
  return rows
    .map((r, n) =>
      [
        chalk.dim(`── ${n + 1} of ${rows.length} `.padEnd(Math.min(max, 40), '─')),
        ...r.map((c, i) => `${pad(chalk.bold(truncate(head[i], labelWidth)), labelWidth, false)}  ${truncate(c, valueWidth)}`),
      ].join('\n'),
    )
    .join('\n');
}

/**
 * A table that fits the terminal: long text is cut with an ellipsis (to 16 columns at first), then
 * the `drop` columns go one by one, then text is cut further (to 8); when even that is too wide,
 * each row becomes a block of `label  value` lines. Numbers are right-aligned.
 */
export function renderTable(spec: TableSpec): string {
  const max = spec.width ?? terminalWidth();
  const rows = spec.rows.map((r) => spec.head.map((_, i) => cellText(r[i])));
  const title = spec.title ? `${chalk.bold(truncate(spec.title, max))}\n` : '';
  const drops = (spec.drop ?? []).filter((i) => i < spec.head.length);
  for (const [floor, dropped] of [...drops.map((_, k) => [16, k] as const), [16, drops.length] as const, [8, drops.length] as const]) {
    const keep = spec.head.map((_, i) => i).filter((i) => !drops.slice(0, dropped).includes(i));
    const natural = keep.map((i) => Math.max(textWidth(spec.head[i]), ...rows.map((r) => textWidth(r[i]))));
    const shrinkable = keep.map((i) => (spec.shrink ? spec.shrink.includes(i) : !spec.numeric?.includes(i)));
    const widths = fitWidths(natural, shrinkable, floor, max);
    if (widths) {
      // Columns left out to fit are named in one dim line under the table, never dropped silently.
      const gone = drops.slice(0, dropped).map((i) => spec.head[i]);
      const notice = gone.length ? `${chalk.dim(truncate(`(${gone.join(', ')} left out to fit ${max} columns)`, max))}\n` : '';
      return `${title}${boxed(
        keep.map((i) => spec.head[i]),
        rows.map((r) => keep.map((i) => r[i])),
        widths,
        keep.map((i) => Boolean(spec.numeric?.includes(i))),
      )}\n${notice}`;
    }
  }
  return `${title}${vertical(spec.head, rows, max)}\n`;
}

/** Word-wrap `text` to `width` columns, following lines indented by `indent`. */
export function wrap(text: string, width: number, indent = ''): string {
  if (!Number.isFinite(width)) return text;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next) > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = next;
  }
  lines.push(line);
  return lines.map((l) => truncate(l, width)).join('\n');
}

/** A titled list of notes (messages people read in full): one item per paragraph, wrapped to the terminal. */
export function renderNotes(title: string, items: string[], width = terminalWidth()): string {
  return `${chalk.bold(truncate(title, width))}\n${items.map((i) => wrap(`- ${i}`, width, '  ')).join('\n')}\n`;
}

/** Label/value pairs as a two-column table (the value cut to fit), or `label  value` lines when narrow. */
export function renderKeyValues(title: string, pairs: [string, unknown][], width = terminalWidth()): string {
  const rows = pairs.map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]);
  const natural = [Math.max(0, ...rows.map((r) => textWidth(r[0]))), Math.max(0, ...rows.map((r) => textWidth(r[1])))];
  const widths = fitWidths(natural, [false, true], 12, width);
  const head = `${chalk.bold(truncate(title, width))}\n`;
  if (!widths)
    return `${head}${vertical(
      rows.map((r) => r[0]),
      [rows.map((r) => r[1])],
      width,
    )
      .split('\n')
      .slice(1)
      .join('\n')}\n`;
  const rule = (l: string, m: string, r: string): string => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const lines = rows.map((r) => `│ ${pad(chalk.bold(r[0]), widths[0], false)} │ ${pad(truncate(r[1], widths[1]), widths[1], false)} │`);
  return `${head}${[rule('┌', '┬', '┐'), ...lines, rule('└', '┴', '┘')].join('\n')}\n`;
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
    // A folder in the way, a missing folder, no permission: one line, exit 2 (io.ts).
    throw writeError(err, file);
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
  if (text === undefined && r.data !== undefined)
    text = (r.format ?? ctx.format) === 'table' && r.table ? r.table() : toJson(r.data, r.pretty ?? ctx.stdoutTty);
  for (const f of r.files ?? []) await writeFileAtomic(f.path, f.text);
  if (text !== undefined) await emit(text, ctx.opts.output);
  for (const n of r.notes ?? []) ctx.log(n);
  if (r.summary) process.stderr.write(`${r.summary}\n`);
}

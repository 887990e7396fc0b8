/**
 * `cas parse` and `cas smart`, step 3 of 3: the outcomes as output. Each failed file is one line on
 * stderr, then (for `smart`) each detection and each warning; the documents in the plan's format
 * (JSON, a JSON line per file, tables, CSV, one HTML page, or a file each under --out-dir), the
 * batch summary and the exit code.
 */
import path from 'node:path';
import chalk from 'chalk';
import { outcomeExitCode, UsageError } from '../../errors.js';
import type { ContractNote, ParsedStatement } from '../../schema/index.js';
import type { Result } from '../command.js';
import type { Context } from '../context.js';
import { ensureOutDir } from '../io.js';
import { toJson, writeFileAtomic } from '../output.js';
import { fileMessage, isPasswordError, withSource, type FileOutcome } from '../parse-core.js';
import { contractNoteTables, isStatement, statementCsv, statementTables } from '../render-statement.js';
import type { ParsePlan } from './plan.js';
import type { ParseOutcomes } from './run.js';

export async function renderParse(plan: ParsePlan, outcomes: ParseOutcomes, ctx: Context): Promise<Result> {
  if ('layouts' in outcomes) {
    // The text lines with positions: JSON with --json (a document per file), else text.
    const { layoutText } = await import('../../pdf/debug.js');
    const n = outcomes.layouts.length;
    return { text: outcomes.layouts.map(({ dump }) => (ctx.opts.json ? toJson(dump, n === 1) : layoutText(dump))).join('') };
  }
  const files = outcomes.files;
  // Tables and CSV read the neutral structure; the names apply to the JSON.
  if (plan.names === 'real' && !plan.opts.detectOnly && (plan.outDir || plan.format === 'json')) {
    // Real names at the edge (names.ts): the parsers never see them.
    const { parseResultToReal } = await import('../../schema/dialect.js');
    for (const o of files) if (o.ok && o.result) o.result = { ...o.result, data: parseResultToReal(o.result.data) as typeof o.result.data };
  }
  const ok = files.filter((o) => o.ok);
  const failed = files.filter((o) => !o.ok);
  for (const o of files) report(plan, ctx, o);

  let result: Result = {};
  if (ok.length && plan.outDir) await writeEach(plan.outDir, ok, plan.opts.detectOnly);
  else if (ok.length) result = await documents(plan, ctx, ok, files.length);

  // The batch summary: always when a file failed; otherwise only on a terminal (a pipe gets data and errors only).
  if (files.length > 1 && (failed.length || (!ctx.opts.quiet && ctx.stderrTty))) {
    const summary = `${ok.length} of ${files.length} files parsed${failed.length ? `; failed: ${failed.map((f) => `${f.file} (${f.error?.code})`).join(', ')}` : ''}`;
    result.summary = failed.length ? chalk.red(summary) : summary;
  }
  if (!failed.length) return result;
  const codes = new Set(failed.map((f) => outcomeExitCode(f.error)));
  return { ...result, exitCode: codes.size === 1 ? [...codes][0] : 1 };
}

/** One file on stderr: its failure, or its detection (`smart`) and warnings. */
function report(plan: ParsePlan, ctx: Context, o: FileOutcome): void {
  const label = o.file === '-' ? 'stdin' : o.file;
  if (!o.ok) {
    let msg = o.error?.message ?? 'failed';
    if (isPasswordError(o) && !ctx.interactive)
      msg += ctx.opts.input === false ? ' (--no-input: no prompt)' : ' (no terminal to prompt on)';
    process.stderr.write(`${chalk.red('cas:')} ${fileMessage(label, msg)}\n`);
    return;
  }
  if (plan.mode === 'smart' && o.detection && !ctx.opts.quiet) {
    const d = o.detection;
    ctx.log(
      `${label}: ${d.type}${d.issuer !== d.type ? ` (${d.issuer}${d.form ? `, ${d.form}` : ''})` : d.form ? ` (${d.form})` : ''}; evidence: ${d.evidence.join('; ')}`,
    );
  }
  for (const w of o.result?.warnings ?? []) ctx.warn(`${label}: ${w.message}`);
}

/** The parsed documents (`ok`, of `total` files) in the plan's format, for stdout or -o. */
async function documents(plan: ParsePlan, ctx: Context, ok: FileOutcome[], total: number): Promise<Result> {
  if (plan.opts.detectOnly) {
    const det = ok.map((o) => ({ file: o.file, ...o.detection }));
    return det.length === 1 ? { data: det[0], format: 'json', pretty: true } : { lines: det };
  }
  if (plan.format === 'csv') {
    const statements = ok
      .filter((o) => o.result && isStatement(o.result.data))
      .map((o) => ({ file: o.file, data: o.result!.data as ParsedStatement }));
    if (!statements.length) throw new UsageError('--csv applies to statements; contract notes have no holdings or scheme transactions');
    return { text: statementCsv(plan.csv ?? 'holdings', statements) };
  }
  if (plan.format === 'html') {
    // The page renderer loads only here: a plain parse never reads it.
    const { renderHtmlReport } = await import('../render-html.js');
    const out = ctx.opts.output && ctx.opts.output !== '-' ? ctx.opts.output : undefined;
    return {
      text: renderHtmlReport(ok.map((o) => ({ file: o.file === '-' ? 'stdin' : path.basename(o.file), data: o.result!.data }))),
      notes: out ? [`wrote ${out} (${ok.length} ${ok.length === 1 ? 'document' : 'documents'}; open it in a browser)`] : [],
    };
  }
  const table = (): string =>
    ok
      .map((o) => {
        const d = o.result!.data;
        return isStatement(d) ? statementTables(o.file, d, plan.transactions) : contractNoteTables(o.file, d as ContractNote);
      })
      .join('\n');
  return ok.length === 1 && total === 1
    ? { data: ok[0].result!.data, table, pretty: true, format: plan.format }
    : { lines: ok.map((o) => withSource(o.file, o.result!.data)), ...(plan.format === 'table' ? { text: table() } : {}) };
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

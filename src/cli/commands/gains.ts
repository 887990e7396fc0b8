/**
 * `cas gains FILE...`: realised capital gains of the mutual fund units in detailed registrar
 * statements (src/gains), parsed locally by the same pipeline as `cas parse` (parse-core).
 */
import path from 'node:path';
import chalk from 'chalk';
import { NotFoundError, outcomeExitCode, UsageError } from '../../errors.js';
import { expandInputs } from '../../core/input.js';
import { argPath, displayPath, readFlagFile, readPasswordFile } from '../io.js';
import type { ParsedStatement } from '../../schema/index.js';
import type { CommandInput, Handler } from '../command.js';
import type { gainsSpec } from '../definitions/gains.js';
import { engineChoice, passwordPlan } from '../job-settings.js';
import { fileMessage, parseOne, warmParsePool } from '../parse-core.js';
import { isStatement } from '../render-statement.js';

/** --scheme-types and --fmv: small files read like every named file (io.ts); a missing one is a usage error here. */
async function readUserFile(file: string, what: string): Promise<string> {
  try {
    return await readFlagFile(file, what);
  } catch (err) {
    if (err instanceof NotFoundError)
      throw new UsageError(/^no such file/.test(err.message) ? `${what} ${displayPath(file)}: no such file` : err.message);
    throw err;
  }
}

export const run: Handler<CommandInput<typeof gainsSpec>> = async (ctx, flags) => {
  const engine = engineChoice(flags.engine, ctx.env);
  warmParsePool(engine);
  const { computeGains, normaliseFy, parseFmvFile, parseSchemeTypes } = await import('../../gains/index.js');
  const { gainsCsv112A, gainsCsvOther, gainsTables } = await import('../render-gains.js');
  if (flags.fy && !normaliseFy(flags.fy)) throw new UsageError(`--fy '${flags.fy}': give a financial year like 2025-26`);
  let schemeTypes: Map<string, 'equity' | 'debt' | 'other' | 'unknown'> | undefined;
  let fmv: Map<string, number> | undefined;
  try {
    if (flags.schemeTypes) schemeTypes = parseSchemeTypes(await readUserFile(flags.schemeTypes, '--scheme-types'));
    if (flags.fmv) fmv = parseFmvFile(await readUserFile(flags.fmv, '--fmv'));
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message);
  }

  const files = await expandInputs(flags.files.map(argPath));
  if (!files.length) throw new UsageError('no PDF files found in the given folder');
  if (files.includes('-')) throw new UsageError('cas gains reads files, not stdin');
  const plan = passwordPlan(ctx, { password: flags.password, passwordFromFile: await readPasswordFile(flags.passwordFile) });

  const statements: ParsedStatement[] = [];
  let failed = 0;
  let exitCode = 0;
  for (const f of files) {
    const o = await parseOne(f, plan, { engine });
    if (!o.ok || !o.result) {
      failed++;
      exitCode = outcomeExitCode(o.error);
      process.stderr.write(`${chalk.red('cas:')} ${fileMessage(f, o.error?.message ?? 'failed')}\n`);
      continue;
    }
    for (const w of o.result.warnings ?? []) ctx.warn(`${f}: ${w.message}`);
    if (!isStatement(o.result.data)) throw new UsageError(`${f}: not a statement`);
    statements.push(o.result.data);
  }
  if (!statements.length) return { exitCode: exitCode || 1 };
  if (!statements.some((s) => s.mutual_funds.some((m) => m.schemes.some((sc) => sc.transactions.length)))) {
    ctx.warn('no scheme transactions in the statements: gains need a detailed registrar statement (with transactions), not a summary');
  }

  const report = computeGains(statements, { fy: flags.fy, schemeTypes, fmv });
  const format = flags.format ?? (ctx.opts.json ? 'json' : ctx.format);
  // Tables end with the issues ("To check"); JSON carries them in `issues`, and stderr repeats them.
  if (format !== 'table') for (const i of report.issues) ctx.warn(`${i.scheme} [${i.folio}]: ${i.message}`);
  const exit = failed ? exitCode : 0;
  if (format === 'csv') {
    if (report.years.length > 1)
      throw new UsageError(
        `the gains span ${report.years.length} financial years (${report.years.map((y) => y.fy).join(', ')}): choose one with --fy for the Schedule 112A CSV`,
      );
    const a = gainsCsv112A(report);
    const b = gainsCsvOther(report);
    const out = ctx.opts.output;
    if (!out) return { text: `${a}\n${b}`, exitCode: exit };
    const ext = path.extname(out);
    const other = `${out.slice(0, out.length - ext.length)}-other${ext || '.csv'}`;
    return {
      text: a,
      files: [{ path: other, text: b }],
      notes: [`wrote ${out} (Schedule 112A: equity long-term rows) and ${other} (the other rows)`],
      exitCode: exit,
    };
  }
  return { data: report, table: () => gainsTables(report), format, pretty: ctx.stdoutTty || !ctx.opts.output, exitCode: exit };
};

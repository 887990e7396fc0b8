/**
 * `cas portfolio FILE|DIR...`: one portfolio from many statements (src/portfolio), each parsed
 * locally by the same pipeline as `cas parse` (parse-core). A file that does not parse is named on
 * stderr and left out; the rest still merges and the exit code says a file failed.
 */
import chalk from 'chalk';
import { ExitCode, outcomeExitCode, UsageError } from '../../errors.js';
import type { ParsedStatement } from '../../schema/index.js';
import type { CommandInput, Handler, Result } from '../command.js';
import type { portfolioSpec } from '../definitions/portfolio.js';
import { expandInputs } from '../../core/input.js';
import { argPath, readPasswordFile } from '../io.js';
import { engineChoice, passwordPlan } from '../job-settings.js';
import { defaultJobs, fileMessage, parseMany, warmParsePool } from '../parse-core.js';
import { isStatement } from '../render-statement.js';

export const run: Handler<CommandInput<typeof portfolioSpec>> = async (ctx, flags) => {
  const engine = engineChoice(flags.engine, ctx.env);
  warmParsePool(engine);
  const format = flags.format ?? ctx.format;
  const other = ctx.opts.json ? 'json' : ctx.opts.table ? 'table' : undefined;
  if (flags.format && other && other !== flags.format)
    throw new UsageError(`--${other} and --format ${flags.format} ask for two formats: give one`);
  if (format === 'html' && ctx.stdoutTty && (!ctx.opts.output || ctx.opts.output === '-'))
    throw new UsageError('--format html writes a web page, not terminal text: add -o portfolio.html (or redirect stdout to a file)');
  const files = await expandInputs(flags.files.map(argPath));
  if (!files.length) throw new UsageError('no PDF files found in the given folder');
  if (files.includes('-')) throw new UsageError('cas portfolio reads files, not stdin');
  const plan = passwordPlan(ctx, { password: flags.password, passwordFromFile: await readPasswordFile(flags.passwordFile) });

  const outcomes = await parseMany(files, plan, { engine }, Math.min(defaultJobs(), files.length), () => undefined);
  const statements: { file: string; data: ParsedStatement }[] = [];
  const failed: { file: string; code: number; message: string }[] = [];
  for (const o of outcomes) {
    if (!o.ok || !o.result) {
      failed.push({ file: o.file, code: outcomeExitCode(o.error), message: o.error?.message ?? 'failed' });
      process.stderr.write(`${chalk.red('cas:')} ${fileMessage(o.file, o.error?.message ?? 'failed')}; left out of the portfolio\n`);
      continue;
    }
    if (!isStatement(o.result.data)) {
      failed.push({ file: o.file, code: ExitCode.DOCUMENT, message: 'a contract note, not a statement' });
      process.stderr.write(`${chalk.red('cas:')} ${o.file}: a contract note, not a statement; left out of the portfolio\n`);
      continue;
    }
    for (const w of o.result.warnings ?? []) ctx.warn(`${o.file}: ${w.message}`);
    statements.push({ file: o.file, data: o.result.data });
  }
  const codes = new Set(failed.map((f) => f.code));
  const exitCode = failed.length ? (codes.size === 1 ? [...codes][0] : ExitCode.UNEXPECTED) : 0;
  const summary = failed.length
    ? chalk.red(`${statements.length} of ${files.length} files merged; left out: ${failed.map((f) => f.file).join(', ')}`)
    : undefined;
  if (!statements.length) return { exitCode, summary };

  const { computePortfolio, MixedInvestorsError } = await import('../../portfolio/index.js');
  let portfolio;
  try {
    portfolio = computePortfolio(statements, {
      allowMixedInvestors: Boolean(flags.allowMixedInvestors),
      leftOut: failed.map((f) => ({ file: f.file, message: f.message })),
    });
  } catch (err) {
    if (err instanceof MixedInvestorsError) throw new UsageError(err.message);
    throw err;
  }
  if (format !== 'table') for (const i of portfolio.issues) ctx.warn(i.message);
  let result: Result;
  if (format === 'csv') {
    const { portfolioCsv } = await import('../render-portfolio.js');
    result = { text: portfolioCsv(portfolio) };
  } else if (format === 'html') {
    const { renderPortfolioHtml } = await import('../render-html.js');
    const out = ctx.opts.output && ctx.opts.output !== '-' ? ctx.opts.output : undefined;
    result = { text: renderPortfolioHtml(portfolio), notes: out ? [`wrote ${out} (open it in a browser)`] : [] };
  } else {
    const { portfolioTables } = await import('../render-portfolio.js');
    result = { data: portfolio, table: () => portfolioTables(portfolio), format, pretty: ctx.stdoutTty || !ctx.opts.output };
  }
  return { ...result, exitCode, summary };
};

/** Global options, TTY rules, colour, and the resolved configuration every command receives. */
import chalk from 'chalk';

export interface GlobalOptions {
  json?: boolean;
  table?: boolean;
  output?: string;
  apiKey?: string;
  apiKeyFile?: string;
  baseUrl?: string;
  color?: boolean;
  input?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}

export interface Context {
  opts: GlobalOptions;
  /** stdout is a terminal (tables, pretty JSON). */
  stdoutTty: boolean;
  /** stdin and stderr are terminals and prompts are allowed. */
  interactive: boolean;
  /** stderr is a terminal (spinners, progress). */
  stderrTty: boolean;
  /** Output format for data on stdout. */
  format: 'json' | 'table';
  env: NodeJS.ProcessEnv;
  log: (msg: string) => void;
  warn: (msg: string) => void;
  verbose: (msg: string) => void;
}

export function colorEnabled(opts: GlobalOptions, env: NodeJS.ProcessEnv, tty: boolean): boolean {
  if (opts.color === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return tty;
}

export function makeContext(opts: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Context {
  const stdoutTty = Boolean(process.stdout.isTTY);
  const stderrTty = Boolean(process.stderr.isTTY);
  const stdinTty = Boolean(process.stdin.isTTY);
  if (!colorEnabled(opts, env, stderrTty || stdoutTty)) chalk.level = 0;
  // Writing to a file (--output) is like a pipe: JSON unless --table is asked for.
  const format: 'json' | 'table' = opts.json ? 'json' : opts.table ? 'table' : stdoutTty && !opts.output ? 'table' : 'json';
  const quiet = Boolean(opts.quiet);
  return {
    opts,
    stdoutTty,
    stderrTty,
    interactive: opts.input !== false && stdinTty && stderrTty && env.CI !== 'true',
    format,
    env,
    log: (m) => {
      if (!quiet) process.stderr.write(`${m}\n`);
    },
    warn: (m) => {
      process.stderr.write(`${chalk.yellow('warning:')} ${m}\n`);
    },
    verbose: (m) => {
      if (opts.verbose) process.stderr.write(`${chalk.dim(m)}\n`);
    },
  };
}

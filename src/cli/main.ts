/**
 * The `cas` program and its one central handler. Commander is built from the command index and,
 * for the commands named on the command line, their definitions (src/cli/definitions); a
 * command's handler (src/cli/handlers.ts) loads only when it runs, so `cas --help` loads neither
 * pdf.js nor zod schemas nor the service. The central handler coerces the options, runs the
 * handler, renders the data it returns (JSON, table, text; `--output` atomically), sets the exit
 * code, and maps errors to one line on stderr.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Help, Option } from 'commander';
import { CasError, EXIT_CODES, ExitCode } from '../errors.js';
import { argKey, optionKey, type CommandSpec, type OptionDef } from './command.js';
import type { GlobalOptions } from './context.js';
import { COMMANDS, GLOBAL_OPTIONS, PROGRAM } from './definitions/index.js';

function examplesText(examples: readonly string[]): string {
  return `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`;
}

/**
 * Every help page: the usage line, the description, arguments, the command's options, then the
 * global options it takes (the program's: `--json`, `--no-input`, `--base-url`, `--api-key`,
 * `--output`, ...), the sub-commands, and last the examples (help text 'after').
 */
const HELP_LAYOUT = {
  showGlobalOptions: true,
  /** The program's own options (not a parent command's, not --version): the flags every command takes. */
  visibleGlobalOptions(cmd: Command): Option[] {
    let root = cmd;
    while (root.parent) root = root.parent;
    return root === cmd ? [] : root.options.filter((o) => !o.hidden && o.long !== '--version');
  },
  formatItemList(this: Help, heading: string, items: string[], helper: Help): string[] {
    return Help.prototype.formatItemList.call(this, heading === 'Global Options:' ? 'Global options:' : heading, items, helper);
  },
};

function toOption(def: OptionDef): Option {
  const option = new Option(def.flags, def.description);
  if (def.strict && def.choices) option.choices(def.choices);
  if (def.default !== undefined) option.default(def.default);
  return option;
}

/** The handler's input: positional arguments by name, then the options (a parent's too), coerced. */
function handlerInput(def: CommandSpec, raw: unknown[], command: Command): Record<string, unknown> {
  // Options given to a parent (e.g. `cas serve --data-dir D keys list`, or after the sub-command) count too.
  const input: Record<string, unknown> = { ...command.optsWithGlobals(), ...command.opts() };
  (def.args ?? []).forEach((a, i) => {
    input[argKey(a)] = raw[i];
  });
  for (const o of def.options ?? []) {
    const key = optionKey(o.flags);
    const value = input[key];
    if (!o.parse || (typeof value !== 'string' && !Array.isArray(value))) continue;
    input[key] = Array.isArray(value) ? value.map((v) => o.parse!(String(v))) : o.parse(value);
  }
  return input;
}

async function run(def: CommandSpec, raw: unknown[]): Promise<void> {
  const command = raw[raw.length - 1] as Command;
  const input = handlerInput(def, raw, command);
  // The context (chalk, TTY rules), the handler and the renderer load only when a command runs.
  const [{ makeContext }, { renderResult }, { HANDLERS }] = await Promise.all([
    import('./context.js'),
    import('./output.js'),
    import('./handlers.js'),
  ]);
  const load = HANDLERS.get(def);
  if (!load) throw new CasError('NoHandler', `no handler for '${command.name()}'`, ExitCode.UNEXPECTED);
  const ctx = makeContext(command.optsWithGlobals() as GlobalOptions);
  const result = await (await load())(ctx, input as never);
  await renderResult(ctx, result);
  process.exitCode = result.exitCode ?? ExitCode.OK;
}

function addCommand(parent: Command, def: CommandSpec, summary = def.summary ?? ''): void {
  const cmd = parent.command(def.name).description(summary);
  cmd.addHelpText('after', examplesText(def.examples));
  for (const a of def.args ?? []) cmd.argument(a);
  for (const o of def.options ?? []) cmd.addOption(toOption(o));
  for (const sub of def.subcommands ?? []) addCommand(cmd, sub);
  if (!def.subcommands?.length || def.alsoRuns) cmd.action((...raw: unknown[]) => run(def, raw));
}

/**
 * The program. A command named in `argv` gets its full definition; the others are listed by name
 * and summary only (they cannot run without being named).
 */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const program = new Command(PROGRAM.name);
  program.description(PROGRAM.summary).version(pkg.version, '-V, --version').configureHelp(HELP_LAYOUT);
  for (const o of GLOBAL_OPTIONS) program.addOption(toOption(o));
  program
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: () => undefined })
    .exitOverride();
  program.addHelpText('after', examplesText(PROGRAM.examples));
  program.addHelpText(
    'after',
    `\nExit codes:\n${EXIT_CODES.map(([code, meaning]) => `  ${String(code).padEnd(4)} ${meaning}`).join('\n')}\n`,
  );
  const named = new Set(argv);
  const specs = await Promise.all(COMMANDS.map((entry) => (named.has(entry.name) ? entry.load() : undefined)));
  COMMANDS.forEach((entry, i) => {
    const spec = specs[i];
    if (spec) addCommand(program, spec, entry.summary);
    else program.command(entry.name).description(entry.summary);
  });
  const applyOverride = (c: Command): void => {
    c.exitOverride();
    c.configureOutput({ outputError: () => undefined });
    c.commands.forEach(applyOverride);
  };
  program.commands.forEach(applyOverride);
  return program;
}

function oneLine(s: string): string {
  return s
    .replace(/^error:\s*/i, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
}

/** The one central error handler: typed errors -> one line on stderr + exit code. */
export function handleError(err: unknown): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.OK;
    if (err.code === 'commander.executeSubCommandAsync') return ExitCode.UNEXPECTED;
    process.stderr.write(`cas: ${oneLine(err.message)} (see cas --help)\n`);
    return ExitCode.USAGE;
  }
  if (err instanceof CasError) {
    process.stderr.write(`cas: ${oneLine(err.message)}\n`);
    return err.exitCode;
  }
  const e = err as { name?: string; message?: string; code?: string };
  if (e?.name === 'ExitPromptError' || e?.name === 'AbortPromptError') {
    process.stderr.write('cas: cancelled\n');
    return ExitCode.INTERRUPTED;
  }
  if (e?.code === 'EPIPE') return ExitCode.OK;
  if (e?.code === 'ENOENT') {
    process.stderr.write(`cas: no such file: ${(e as NodeJS.ErrnoException).path ?? e.message}\n`);
    return ExitCode.NOT_FOUND;
  }
  if (e?.code === 'EACCES' || e?.code === 'EISDIR') {
    process.stderr.write(`cas: ${e.message}\n`);
    return ExitCode.UNEXPECTED;
  }
  process.stderr.write(`cas: unexpected error: ${oneLine(String(e?.message ?? err))}\n`);
  if (process.env.CAS_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  return ExitCode.UNEXPECTED;
}

export async function main(argv: string[]): Promise<void> {
  process.on('SIGINT', () => {
    process.stderr.write('\ncas: interrupted\n');
    process.exit(ExitCode.INTERRUPTED);
  });
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  const program = await buildProgram(argv.slice(2));
  if (argv.length <= 2) {
    program.outputHelp();
    process.exitCode = ExitCode.OK;
    return;
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = handleError(err);
  }
}

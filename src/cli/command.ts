/**
 * What a command is: a definition (src/cli/definitions: name, summary, arguments, options with
 * types, examples) that costs nothing to load, and a typed handler (src/cli/commands) that
 * returns data (a `Result`), bound to it in src/cli/handlers.ts behind a dynamic import. The
 * central handler in main.ts builds commander from the command index and the definitions of the
 * commands named, coerces the options, loads and runs the handler, renders its result (JSON,
 * table, text; `--output` written atomically) and sets the exit code; the completion scripts read
 * the same definitions. Handler modules import definitions as types only, and definitions import
 * nothing of the handlers: no cycles.
 *
 * The handler's input type is inferred from the definition: `--bo-id <id>` gives `boId?: string`,
 * `--source <source...>` gives `string[]`, a flag without a value `boolean`, `--no-tls` gives
 * `tls?: boolean`, strict choices their union, and `parse` its return type; `<files...>` gives
 * `files: string[]`, `[name]` gives `name: string | undefined`.
 */
import type { Context } from './context.js';

export interface OptionDef<F extends string = string> {
  /** commander flags, e.g. `-t, --type <type>`. */
  flags: F;
  description: string;
  /** The fixed values: listed in help and completed by the shell scripts. */
  choices?: readonly string[];
  /** With `choices`: commander refuses any other value (exit 2). Otherwise `parse` or the handler judges the value. */
  strict?: boolean;
  default?: string;
  /** Turns the string given into the typed value, or throws a UsageError (exit 2). */
  parse?: (raw: string) => unknown;
}

/** What a handler returns; the central handler renders it. */
export interface Result {
  /** Data for stdout: JSON (pretty on a terminal, or as `pretty` says), or `table()` when the output is a table. */
  data?: unknown;
  table?: () => string;
  /** JSON even on a terminal or with `--table` (e.g. `--format json`), or a table off one. */
  format?: 'json' | 'table';
  pretty?: boolean;
  /** Several documents: one compact JSON document per line. */
  lines?: unknown[];
  /** Text for stdout as it is (a script, CSV, one value). */
  text?: string;
  /** Further files written atomically (before stdout or `--output`). */
  files?: { path: string; text: string }[];
  /** Messages for stderr after the data (not with --quiet). */
  notes?: string[];
  /** A line for stderr after the data, even with --quiet (a batch summary with failures). */
  summary?: string;
  /** Default 0. */
  exitCode?: number;
}

/**
 * A command's handler: typed input in, data (and an exit code) out; it prints no data itself
 * (one exception: `--parse` after a download writes each parsed file through parse-core's
 * `parseSaved`). Progress and warnings go to stderr through `ctx`.
 */
export type Handler<I> = (ctx: Context, input: I) => Promise<Result>;

/** What a command is, as data: enough for help, parsing and the completion scripts (no handler code). */
export interface CommandSpec<P extends readonly string[] = readonly string[], O extends readonly OptionDef[] = readonly OptionDef[]> {
  name: string;
  /** One line; a top-level command's stands in the command index (src/cli/definitions/index.ts). */
  summary?: string;
  /** Positional arguments in commander syntax: `<file>`, `[name]`, `<files...>`. */
  args?: P;
  options?: O;
  examples: readonly string[];
  subcommands?: readonly CommandSpec[];
  /** A command with sub-commands that also runs by itself (`cas serve`); otherwise only leaves run. */
  alsoRuns?: boolean;
}

/** A top-level command as `cas --help` lists it; its definition loads only when it is named. */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<CommandSpec>;
}

/** Identity, for inference: `const` keeps the flag strings literal so the input type follows them. */
export function defineSpec<const P extends readonly string[] = [], const O extends readonly OptionDef[] = []>(
  spec: CommandSpec<P, O>,
): CommandSpec<P, O> {
  return spec;
}

/** Loads a handler (and with it the command's dependencies) only when its command runs. */
export type Loader = () => Promise<Handler<never>>;

/**
 * A spec and the loader of its handler, whose input type is the spec's (the handler module
 * declares `Handler<CommandInput<typeof fetchSpec>>`; a wrong export or input does not compile).
 */
export function bind<P extends readonly string[], O extends readonly OptionDef[]>(
  spec: CommandSpec<P, O>,
  load: () => Promise<Handler<InputOf<P, O>>>,
): [CommandSpec, Loader] {
  return [spec as CommandSpec, load as Loader];
}

/** An option list shared by several commands (keeps the literal types). */
export function defineOptions<const O extends readonly OptionDef[]>(options: O): O {
  return options;
}

// ---- input types inferred from the definition ----

type Camel<S extends string> = S extends `${infer H}-${infer T}`
  ? `${H}${Capitalize<Camel<T>>}`
  : S extends `${infer H}_${infer T}`
    ? `${H}${Capitalize<Camel<T>>}`
    : S;
type LongFlag<F extends string> = F extends `${string}--${infer R}` ? (R extends `${infer N} ${string}` ? N : R) : never;
type OptionKey<F extends string> = LongFlag<F> extends `no-${infer N}` ? Camel<N> : Camel<LongFlag<F>>;
type FlagValue<F extends string> = F extends `${string}...>`
  ? string[]
  : F extends `${string}<${string}>`
    ? string
    : F extends `${string}[${string}]`
      ? string | true
      : boolean;
type OptionValue<D> = D extends { parse: (raw: string) => infer V }
  ? D extends { flags: `${string}...>` }
    ? V[]
    : V
  : D extends { strict: true; choices: readonly (infer C)[] }
    ? C
    : D extends { flags: infer F extends string }
      ? FlagValue<F>
      : never;
export type OptionsInput<O extends readonly OptionDef[]> = { [D in O[number] as OptionKey<D['flags']>]?: OptionValue<D> };

type ArgName<A extends string> = A extends `${'<' | '['}${infer N}...${'>' | ']'}`
  ? N
  : A extends `${'<' | '['}${infer N}${'>' | ']'}`
    ? N
    : never;
type ArgValue<A extends string> = A extends `${string}...${'>' | ']'}` ? string[] : A extends `<${string}>` ? string : string | undefined;
export type ArgsInput<P extends readonly string[]> = { [A in P[number] as Camel<ArgName<A>>]: ArgValue<A> };

export type InputOf<P extends readonly string[], O extends readonly OptionDef[]> = ArgsInput<P> & OptionsInput<O>;
/** The input type of a defined command: `Handler<CommandInput<typeof fetchSpec>>`. */
export type CommandInput<C> = C extends CommandSpec<infer P, infer O> ? InputOf<P, O> : never;

// ---- the runtime side of the same rules ----

export function camel(s: string): string {
  return s.replace(/[-_]+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `<session_id>` -> `sessionId`. */
export function argKey(arg: string): string {
  return camel(arg.replace(/^[<[]|\.\.\.|[>\]]$/g, ''));
}

/** `-t, --type <type>` -> `type`; `--no-tls` -> `tls`. */
export function optionKey(flags: string): string {
  const long = /--([\w-]+)/.exec(flags)?.[1] ?? /-(\w)/.exec(flags)![1];
  return camel(long.replace(/^no-/, ''));
}

/** The short and long flag words of an option (`-t`, `--type`). */
export function flagWords(flags: string): string[] {
  return flags.split(/[\s,|]+/).filter((w) => w.startsWith('-'));
}

/** The option takes a value (`<x>` or `[x]`). */
export function takesValue(flags: string): boolean {
  return /[<[]/.test(flags);
}

/**
 * The typed command definitions and the format registry: `--type` and `--broker` take every id
 * and alias of src/formats, help lists them, the completion scripts complete them, and every
 * command's help prints its examples.
 */
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BROKERS, FORMATS, resolveBroker, resolveFormat } from '../../src/formats/index.js';
import type { CommandSpec, OptionDef } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/definitions/index.js';
import { parseSpec } from '../../src/cli/definitions/parse.js';
import { HANDLERS } from '../../src/cli/handlers.js';
import { cas } from '../helpers/cas.js';
import { newKey, serve } from '../helpers/server.js';

const TYPES = [...new Set(FORMATS.flatMap((f) => [f.id, ...f.aliases]))];
const BROKER_NAMES = [...new Set(BROKERS.flatMap((b) => [b.id, b.realValue, ...b.aliases]))];

/** What bash completes after `cas WORDS...` (the script from `cas completion bash`). */
async function bashComplete(script: string, words: string[]): Promise<string[]> {
  const line = ['cas', ...words].map((w) => `'${w}'`).join(' ');
  const r = await execa('bash', [
    '-c',
    `${script}\nCOMP_WORDS=(${line}); COMP_CWORD=${words.length}; _cas; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ]);
  return r.stdout.split('\n').filter(Boolean);
}

describe('--type and --broker come from the format registry', () => {
  it('cas parse --help lists every format id and alias, and every broker id, real value and alias', async () => {
    const r = await cas(['parse', '--help']);
    expect(r.exitCode).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    for (const t of TYPES) expect(help).toContain(t);
    for (const b of BROKER_NAMES) expect(help).toContain(b);
  });

  it('every listed --type and --broker value resolves (any case); the CLI takes them and refuses others naming the choices', async () => {
    const option = (flag: string): OptionDef => parseSpec.options!.find((o) => o.flags.includes(flag))!;
    expect([...option('--type').choices!].sort()).toEqual([...TYPES].sort());
    expect([...option('--broker').choices!].sort()).toEqual([...BROKER_NAMES].sort());
    for (const t of TYPES) expect({ t, id: option('--type').parse!(t.toUpperCase()) }).toEqual({ t, id: resolveFormat(t) ?? 'unresolved' });
    for (const b of BROKER_NAMES)
      expect({ b, id: option('--broker').parse!(b.toUpperCase()) }).toEqual({ b, id: resolveBroker(b) ?? 'unresolved' });
    // Through the built CLI: a few names (an id, a real name in capitals, a broker's real value) get past the flags to the file.
    for (const args of [
      ['--type', 'depository_b'],
      ['--type', 'KFinTech'],
      ['--broker', 'Zerodha'],
    ]) {
      const r = await cas(['parse', ...args, '/nonexistent/statement.pdf']);
      expect({ args, err: r.stderr }).toEqual({ args, err: expect.stringMatching(/no such file/) });
    }
    const badType = await cas(['parse', '--type', 'bank', '/nonexistent/statement.pdf']);
    expect(badType.exitCode).toBe(2);
    for (const t of TYPES) expect(badType.stderr).toContain(t);
    const badBroker = await cas(['smart', '--broker', 'acme', '/nonexistent/note.pdf']);
    expect(badBroker.exitCode).toBe(2);
    for (const b of BROKER_NAMES) expect(badBroker.stderr).toContain(b);
  });

  it('bash completes the values of --type, --broker and the other options with fixed choices', async () => {
    const script = (await cas(['completion', 'bash'])).stdout;
    expect((await bashComplete(script, ['parse', '--type', ''])).sort()).toEqual([...TYPES].sort());
    expect((await bashComplete(script, ['smart', '-t', 'c'])).sort()).toEqual(TYPES.filter((t) => t.startsWith('c')).sort());
    expect((await bashComplete(script, ['parse', '--broker', ''])).sort()).toEqual([...BROKER_NAMES].sort());
    // A flag's value is not taken for a sub-command: after `--type cams`, options of parse again.
    expect(await bashComplete(script, ['parse', '--type', 'cams', '--bro'])).toEqual(['--broker']);
    expect((await bashComplete(script, ['parse', '--names', ''])).sort()).toEqual(['real', 'spec']);
    expect((await bashComplete(script, ['inbound', 'list', '--status', ''])).sort()).toEqual(['active', 'all', 'paused']);
    expect((await bashComplete(script, ['serve', '--kyc-provider', ''])).sort()).toEqual(['none', 'recorded', 'sandbox']);
  });

  it('zsh and fish complete the same values', async () => {
    const zsh = (await cas(['completion', 'zsh'])).stdout;
    const fish = (await cas(['completion', 'fish'])).stdout;
    const typeLine = zsh.split('\n').find((l) => l.includes('{-t,--type}') && l.includes(':type:('));
    expect(
      typeLine
        ?.match(/:type:\(([^)]*)\)/)?.[1]
        .split(' ')
        .sort(),
    ).toEqual([...TYPES].sort());
    const brokerLine = fish.split('\n').find((l) => l.includes("'__fish_seen_subcommand_from parse' -l broker"));
    expect(
      brokerLine
        ?.match(/-x -a '([^']*)'/)?.[1]
        .split(' ')
        .sort(),
    ).toEqual([...BROKER_NAMES].sort());
  });
});

describe('command definitions', () => {
  const paths: { path: string[]; def: CommandSpec }[] = [];
  const visit = (def: CommandSpec, parent: string[]): void => {
    paths.push({ path: [...parent, def.name], def });
    for (const sub of def.subcommands ?? []) visit(sub, [...parent, def.name]);
  };

  it('each command has a summary and examples; every leaf (and serve) has a handler, groups have sub-commands', async () => {
    for (const entry of COMMANDS) {
      const spec = await entry.load();
      expect({ entry: entry.name, spec: spec.name, summary: entry.summary.length > 0 }).toEqual({
        entry: entry.name,
        spec: entry.name,
        summary: true,
      });
      visit({ ...spec, summary: entry.summary }, []);
    }
    expect(paths.length).toBeGreaterThan(40);
    for (const { path, def } of paths) {
      expect({ path, summary: Boolean(def.summary), examples: def.examples.length > 0 }).toEqual({ path, summary: true, examples: true });
      const runs = !def.subcommands?.length || Boolean(def.alsoRuns);
      const spec = path.length === 1 ? await COMMANDS.find((e) => e.name === path[0])!.load() : def;
      expect({ path, handler: HANDLERS.has(spec) }).toEqual({ path, handler: runs });
    }
  });

  it('every handler is bound to a command of the program, and loads as a function', async () => {
    const specs = new Set<CommandSpec>();
    const add = (d: CommandSpec): void => {
      specs.add(d);
      d.subcommands?.forEach(add);
    };
    for (const entry of COMMANDS) add(await entry.load());
    for (const [spec, load] of HANDLERS) {
      expect({ name: spec.name, inProgram: specs.has(spec), type: typeof (await load()) }).toEqual({
        name: spec.name,
        inProgram: true,
        type: 'function',
      });
    }
  });

  it('every cas <command> [sub] --help: usage line first, then the description, options, global options, examples last', async () => {
    const all: { path: string[]; def: CommandSpec }[] = [];
    const walk = (def: CommandSpec, parent: string[]): void => {
      all.push({ path: [...parent, def.name], def });
      for (const sub of def.subcommands ?? []) walk(sub, [...parent, def.name]);
    };
    for (const entry of COMMANDS) walk({ ...(await entry.load()), summary: entry.summary }, []);
    for (const { path, def } of all) {
      const r = await cas([...path, '--help']);
      expect({ path, code: r.exitCode, stderr: r.stderr }).toEqual({ path, code: 0, stderr: '' });
      const lines = r.stdout.split('\n');
      expect({ path, first: lines[0] }).toEqual({
        path,
        first: expect.stringMatching(new RegExp(`^Usage: cas ${path.join(' ')} \\[options\\]`)),
      });
      const at = (heading: string): number => lines.indexOf(heading);
      const description = r.stdout.replace(/\s+/g, ' ').indexOf(def.summary!.replace(/\s+/g, ' '));
      expect({ path, description: description > 0 && description < r.stdout.replace(/\s+/g, ' ').indexOf('Options:') }).toEqual({
        path,
        description: true,
      });
      const order = [at('Options:'), at('Global options:'), at('Examples:')];
      expect({ path, order, sorted: order.every((n, i) => n > 0 && (i === 0 || n > order[i - 1])) }).toEqual({ path, order, sorted: true });
      const global = lines.slice(at('Global options:'), at('Examples:')).join('\n');
      for (const flag of [
        '--json',
        '--table',
        '-o, --output <file>',
        '--api-key <key>',
        '--api-key-file <file>',
        '--base-url <url>',
        '--no-input',
        '--no-color',
        '-q, --quiet',
        '--verbose',
      ])
        expect({ path, flag, listed: global.includes(flag) }).toEqual({ path, flag, listed: true });
      expect({ path, version: global.includes('--version') }).toEqual({ path, version: false });
      const examples = lines.slice(at('Examples:') + 1).filter(Boolean);
      expect({ path, examples }).toEqual({ path, examples: def.examples.map((e) => `  $ ${e}`) });
    }
    // The program itself: usage first, examples and the exit codes after the commands.
    const root = (await cas(['--help'])).stdout.split('\n');
    expect(root[0]).toBe('Usage: cas [options] [command]');
    expect(root.indexOf('Commands:')).toBeLessThan(root.indexOf('Examples:'));
    expect(root.indexOf('Examples:')).toBeLessThan(root.indexOf('Exit codes:'));
  });

  it('cas <command> --help prints the usage and examples of each top-level command', async () => {
    for (const entry of COMMANDS) {
      const spec = await entry.load();
      const r = await cas([entry.name, '--help']);
      expect({ name: entry.name, code: r.exitCode }).toEqual({ name: entry.name, code: 0 });
      expect(r.stdout).toContain(`Usage: cas ${entry.name}`);
      expect(r.stdout.replace(/\s+/g, ' ')).toContain(entry.summary);
      for (const e of spec.examples) expect(r.stdout).toContain(`$ ${e}`);
    }
  });
});

describe('commands against a real cas serve, through src/client', () => {
  it('cas inbound create, list, get, pause, resume, files, delete: JSON off a terminal, exit 0', async () => {
    const srv = await serve();
    try {
      const env = { CAS_API_KEY: await newKey(srv.dataDir, ['--credits', '10']), CAS_BASE_URL: srv.url };
      const created = await cas(
        ['inbound', 'create', '--alias', 'cli-typed', '--source', 'registrar_a', '--source', 'depository_b', '--meta', 'team=ops'],
        { env },
      );
      expect(created.exitCode, created.stderr).toBe(0);
      const e = JSON.parse(created.stdout) as {
        inbound_email_id: string;
        email: string;
        webhook_secret: string;
        allowed_sources: string[];
        metadata: Record<string, string>;
      };
      expect(e.webhook_secret).toBeTruthy();
      expect(e.allowed_sources.sort()).toEqual(['depository_b', 'registrar_a']);
      expect(e.metadata).toEqual({ team: 'ops' });
      expect(created.stderr).toContain(`forward statements to ${e.email}`);
      const id = e.inbound_email_id;
      const paused = JSON.parse((await cas(['inbound', 'pause', id], { env })).stdout) as { status: string };
      expect(paused.status).toBe('paused');
      const list = JSON.parse((await cas(['inbound', 'list', '--status', 'paused'], { env })).stdout) as {
        inbound_emails: { inbound_email_id: string }[];
        total: number;
      };
      expect(list.inbound_emails.map((x) => x.inbound_email_id)).toEqual([id]);
      expect((JSON.parse((await cas(['inbound', 'resume', id], { env })).stdout) as { status: string }).status).toBe('active');
      expect((JSON.parse((await cas(['inbound', 'get', id], { env })).stdout) as { email: string }).email).toBe(e.email);
      const files = await cas(['inbound', 'files', id], { env });
      expect(files.exitCode, files.stderr).toBe(0);
      expect(JSON.parse(files.stdout)).toEqual({ files: [], count: 0 });
      const del = await cas(['inbound', 'delete', id], { env });
      expect(del.exitCode, del.stderr).toBe(0);
      expect((JSON.parse(del.stdout) as { status: string }).status).toBe('success');
      const gone = await cas(['inbound', 'get', id], { env });
      expect(gone.exitCode).not.toBe(0);
      expect(gone.stdout).toBe('');
      const bad = await cas(['inbound', 'create', '--meta', 'novalue'], { env });
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/--meta takes key=value/);
    } finally {
      await srv.stop();
    }
  }, 60_000);

  it('cas openapi prints the document the running service serves', async () => {
    const srv = await serve();
    try {
      const served = (await (await fetch(`${srv.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      const r = await cas(['openapi']);
      expect(r.exitCode, r.stderr).toBe(0);
      const printed = JSON.parse(r.stdout) as { openapi: string; paths: Record<string, unknown> };
      expect(printed.openapi).toMatch(/^3\./);
      expect(Object.keys(printed.paths).sort()).toEqual(Object.keys(served.paths).sort());
      const real = JSON.parse((await cas(['openapi', '--names', 'real'])).stdout) as { paths: Record<string, unknown> };
      expect(Object.keys(real.paths).length).toBeGreaterThan(0);
      expect((await cas(['openapi', '--names', 'vendor'])).exitCode).toBe(2);
    } finally {
      await srv.stop();
    }
  }, 60_000);
});

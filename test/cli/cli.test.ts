import { describe, expect, it } from 'vitest';
import { ptyExited } from '../helpers/pty.js';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BIN, cas, cleanEnv, fixture, ROOT, tmpDir } from '../helpers/cas.js';
import * as pty from 'node-pty';

// eslint-disable-next-line no-control-regex -- matching terminal escape codes is the point
const ESC = /\u001b\[/;

/** Run cas in a pseudo-terminal (stdout is a TTY) and collect what the terminal shows. */
function inPty(args: string[], env: Record<string, string | undefined> = {}): Promise<{ out: string; code: number }> {
  return new Promise((resolve) => {
    const p = pty.spawn('node', [BIN, ...args], { cols: 200, rows: 50, cwd: ROOT, env: cleanEnv(env) as Record<string, string> });
    let out = '';
    p.onData((d) => (out += d));
    void ptyExited(p).then((exitCode) => resolve({ out, code: exitCode }));
  });
}

describe('cas frame', () => {
  it('prints help with examples and the commands, exit 0', async () => {
    const r = await cas(['--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n\s+\$ cas parse statement\.pdf/);
    for (const c of ['parse', 'smart', 'schema', 'config', 'completion']) expect(r.stdout).toMatch(new RegExp(`\\n\\s+${c}\\b`));
    expect(r.stdout).toMatch(/Exit codes:\n\s+0\s+success\n\s+1\s+unexpected/);
    expect(r.stdout).toMatch(/\n\s+130\s+interrupted/);
  });

  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await cas(['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('an unknown command exits 2 with one line on stderr and nothing on stdout', async () => {
    const r = await cas(['frobnicate']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unknown command 'frobnicate'/);
  });

  it('a bad flag exits 2 with one line on stderr and nothing on stdout', async () => {
    const r = await cas(['parse', '--no-such-flag', 'x.pdf']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unknown option '--no-such-flag'/);
  });

  it('a bad --type exits 2', async () => {
    const r = await cas(['parse', '--type', 'bank', fixture('registrar/cams-detailed-plain.pdf')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown --type 'bank'/);
  });

  it('writes JSON when stdout is not a terminal, and tables on a terminal', async () => {
    const piped = await cas(['parse', fixture('registrar/cams-detailed-plain.pdf')]);
    expect(piped.exitCode).toBe(0);
    expect(() => JSON.parse(piped.stdout)).not.toThrow();
    const tty = await inPty(['parse', fixture('registrar/cams-detailed-plain.pdf')], { NO_COLOR: '1' });
    expect(tty.code).toBe(0);
    expect(tty.out).toMatch(/Mutual funds/);
    expect(tty.out).toMatch(/HDFC Flexi Cap Fund/);
    expect(tty.out.trimStart().startsWith('{')).toBe(false);
    const ttyJson = await inPty(['--json', 'schema'], { NO_COLOR: '1' });
    expect(ttyJson.out.trimStart().startsWith('[')).toBe(true);
  });

  it('NO_COLOR and --no-color give no escape codes, even on a terminal', async () => {
    const colored = await inPty(['schema'], { FORCE_COLOR: '1' });
    expect(colored.out).toMatch(ESC);
    const noColor = await inPty(['schema'], { NO_COLOR: '1', FORCE_COLOR: '1' });
    expect(noColor.out).not.toMatch(ESC);
    const flag = await inPty(['--no-color', 'schema'], { FORCE_COLOR: '1' });
    expect(flag.out).not.toMatch(ESC);
  });

  it('creates the config file with mode 0600 and masks secrets', async () => {
    const env = cleanEnv();
    const set = await cas(['config', 'set', 'api_key', '-'], { env, input: 'sk_live_abcdefghijklmnop', stdin: undefined });
    expect(set.exitCode).toBe(0);
    expect(set.stderr).not.toMatch(/abcdefghijklmnop/);
    const p = (await cas(['config', 'path'], { env })).stdout.trim();
    expect(statSync(p).mode & 0o777).toBe(0o600);
    const list = await cas(['config', 'list', '--json'], { env });
    const parsed = JSON.parse(list.stdout) as Record<string, string | null>;
    expect(parsed.api_key).not.toContain('abcdefghijklmnop');
    expect(parsed.api_key).toMatch(/^sk\*+op$/);
    const reveal = await cas(['config', 'get', 'api_key', '--reveal'], { env });
    expect(reveal.stdout.trim()).toBe('sk_live_abcdefghijklmnop');
  });

  it('resolves settings as flag > env > config file', async () => {
    const env = cleanEnv();
    await cas(['config', 'set', 'base_url', 'http://config.example:1'], { env });
    const fromFile = await cas(['config', 'get', 'base_url', '--effective'], { env });
    expect(fromFile.stdout.trim()).toBe('http://config.example:1');
    expect(fromFile.stderr).toMatch(/config file/);
    const fromEnv = await cas(['config', 'get', 'base_url', '--effective'], { env: { ...env, CAS_BASE_URL: 'http://env.example:2' } });
    expect(fromEnv.stdout.trim()).toBe('http://env.example:2');
    const fromFlag = await cas(['--base-url', 'http://flag.example:3', 'config', 'get', 'base_url', '--effective'], {
      env: { ...env, CAS_BASE_URL: 'http://env.example:2' },
    });
    expect(fromFlag.stdout.trim()).toBe('http://flag.example:3');
    expect(fromFlag.stderr).toMatch(/flag/);
  });

  it('reads settings from the platform config path that conf writes (no CAS_CONFIG_DIR); a damaged file is a clear error', async () => {
    const home = tmpDir('cas-home-');
    const env = { ...cleanEnv(), CAS_CONFIG_DIR: undefined, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
    const set = await cas(['config', 'set', 'pan', 'abcpm1234k'], { env });
    expect(set.exitCode, set.stderr).toBe(0);
    const p = (await cas(['config', 'path'], { env })).stdout.trim();
    expect(p).toBe(path.join(home, '.config', 'cas', 'config.json'));
    // parse finds the PAN (the statement's password) through its own light reader.
    const parsed = await cas(['parse', fixture('registrar/kfintech-detailed.pdf'), '--json'], { env });
    expect(parsed.exitCode, parsed.stderr).toBe(0);
    expect(JSON.parse(parsed.stdout).investor.pan).toBe('ABCPM1234K');
    writeFileSync(p, '{"pan": "ABCPM1234K",');
    const broken = await cas(['parse', fixture('registrar/kfintech-detailed.pdf'), '--json'], { env });
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toContain(`the config file ${p} is not valid JSON; fix it or remove it`);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
    expect(broken.stdout).toBe('');
  });

  it('completion scripts in completions/ are in sync with the program', async () => {
    for (const [shell, file] of [
      ['bash', 'cas.bash'],
      ['zsh', '_cas'],
      ['fish', 'cas.fish'],
    ] as const) {
      const r = await cas(['completion', shell], { stripFinalNewline: false });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('parse');
      expect(readFileSync(path.join(ROOT, 'completions', file), 'utf8')).toBe(r.stdout);
    }
  });

  it('--output writes atomically and leaves no temp file behind', async () => {
    const { tmpDir } = await import('../helpers/cas.js');
    const dir = tmpDir();
    const out = path.join(dir, 'out.json');
    const r = await cas(['parse', fixture('registrar/cams-detailed-plain.pdf'), '--output', out]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8')).meta.cas_type).toBe('REGISTRAR_A_REGISTRAR_B');
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir)).toEqual(['out.json']);
  });
});

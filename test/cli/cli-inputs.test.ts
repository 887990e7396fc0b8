/**
 * Every file the CLI reads or writes because a user named it (issue 32.6): symlink loops, folders,
 * devices, FIFOs with no writer, unreadable files, names that are not UTF-8, outputs in the wrong
 * place, --jobs past the cap, stdin past the byte limit, the config folder under umask 000. Each
 * answer is one line with a documented exit code (2 usage, 3 document, 8 not found), within a
 * deadline, never a raw errno text, a stack or a hang. Runs the built `cas`.
 */
import { describe, expect, it } from 'vitest';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa, execaSync } from 'execa';
import { BIN, cas, cleanEnv, fixture, tmpDir, type RunResult } from '../helpers/cas.js';

const PDF = fixture('registrar/cams-detailed-plain.pdf');
/** A FIFO's deadline in these tests (CAS_FIFO_TIMEOUT, seconds): short, and the answer is awaited with a generous margin. */
const FIFO_S = '1';
/** Far more than any of these answers needs, even on a busy machine; a hang is killed here and fails. */
const DEADLINE = 60_000;

/** One line on stderr, the exit code asked for, nothing on stdout, no raw errno names or stack. */
function expectRefused(r: RunResult, code: number, message: RegExp): void {
  expect({ exit: r.exitCode, stderr: r.stderr }).toEqual({ exit: code, stderr: expect.stringMatching(message) });
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/\bE[A-Z]{3,}\b|Invalid string length|\n\s+at /);
  expect(r.stderr.trim().split('\n').length, r.stderr).toBeLessThanOrEqual(2);
}

function mkfifo(file: string): void {
  execaSync('mkfifo', [file]);
}

describe('cas parse: inputs that are not plain readable files', () => {
  it('a symlink loop is "not found" (exit 8), named, not ELOOP', async () => {
    const dir = tmpDir();
    symlinkSync(path.join(dir, 'b'), path.join(dir, 'a'));
    symlinkSync(path.join(dir, 'a'), path.join(dir, 'b'));
    expectRefused(await cas(['parse', path.join(dir, 'a')]), 8, /a link loop/);
    expectRefused(await cas(['parse', PDF, '--password-file', path.join(dir, 'a')]), 8, /--password-file .*link loop/);
  });

  it('--password-file naming a folder or /dev/zero: usage (exit 2), not EISDIR or "Invalid string length"', async () => {
    expectRefused(await cas(['parse', PDF, '--password-file', tmpDir()]), 2, /--password-file .* is a folder, not a file/);
    expectRefused(
      await cas(['parse', PDF, '--password-file', '/dev/zero'], { timeout: DEADLINE }),
      2,
      /--password-file \/dev\/zero is a device/,
    );
  });

  it('a device named as the PDF is refused at once (exit 2); stdin from /dev/zero stops at the 50 MiB limit (exit 3)', async () => {
    expectRefused(await cas(['parse', '/dev/zero'], { timeout: DEADLINE }), 2, /\/dev\/zero is a device, not a file/);
    const r = await cas(['parse', '-'], { stdin: { file: '/dev/zero' }, timeout: DEADLINE });
    expectRefused(r, 3, /stdin is larger than the limit of 52428800 bytes/);
    // The limit follows CAS_PARSE_MAX_BYTES.
    const small = await cas(['parse', '-'], { stdin: { file: '/dev/zero' }, env: { CAS_PARSE_MAX_BYTES: '1000' }, timeout: DEADLINE });
    expectRefused(small, 3, /stdin is larger than the limit of 1000 bytes/);
  });

  it('a FIFO with no writer (the input, --password-file, --scheme-types, the config file) is answered, never waited on for ever', async () => {
    const dir = tmpDir();
    const fifo = path.join(dir, 'fifo');
    mkfifo(fifo);
    const env = { CAS_FIFO_TIMEOUT: FIFO_S };
    expectRefused(await cas(['parse', fifo], { env, timeout: DEADLINE }), 2, /is a FIFO .* sent no complete content within 1 s/);
    expectRefused(
      await cas(['parse', PDF, '--password-file', fifo], { env, timeout: DEADLINE }),
      2,
      /--password-file .*fifo is a FIFO .*within 1 s/,
    );
    expectRefused(
      await cas(['gains', PDF, '--scheme-types', fifo], { env, timeout: DEADLINE }),
      2,
      /--scheme-types .*fifo is a FIFO .*within 1 s/,
    );
    const config = tmpDir('cas-config-');
    mkfifo(path.join(config, 'config.json'));
    expectRefused(await cas(['parse', PDF], { env: { CAS_CONFIG_DIR: config }, timeout: DEADLINE }), 2, /config file .* is a FIFO/);
  });

  it('a FIFO with a writer is read (a password from another process)', async () => {
    const dir = tmpDir();
    const fifo = path.join(dir, 'pw');
    mkfifo(fifo);
    // The writer opens the FIFO after cas has started: cas waits for it (within the deadline).
    const writer = execa('bash', ['-c', 'sleep 0.5; printf "%s\\n" wrong-password > "$0"', fifo]);
    const r = await cas(['parse', fixture('registrar/cams-detailed.pdf'), '--password-file', fifo], {
      env: { CAS_FIFO_TIMEOUT: '30' },
      timeout: DEADLINE,
    });
    await writer;
    // The password was read (and is wrong for this file): a document error, not a FIFO error.
    expectRefused(r, 3, /password is incorrect/);
  });

  it('--fmv naming a folder is a usage error (exit 2)', async () => {
    expectRefused(await cas(['gains', PDF, '--fmv', tmpDir()]), 2, /--fmv .* is a folder, not a file/);
  });

  it('an unreadable file: usage (exit 2) "permission denied" (as root, run as nobody through setpriv)', async (t) => {
    const dir = tmpDir();
    chmodSync(dir, 0o755);
    const file = path.join(dir, 'locked.pdf');
    copyFileSync(PDF, file);
    chmodSync(file, 0o000);
    const config = tmpDir('cas-config-');
    chmodSync(config, 0o755);
    const env = { ...cleanEnv(), CAS_CONFIG_DIR: config, HOME: dir };
    let run: (args: string[]) => Promise<RunResult>;
    if (process.getuid?.() !== 0) run = (args) => cas(args, { env });
    else {
      // Root reads any file whatever its mode: the case needs another user. setpriv (util-linux) gives one.
      const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
      // The other user must reach the built cas: every folder above it searchable by others (a clone
      // inside a 0700 folder, such as mktemp -d's, is not), the file itself readable.
      const searchable = (p: string): boolean => {
        for (let d = path.dirname(p); ; d = path.dirname(d)) {
          if ((statSync(d).mode & 0o001) === 0) return false;
          if (d === path.dirname(d)) return true;
        }
      };
      const readable = (statSync(BIN).mode & 0o004) !== 0 && (statSync(path.dirname(BIN)).mode & 0o005) === 0o005 && searchable(BIN);
      if (!setpriv || !readable) {
        t.skip();
        return;
      }
      run = async (args) => {
        const r = await execa(setpriv, ['--reuid=65534', '--regid=65534', '--clear-groups', 'node', BIN, ...args], {
          reject: false,
          extendEnv: false,
          env,
          stdin: 'ignore',
          cwd: dir,
        });
        return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
      };
    }
    expectRefused(await run(['parse', file]), 2, /cannot read .*locked\.pdf: permission denied/);
    expectRefused(await run(['parse', PDF, '--password-file', file]), 2, /cannot read --password-file .*locked\.pdf: permission denied/);
  });

  it('file names that are not valid UTF-8: opened by their bytes (named or in a folder), shown escaped', async () => {
    const dir = tmpDir();
    const sub = path.join(dir, 'in');
    mkdirSync(sub);
    // A name with the byte 0xff (never valid UTF-8), written by its bytes.
    copyFileSync(PDF, Buffer.concat([Buffer.from(`${sub}/x`), Buffer.from([0xff]), Buffer.from('.pdf')]));
    expect(readdirSync(sub, { encoding: 'buffer' }).map((b) => b.includes(0xff))).toEqual([true]);
    const shell = (script: string): Promise<RunResult> =>
      execa('bash', ['-c', script, BIN], { reject: false, extendEnv: false, env: cleanEnv(), cwd: dir, stdin: 'ignore' }).then((r) => ({
        exitCode: r.exitCode ?? 1,
        stdout: String(r.stdout),
        stderr: String(r.stderr),
      }));
    const named = await shell(`exec node "$0" parse --json "in/x$(printf '\\377').pdf"`);
    expect(named.exitCode, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toHaveProperty('meta');
    const folder = await shell(`exec node "$0" parse --json in`);
    expect(folder.exitCode, folder.stderr).toBe(0);
    expect(JSON.parse(folder.stdout)).toHaveProperty('meta');
    const missing = await shell(`exec node "$0" parse --json "in/y$(printf '\\376').pdf"`);
    expectRefused(missing, 8, /no such file: in\/y\\xfe\.pdf/);
  });
});

describe('cas parse: where results are written', () => {
  it('-o naming a folder, or in a folder that does not exist: usage (exit 2) before anything is parsed', async () => {
    const dir = tmpDir();
    expectRefused(await cas(['parse', PDF, '-o', dir]), 2, /--output .* is a folder: name a file/);
    expectRefused(await cas(['parse', PDF, '-o', path.join(dir, 'no', 'such', 'out.json')]), 2, /the folder .* does not exist/);
  });

  it('--out-dir naming a file: usage (exit 2), not EEXIST; the file is left as it was', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'taken');
    writeFileSync(file, 'keep');
    expectRefused(await cas(['parse', PDF, '--out-dir', file]), 2, /--out-dir .*taken is a file, not a folder/);
    expect(statSync(file).size).toBe(4);
  });
});

describe('cas parse --jobs', () => {
  it(`--jobs past 4 per core is lowered to that cap with a warning; the batch still parses`, async () => {
    const dir = tmpDir();
    for (const n of [1, 2, 3]) copyFileSync(PDF, path.join(dir, `s${n}.pdf`));
    const r = await cas(['parse', '--jobs', '500', dir], { timeout: DEADLINE * 2 });
    const cap = 4 * os.availableParallelism();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: --jobs 500 is more than 4 per core (${os.availableParallelism()} cores here): using ${cap}`);
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
  });
});

describe('the config folder', () => {
  it('is created 0700 (its file 0600) even under umask 000', async () => {
    const parent = tmpDir();
    const dir = path.join(parent, 'made', 'cas');
    const r = await execa('bash', ['-c', 'umask 000; exec node "$0" config set base_url http://127.0.0.1:9', BIN], {
      reject: false,
      extendEnv: false,
      env: cleanEnv({ CAS_CONFIG_DIR: dir }),
      stdin: 'ignore',
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(path.join(dir, 'config.json')).mode & 0o777).toString(8)).toBe('600');
  });
});

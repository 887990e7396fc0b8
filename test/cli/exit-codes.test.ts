/**
 * The exit-code table (issue 20 item 5; src/errors.ts EXIT_CODES, `cas --help`, the README): each
 * row produced by the built `cas`, against a real `cas serve` where the row is about the service.
 * Each failure prints one line on stderr and nothing on stdout.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, ExitCode } from '../../src/errors.js';
import { cas, fixture, tmpDir, type RunResult } from '../helpers/cas.js';
import { newKey, serve, storeArgs, type Served } from '../helpers/server.js';

function expectFailure(r: RunResult, code: number, message: RegExp): void {
  expect({ code: r.exitCode, stderr: r.stderr }).toEqual({ code, stderr: expect.stringMatching(message) });
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('exit codes', () => {
  let srv: Served;
  let key: string;
  /** A stand-in for a broken service: HTTP 500 (JSON) on every request. */
  let broken: Server;
  let brokenUrl: string;
  let hits = 0;

  beforeAll(async () => {
    srv = await serve(undefined, ['--kyc-provider', 'none']);
    key = await newKey(srv.dataDir, ['--credits', '100']);
    broken = createServer((req, res) => {
      hits++;
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'failed', msg: 'database is locked' }));
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
    await new Promise<void>((resolve) => broken?.close(() => resolve()));
  });

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({ CAS_BASE_URL: srv.url, CAS_API_KEY: key, ...extra });

  it('the table has the documented codes, in order, and cas --help prints it', async () => {
    expect(EXIT_CODES.map(([c]) => c)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 130]);
    const help = await cas(['--help']);
    for (const [code, meaning] of EXIT_CODES) expect(help.stdout).toContain(`${String(code).padEnd(4)} ${meaning}`);
  });

  it('0: a statement parses', async () => {
    const r = await cas(['parse', fixture('registrar/cams-detailed-plain.pdf')]);
    expect(r.exitCode, r.stderr).toBe(ExitCode.OK);
    expect(JSON.parse(r.stdout)).toHaveProperty('meta');
  });

  it('2: an unknown flag, a bad flag value', async () => {
    expectFailure(
      await cas(['parse', '--no-such-flag', fixture('registrar/cams-detailed-plain.pdf')]),
      ExitCode.USAGE,
      /unknown option '--no-such-flag'/,
    );
    expectFailure(await cas(['parse', '--csv', 'lots', fixture('registrar/cams-detailed-plain.pdf')]), ExitCode.USAGE, /--csv/);
  });

  it('2: cas serve on a port (HTTP or SMTP) that is taken says so in one line', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    try {
      for (const flag of ['--port', '--smtp-port']) {
        const args = flag === '--port' ? ['--port', String(port)] : ['--port', '0', '--smtp-port', String(port)];
        const dataDir = tmpDir();
        const r = await cas(['serve', ...args, '--data-dir', dataDir, ...(await storeArgs(dataDir))], {
          env: { CAS_SECRET_KEY: '11'.repeat(32) },
        });
        expectFailure(
          r,
          ExitCode.USAGE,
          new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use .*choose another ${flag}`),
        );
      }
    } finally {
      busy.close();
    }
  });

  it('2: an invalid --base-url (or CAS_BASE_URL) is refused at once, not retried', async () => {
    for (const [args, extra, source] of [
      [['--base-url', 'not a url'], {}, '--base-url'],
      [['--base-url', 'ftp://127.0.0.1/'], {}, '--base-url'],
      [[], { CAS_BASE_URL: '127.0.0.1:8080' }, 'CAS_BASE_URL'],
    ] as const) {
      const started = Date.now();
      // A 5 s backoff would show if the request were retried.
      const r = await cas([...args, 'credits'], { env: { CAS_API_KEY: key, CAS_RETRIES: '3', CAS_BACKOFF_MS: '5000', ...extra } });
      expectFailure(r, ExitCode.USAGE, new RegExp(`${source} '.*' is not an http\\(s\\) URL`));
      expect(Date.now() - started).toBeLessThan(4000);
    }
  });

  it('3: a file that is not a PDF, a damaged PDF', async () => {
    expectFailure(await cas(['parse', fixture('bad/not-a-pdf.pdf')]), ExitCode.DOCUMENT, /not a PDF/);
    expect((await cas(['parse', fixture('bad/truncated.pdf')])).exitCode).toBe(ExitCode.DOCUMENT);
  });

  it('4: no API key, an invalid API key (a real cas serve)', async () => {
    expectFailure(await cas(['credits'], { env: { CAS_BASE_URL: srv.url } }), ExitCode.AUTH, /no API key/);
    expectFailure(await cas(['credits'], { env: env({ CAS_API_KEY: 'cas_live_wrong' }) }), ExitCode.AUTH, /invalid API key/);
  });

  it('--api-key-file: the key from a file works (0); a missing key file is 8, with --api-key too is 2', async () => {
    const file = path.join(tmpDir(), 'key');
    writeFileSync(file, `${key}\n`);
    const ok = await cas(['credits', '--json', '--api-key-file', file], { env: { CAS_BASE_URL: srv.url } });
    expect(ok.exitCode, ok.stderr).toBe(ExitCode.OK);
    expect(JSON.parse(ok.stdout)).toHaveProperty('remaining');
    expectFailure(
      await cas(['credits', '--api-key-file', `${file}.missing`], { env: { CAS_BASE_URL: srv.url } }),
      ExitCode.NOT_FOUND,
      /no such file: .*key\.missing/,
    );
    expectFailure(
      await cas(['credits', '--api-key-file', file, '--api-key', key], { env: { CAS_BASE_URL: srv.url } }),
      ExitCode.USAGE,
      /not both/,
    );
  });

  it('5: the service fails (HTTP 500 after the retries)', async () => {
    hits = 0;
    const r = await cas(['credits'], { env: { CAS_BASE_URL: brokenUrl, CAS_API_KEY: key, CAS_RETRIES: '2', CAS_BACKOFF_MS: '10' } });
    expectFailure(r, ExitCode.SERVICE, /the service failed: database is locked/);
    expect(hits).toBe(3);
  });

  it('6: nothing listens at the base URL (connection refused, after the retries); a host name that does not resolve', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    expectFailure(
      await cas(['credits'], { env: { CAS_BASE_URL: url, CAS_API_KEY: key, CAS_RETRIES: '1', CAS_BACKOFF_MS: '10' } }),
      ExitCode.NETWORK,
      /unreachable \(connection refused\) after 2 attempts/,
    );
    expectFailure(
      await cas(['credits'], { env: { CAS_BASE_URL: 'http://cas.invalid', CAS_API_KEY: key, CAS_RETRIES: '0' } }),
      ExitCode.NETWORK,
      /unreachable \(host name not found\)/,
    );
  });

  it('7: a feature the service is not configured for (503) prints the service message naming the setting', async () => {
    const r = await cas(['kyc', 'ABCDE1234F'], { env: env() });
    expectFailure(r, ExitCode.UNAVAILABLE, /CAS_KYC_PROVIDER/);
    const credits = await cas(['credits', '--json'], { env: env() });
    expect(JSON.parse(credits.stdout)).toMatchObject({ used: 0 }); // nothing charged for it
  });

  it('7: every service a self-hosted server was not configured for answers 503 naming its setting, said once at start-up', async () => {
    const dir = tmpDir();
    writeFileSync(path.join(dir, 'pw'), 'Secret@123\n');
    for (const [args, setting] of [
      [['fetch', '--pan', 'ABCPM1234K', '--bo-id', '1208160000123456', '--dob', '1990-01-31', '--no-input'], 'CAS_FETCH_PROVIDER'],
      [
        ['mailback', '--email', 'a@b.in', '--from', '2025-04-01', '--to', '2026-03-31', '--password-file', path.join(dir, 'pw')],
        'CAS_MAILBACK_PROVIDER',
      ],
      [['kyc', 'ABCPM1234K'], 'CAS_KYC_PROVIDER'],
      [
        ['locker', 'session', '--consent', '--purpose', 'account opening identity check', '--redirect-url', 'https://app.example/back'],
        'CAS_LOCKER_URL',
      ],
      [['inbox', 'connect', '--provider', 'gmail'], 'CAS_GMAIL_CLIENT_ID'],
    ] as const) {
      const r = await cas([...args], { env: env() });
      expectFailure(r, ExitCode.UNAVAILABLE, new RegExp(`^cas: .* is not configured on this server: set ${setting}\\b`));
      expect(srv.log()).toContain(`(${setting})`);
    }
    expect(srv.log()).toMatch(/^cas serve: not configured, so API keys get HTTP 503 naming the setting/m);
  });

  it('8: a missing file (alone, among others, as an option value); an id the service does not know (404)', async () => {
    expectFailure(await cas(['parse', '/nonexistent/statement.pdf']), ExitCode.NOT_FOUND, /no such file/);
    const mixed = await cas(['parse', '--jobs', '1', '/nonexistent/statement.pdf', fixture('registrar/cams-detailed-plain.pdf')]);
    expect(mixed.exitCode).toBe(ExitCode.NOT_FOUND);
    expect(mixed.stderr).toMatch(/1 of 2 files parsed; failed: \/nonexistent\/statement.pdf \(NotFound\)/);
    expectFailure(
      await cas(['parse', '--password-file', '/nonexistent/pw.txt', fixture('registrar/cams-detailed-plain.pdf')]),
      ExitCode.NOT_FOUND,
      /no such file: \/nonexistent\/pw.txt/,
    );
    expectFailure(await cas(['inbound', 'get', 'ie_doesnotexist'], { env: env() }), ExitCode.NOT_FOUND, /./);
  });
});

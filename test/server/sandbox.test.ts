/**
 * The sandbox (issue 20 items 2-4): six monthly depository_a statements of one example investor
 * (fixtures/sandbox/, test/fixtures/sandbox-data.ts), served by a real `cas serve` to the sandbox
 * key through the built `cas`, from the package's own files (an installed copy made of what
 * `npm pack` ships), and the self-hosted server's answers for what it was not configured for.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxManifest } from '../../src/server/sandbox.js';
import type { ParsedStatement } from '../../src/schema/index.js';
import { cas, cleanEnv, FIXTURES, ROOT, tmpDir } from '../helpers/cas.js';
import { newKey, post, serve, type Served } from '../helpers/server.js';

const SANDBOX_KEY = 'cas_sandbox_public_key';
const DIR = path.join(FIXTURES, 'sandbox');
const M = JSON.parse(readFileSync(path.join(DIR, 'manifest.json'), 'utf8')) as SandboxManifest;
const file = (rel: string): Buffer => readFileSync(path.join(DIR, rel));
const expected = (rel: string): any => JSON.parse(readFileSync(path.join(DIR, rel), 'utf8'));
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const START = { pan: M.investor.pan, bo_id: M.investor.bo_id, dob: M.investor.dob };

/** Every holding of a statement by account and ISIN: [open, close] units. */
function balances(st: any): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const acc of st.demat_accounts)
    for (const list of Object.values(acc.holdings) as any[][])
      for (const h of list)
        out.set(`${acc.dp_id}${acc.client_id} ${h.isin}`, [h.additional_info.open_units, h.additional_info.close_units]);
  return out;
}

describe('the sandbox set: one example investor, six months', () => {
  const months = M.depository_a.map((s) => ({ ...s, data: expected(s.expected), bytes: file(s.path) }));

  it('six statements newest first, each with its own month, period, file name, transactions and bytes', () => {
    expect(months).toHaveLength(6);
    const MON = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
    for (const [i, s] of months.entries()) {
      expect(s.data.meta.statement_period).toEqual(s.period);
      const [y, m] = s.period.from.split('-').map(Number);
      expect(path.basename(s.path)).toBe(`${MON[m - 1]}${y}_${s.data.investor.cas_id}_TXN.pdf`);
      if (i > 0) expect(Date.parse(months[i - 1].period.from)).toBe(Date.UTC(m === 12 ? y + 1 : y, m % 12, 1)); // the month after
      const dates = s.data.demat_accounts.flatMap((a: any) =>
        (Object.values(a.holdings) as any[][]).flat().flatMap((h: any) => h.transactions.map((t: any) => t.date)),
      );
      expect(dates.length).toBeGreaterThan(0);
      for (const d of dates) expect(d >= s.period.from && d <= s.period.to, d).toBe(true);
    }
    expect(new Set(months.map((s) => sha(s.bytes))).size).toBe(6);
    expect(new Set(months.map((s) => s.data.summary.total_value)).size).toBe(6);
  });

  it('holdings carry over: each month opens with the closing balances of the month before', () => {
    for (let i = 0; i < months.length - 1; i++) {
      const later = balances(months[i].data);
      const earlier = balances(months[i + 1].data);
      expect([...later.keys()].sort()).toEqual([...earlier.keys()].sort());
      for (const [k, [open]] of later) expect(open, `${months[i].period.from} ${k}`).toBe(earlier.get(k)![1]);
    }
  });

  it('one investor throughout: the statements and the mailbox files name the manifest investor, whose PAN is the password', () => {
    expect(M.password).toBe(M.investor.pan);
    for (const e of [...M.depository_a, ...M.inbox]) {
      const st = expected(e.expected);
      // registrar_a prints the name as the investor wrote it, the depository in capitals.
      expect({ ...st.investor, name: st.investor.name.toUpperCase() }).toMatchObject({
        name: M.investor.name,
        pan: M.investor.pan,
        email: M.investor.email,
        mobile: M.investor.mobile,
      });
    }
    const bo = months[0].data.demat_accounts.map((a: any) => a.bo_id);
    expect(bo).toContain(M.investor.bo_id);
  });

  it('the example PAN opens every sandbox PDF and each parses to its own expected JSON; the README PAN of old does not', async () => {
    for (const e of [...M.depository_a, ...M.inbox.filter((x) => x.source !== 'depository_a')]) {
      const r = await cas(['parse', '--json', '--password', M.password, path.join(DIR, e.path)]);
      expect(r.exitCode, `${e.path}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout), e.path).toEqual(expected(e.expected));
    }
    const wrong = await cas(['parse', '--json', '--password', 'ABCDE1234F', path.join(DIR, M.depository_a[0].path)]);
    expect(wrong.exitCode).toBe(3);
    expect(wrong.stderr).toMatch(/password/i);
  }, 60_000);
});

describe('cas serve with the sandbox key', () => {
  let srv: Served;
  let key: string;
  beforeAll(async () => {
    srv = await serve();
    key = await newKey(srv.dataDir, ['--credits', '10']);
  }, 30_000);
  afterAll(async () => {
    await srv?.stop();
  });
  const env = (apiKey = SANDBOX_KEY): Record<string, string> => ({ CAS_API_KEY: apiKey, CAS_BASE_URL: srv.url });

  it('cas fetch + cas verify-otp for six periods: six different statements, newest first, each parsing to its own expected JSON', async () => {
    const out = tmpDir();
    const a = await cas(['fetch', '--pan', START.pan, '--bo-id', START.bo_id, '--dob', START.dob, '--no-input'], { env: env() });
    expect(a.exitCode, a.stderr).toBe(0);
    const b = await cas(
      ['verify-otp', JSON.parse(a.stdout).session_id, '--otp', '123456', '--periods', '6', '--out-dir', out, '--parse', '--pan', START.pan],
      { env: env() },
    );
    expect(b.exitCode, b.stderr).toBe(0);
    // Each line names its saved file first (source_file), then the document.
    const lines = b.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { source_file: string });
    expect(lines.map((l) => path.dirname(l.source_file))).toEqual(lines.map(() => out));
    const docs = lines.map(({ source_file: _, ...doc }) => doc as unknown as ParsedStatement);
    expect(docs).toEqual(M.depository_a.map((s) => expected(s.expected)));
    expect(new Set(docs.map((d) => d.meta.statement_period.from)).size).toBe(6);
    expect(readdirSync(out).sort()).toEqual(M.depository_a.map((s) => path.basename(s.path)).sort());
    for (const s of M.depository_a) expect(readFileSync(path.join(out, path.basename(s.path))).equals(file(s.path))).toBe(true);
  }, 60_000);

  it('fewer periods are the most recent ones; the answer names the password', async () => {
    const s = await post(srv.url, '/v4/depository_a/fetch', { key: SANDBOX_KEY, json: START });
    const v = await post(srv.url, `/v4/depository_a/fetch/${s.body.session_id}/verify`, {
      key: SANDBOX_KEY,
      json: { otp: '123456', num_periods: 3 },
    });
    expect(v.status).toBe(200);
    expect(v.body.files.map((f: { filename: string }) => f.filename)).toEqual(M.depository_a.slice(0, 3).map((x) => path.basename(x.path)));
    expect(v.body.msg).toContain(`password: ${M.password}`);
  });

  it('the sandbox mailbox holds the same investor: the registrar_a statement and the latest monthly one', async () => {
    const c = await post(srv.url, '/v4/inbox/connect', { key: SANDBOX_KEY, json: { redirect_uri: 'http://127.0.0.1:9/back' } });
    expect(c.status).toBe(200);
    const back = await fetch(c.body.oauth_url, { redirect: 'manual' });
    const token = new URL(back.headers.get('location')!).searchParams.get('inbox_token')!;
    const list = await post(srv.url, '/v4/inbox/cas', { key: SANDBOX_KEY, json: {}, headers: { 'x-inbox-token': token } });
    expect(list.status).toBe(200);
    expect(list.body.files.map((f: any) => [f.cas_type, f.sender_email, f.original_filename])).toEqual(
      M.inbox.map((m) => [m.source, m.sender, m.filename]),
    );
    for (const [i, f] of list.body.files.entries())
      expect(Buffer.from(await (await fetch(f.url)).arrayBuffer()).equals(file(M.inbox[i].path))).toBe(true);
    const one = await post(srv.url, '/v4/inbox/cas', {
      key: SANDBOX_KEY,
      json: { cas_types: ['depository_a'] },
      headers: { 'x-inbox-token': token },
    });
    expect(one.body.files.map((f: any) => f.original_filename)).toEqual([path.basename(M.depository_a[0].path)]);
  });

  it('gmail connect with no OAuth client configured fails at once (exit 7) naming CAS_GMAIL_CLIENT_ID', async () => {
    const started = Date.now();
    const r = await cas(['inbox', 'connect', '--provider', 'gmail'], { env: { ...env(key), CAS_CONNECT_TIMEOUT_MS: '600000' } });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/gmail mailbox connect is not configured on this server: set CAS_GMAIL_CLIENT_ID/);
    expect(r.stdout).toBe('');
  });
});

describe('sandbox data resolved from the package root (an installed copy of what npm pack ships)', () => {
  let pkg: string;
  let proc: ReturnType<typeof execa> | undefined;
  let log = '';
  let url = '';
  beforeAll(async () => {
    // The files `npm pack` would put in the tarball, copied to a folder of their own (node_modules beside them).
    const packed = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
    const files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
    pkg = path.join(tmpDir('cas-installed-'), 'cas');
    for (const f of files) {
      mkdirSync(path.dirname(path.join(pkg, f)), { recursive: true });
      cpSync(path.join(ROOT, f), path.join(pkg, f));
    }
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
    // Started from another folder: nothing may be found relative to the working directory.
    proc = execa('node', [path.join(pkg, 'bin/cas.js'), 'serve', '--port', '0', '--data-dir', tmpDir('cas-srv-')], {
      cwd: tmpDir('cas-cwd-'),
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start: ${log}`)), 20_000);
      proc!.stderr!.on('data', (d: Buffer) => {
        log += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
  }, 60_000);
  afterAll(async () => {
    proc?.kill('SIGTERM');
    await proc;
  });

  const verify = async (n: number) => {
    const s = await post(url, '/v4/depository_a/fetch', { key: SANDBOX_KEY, json: START });
    return post(url, `/v4/depository_a/fetch/${s.body.session_id}/verify`, { key: SANDBOX_KEY, json: { otp: '123456', num_periods: n } });
  };

  it('the installed copy serves the sandbox statements and the sandbox parse sample', async () => {
    const v = await verify(2);
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    for (const [i, f] of v.body.files.entries())
      expect(Buffer.from(await (await fetch(f.url)).arrayBuffer()).equals(file(M.depository_a[i].path))).toBe(true);
    const p = await post(url, '/v4/depository_a/parse', {
      key: SANDBOX_KEY,
      json: { pdf_file: file(M.depository_a[0].path).toString('base64'), password: M.password },
    });
    expect(p.status).toBe(200);
    expect(p.body.investor.pan).toBe(M.investor.pan);
  });

  it('a missing sample answers 503 naming the file (no stack trace), and the CLI exits 7 with that message', async () => {
    rmSync(path.join(pkg, 'fixtures/sandbox'), { recursive: true, force: true });
    rmSync(path.join(pkg, 'fixtures/expected'), { recursive: true, force: true });
    // The manifest read by the earlier test is cached; a file it names is read on every request.
    const v = await verify(1);
    expect(v.status).toBe(503);
    expect(v.body).toEqual({
      status: 'failed',
      msg: expect.stringMatching(/sandbox data is missing from this installation: fixtures\/sandbox\//),
    });
    const s = await cas(['fetch', '--pan', START.pan, '--bo-id', START.bo_id, '--dob', START.dob, '--no-input'], {
      env: { CAS_API_KEY: SANDBOX_KEY, CAS_BASE_URL: url },
    });
    const r = await cas(['verify-otp', JSON.parse(s.stdout).session_id, '--otp', '123456', '--periods', '1', '--out-dir', tmpDir()], {
      env: { CAS_API_KEY: SANDBOX_KEY, CAS_BASE_URL: url },
    });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/^cas: the sandbox data is missing from this installation: fixtures\/sandbox\//);
    const p = await post(url, '/v4/registrar_a_registrar_b/parse', {
      key: SANDBOX_KEY,
      json: { pdf_file: file(M.depository_a[0].path).toString('base64'), password: M.password },
    });
    expect(p.status).toBe(503);
    expect(p.body.msg).toMatch(/fixtures\/expected\/registrar-detailed\.json/);
    expect(log).not.toMatch(/\n\s+at /);
  });
});

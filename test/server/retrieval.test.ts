import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ptyExited } from '../helpers/pty.js';
import http from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import * as pty from 'node-pty';
import { BIN, cas, cleanEnv, expectedJson, fixture, ROOT, tmpDir } from '../helpers/cas.js';
import { newKey, post, serve, type Served } from '../helpers/server.js';

const SANDBOX = 'cas_sandbox_public_key';
const START = { pan: 'ABCPM1234K', bo_id: '1208160000123456', dob: '1990-01-31' };
const SAMPLE = readFileSync(fixture('depository_a/cdsl-cas.pdf'));
/** The sandbox's monthly statements, newest first (fixtures/sandbox/manifest.json). */
const SANDBOX_MONTHS = (
  JSON.parse(readFileSync(fixture('sandbox/manifest.json'), 'utf8')) as { depository_a: { path: string; expected: string }[] }
).depository_a.map((s) => ({
  name: path.basename(s.path),
  bytes: readFileSync(fixture(`sandbox/${s.path}`)),
  expected: `sandbox/${s.expected}`,
}));

/** A scripted upstream speaking the documented http provider contract. */
function upstream(): Promise<{ url: string; close: () => void; calls: string[] }> {
  const calls: string[] = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = body ? JSON.parse(body) : {};
      calls.push(`${req.url} ${json.pan ?? json.ref ?? ''}`);
      const send = (status: number, data: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      if (req.url === '/depository_a/start') {
        if (json.pan === 'FAILS5000X') return send(503, { error: 'down' });
        if (json.pan === 'SLOWW1000X') return setTimeout(() => send(200, { ref: 'late' }), 3000);
        return send(200, { ref: `up_${json.pan}` });
      }
      if (req.url === '/depository_a/verify') {
        if (json.otp !== '654321') return send(401, { error: 'wrong_otp' });
        return send(200, {
          files: Array.from({ length: json.num_periods }, (_, i) => ({
            filename: `M${i}_TXN.pdf`,
            content_base64: SAMPLE.toString('base64'),
          })),
        });
      }
      if (req.url === '/registrar_b/mailback') return send(200, {});
      send(404, {});
    });
  });
  return new Promise((resolve) =>
    srv.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, close: () => srv.close(), calls }),
    ),
  );
}

let srv: Served;
let up: Awaited<ReturnType<typeof upstream>>;
let key: string;

beforeAll(async () => {
  up = await upstream();
  srv = await serve(undefined, ['--fetch-provider', 'http', '--mailback-provider', 'sandbox', '--upstream-url', up.url], {
    CAS_UPSTREAM_TIMEOUT_MS: '1000',
    CAS_SESSION_TTL_SECONDS: '600',
    CAS_LINK_TTL_SECONDS: '600',
  });
  key = await newKey(srv.dataDir, ['--credits', '50']);
});
afterAll(async () => {
  await srv?.stop();
  up?.close();
});

describe('depository_a OTP fetch over HTTP', () => {
  it('the whole flow with the sandbox key: wrong OTP, right OTP, signed links that return the PDFs', async () => {
    const s = await post(srv.url, '/v4/depository_a/fetch', { key: SANDBOX, json: START });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ status: 'success', session_id: expect.stringMatching(/^fs_/) });
    const wrong = await post(srv.url, `/v4/depository_a/fetch/${s.body.session_id}/verify`, { key: SANDBOX, json: { otp: '000000' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toBe('incorrect OTP; 2 attempts left');
    const ok = await post(srv.url, `/v4/depository_a/fetch/${s.body.session_id}/verify`, {
      key: SANDBOX,
      json: { otp: '123456', num_periods: 3 },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.files).toHaveLength(3);
    // The three most recent of the sandbox's six monthly statements, each its own file.
    for (const [i, f] of ok.body.files.entries()) {
      expect(f.filename).toMatch(/^[A-Z]{3}\d{4}_AA07602549_TXN\.pdf$/);
      expect(f.filename).toBe(SANDBOX_MONTHS[i].name);
      const res = await fetch(f.url);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(SANDBOX_MONTHS[i].bytes)).toBe(true);
    }
    const tampered = ok.body.files[0].url.replace(/sig=([0-9a-f])/, (_m: string, c: string) => `sig=${c === 'a' ? 'b' : 'a'}`);
    const t = await fetch(tampered);
    expect(t.status).toBe(403);
    expect(((await t.json()) as { msg: string }).msg).toMatch(/invalid or tampered/);
    const otherFile = ok.body.files[0].url.replace(/\/files\/[0-9a-f]{4}/, '/files/ffff');
    expect((await fetch(otherFile)).status).toBe(403);
    const reuse = await post(srv.url, `/v4/depository_a/fetch/${s.body.session_id}/verify`, { key: SANDBOX, json: { otp: '123456' } });
    expect(reuse.status).toBe(400);
    expect(reuse.body.msg).toMatch(/already used/);
  });

  it('validates the first step', async () => {
    for (const [body, re] of [
      [{ ...START, pan: 'ABC' }, /pan/],
      [{ ...START, bo_id: '12345' }, /16-digit BO ID/],
      [{ ...START, dob: '2999-01-01' }, /real date in the past/],
      [{ ...START, dob: '1990-02-30' }, /dob/],
    ] as const) {
      const r = await post(srv.url, '/v4/depository_a/fetch', { key, json: body });
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(re);
    }
  });

  it('a scripted upstream: wrong OTPs lock the session, reuse and unknown sessions are refused, success is billed once', async () => {
    const before = (await post(srv.url, '/v1/credits', { key })).body.remaining;
    const s1 = (await post(srv.url, '/v4/depository_a/fetch', { key, json: START })).body.session_id;
    for (const left of ['2 attempts left', '1 attempt left'])
      expect((await post(srv.url, `/v4/depository_a/fetch/${s1}/verify`, { key, json: { otp: '111111' } })).body.msg).toMatch(left);
    const locked = await post(srv.url, `/v4/depository_a/fetch/${s1}/verify`, { key, json: { otp: '111111' } });
    expect(locked.body.msg).toMatch(/no attempts left/);
    expect((await post(srv.url, `/v4/depository_a/fetch/${s1}/verify`, { key, json: { otp: '654321' } })).body.msg).toMatch(/locked/);
    const s2 = (await post(srv.url, '/v4/depository_a/fetch', { key, json: START })).body.session_id;
    const ok = await post(srv.url, `/v4/depository_a/fetch/${s2}/verify`, { key, json: { otp: '654321', num_periods: 2 } });
    expect(ok.status).toBe(200);
    expect(ok.body.files.map((f: { filename: string }) => f.filename)).toEqual(['M0_TXN.pdf', 'M1_TXN.pdf']);
    expect((await post(srv.url, `/v4/depository_a/fetch/${s2}/verify`, { key, json: { otp: '654321' } })).body.msg).toMatch(/already used/);
    const unknown = await post(srv.url, '/v4/depository_a/fetch/fs_nope/verify', { key, json: { otp: '654321' } });
    expect(unknown.status).toBe(404);
    const other = await newKey(srv.dataDir, ['--credits', '5']);
    expect((await post(srv.url, `/v4/depository_a/fetch/${s2}/verify`, { key: other, json: { otp: '654321' } })).status).toBe(404);
    expect((await post(srv.url, '/v1/credits', { key })).body.remaining).toBe(before - 1);
    // Three wrong OTPs and one right one reach the upstream; locked, used and unknown sessions never do.
    expect(up.calls.filter((c) => c.startsWith('/depository_a/verify')).length).toBe(4);
  });

  it('upstream failure is 502, upstream timeout is 504', async () => {
    const f = await post(srv.url, '/v4/depository_a/fetch', { key, json: { ...START, pan: 'FAILS5000X' } });
    expect(f.status).toBe(502);
    expect(f.body.msg).toMatch(/upstream failed \(HTTP 503\)/);
    const t = await post(srv.url, '/v4/depository_a/fetch', { key, json: { ...START, pan: 'SLOWW1000X' } });
    expect(t.status).toBe(504);
    expect(t.body.msg).toMatch(/did not answer within 1000 ms/);
  });

  it('sessions and links expire', async () => {
    const short = await serve(undefined, ['--fetch-provider', 'sandbox'], { CAS_SESSION_TTL_SECONDS: '1', CAS_LINK_TTL_SECONDS: '1' });
    try {
      const k = await newKey(short.dataDir, ['--credits', '5']);
      const a = (await post(short.url, '/v4/depository_a/fetch', { key: k, json: START })).body.session_id;
      const b = (await post(short.url, '/v4/depository_a/fetch', { key: k, json: START })).body.session_id;
      const ok = await post(short.url, `/v4/depository_a/fetch/${b}/verify`, { key: k, json: { otp: '123456', num_periods: 1 } });
      expect(ok.status).toBe(200);
      await new Promise((r) => setTimeout(r, 2100));
      const late = await post(short.url, `/v4/depository_a/fetch/${a}/verify`, { key: k, json: { otp: '123456' } });
      expect(late.status).toBe(400);
      expect(late.body.msg).toMatch(/expired/);
      const link = await fetch(ok.body.files[0].url);
      expect(link.status).toBe(403);
      expect(((await link.json()) as { msg: string }).msg).toMatch(/expired/);
    } finally {
      await short.stop();
    }
  });
});

describe('registrar_b mailback', () => {
  const good = { email: 'aarav@example.in', from_date: '2025-04-01', to_date: '2026-03-31', password: 'Secret@123', pan_no: 'abcpm1234k' };
  it('succeeds (sandbox provider: no email sent) and says what to expect', async () => {
    const r = await post(srv.url, '/v4/registrar_b/generate', { key, json: good });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'success', msg: expect.stringMatching(/password-protected statement .* to a\*\*\*@example\.in/) });
  });
  it.each([
    ['a bad email', { email: 'aarav-at-example' }, /email: must be a valid email address/],
    ['dates in the wrong order', { from_date: '2026-03-31', to_date: '2025-04-01' }, /from_date must not be after to_date/],
    ['a future date', { to_date: '2999-01-01' }, /cannot be in the future/],
    ['an impossible date', { from_date: '2025-02-30' }, /from_date/],
    ['a short password', { password: 'S@1a' }, /at least 8 characters/],
    ['a password without a special character', { password: 'Secret1234' }, /special character/],
    ['a password without upper case', { password: 'secret@123' }, /upper-case/],
    ['a bad PAN', { pan_no: 'ABCD1234' }, /pan_no/],
  ])('refuses %s with a clear 400', async (_n, change, re) => {
    const r = await post(srv.url, '/v4/registrar_b/generate', { key, json: { ...good, ...change } });
    expect(r.status).toBe(400);
    expect(r.body.msg).toMatch(re);
  });
});

describe('CLI retrieval', () => {
  it('scripted two steps with no terminal: cas fetch prints the session, cas verify-otp completes and parses', async () => {
    const out = tmpDir();
    const env = { CAS_API_KEY: key, CAS_BASE_URL: srv.url };
    const a = await cas(['fetch', '--pan', 'abcpm1234k', '--bo-id', START.bo_id, '--dob', START.dob], { env });
    expect(a.exitCode).toBe(0);
    const session = JSON.parse(a.stdout);
    expect(session.session_id).toMatch(/^fs_/);
    const b = await cas(
      ['verify-otp', session.session_id, '--otp', '654321', '--periods', '2', '--out-dir', out, '--parse', '--pan', 'ABCPM1234K'],
      { env },
    );
    expect(b.stderr).toMatch(/2 statements saved/);
    expect(b.exitCode).toBe(0);
    // Each line names its saved file first (source_file), then the document.
    const lines = b.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { source_file: string });
    expect(lines.map((l) => path.basename(l.source_file)).sort()).toEqual(['M0_TXN.pdf', 'M1_TXN.pdf']);
    const docs = lines.map(({ source_file: _, ...doc }) => doc);
    expect(docs).toEqual([expectedJson('expected/depository_a.json'), expectedJson('expected/depository_a.json')]);
    expect(readdirSync(out).sort()).toEqual(['M0_TXN.pdf', 'M1_TXN.pdf']);
  });

  it('--parse on a pipe follows the password rules of cas parse: CAS_PDF_PASSWORD opens the statements without --pan', async () => {
    const env = { CAS_API_KEY: key, CAS_BASE_URL: srv.url, CAS_PDF_PASSWORD: 'ABCPM1234K' };
    const a = await cas(['fetch', '--pan', START.pan, '--bo-id', START.bo_id, '--dob', START.dob], { env });
    const session = JSON.parse(a.stdout) as { session_id: string };
    const out = tmpDir();
    const b = await cas(['verify-otp', session.session_id, '--otp', '654321', '--periods', '1', '--out-dir', out, '--parse'], { env });
    expect(b.exitCode, b.stderr).toBe(0);
    // The line names the saved file first (source_file), then the document.
    const { source_file, ...doc } = JSON.parse(b.stdout) as { source_file: string };
    expect(path.dirname(source_file)).toBe(out);
    expect(doc).toEqual(expectedJson('expected/depository_a.json'));
  });

  it('interactive on a terminal: a wrong OTP, then the right one; the PDFs land in the folder and parse', async () => {
    const out = tmpDir();
    const result = await new Promise<{ code: number; screen: string }>((resolve) => {
      const p = pty.spawn(
        'node',
        [BIN, 'fetch', '--pan', START.pan, '--bo-id', START.bo_id, '--dob', START.dob, '--periods', '2', '--out-dir', out, '--parse'],
        {
          cols: 200,
          rows: 50,
          cwd: ROOT,
          env: cleanEnv({ NO_COLOR: '1', CAS_API_KEY: SANDBOX, CAS_BASE_URL: srv.url }) as Record<string, string>,
        },
      );
      let screen = '';
      let step = 0;
      p.onData((d) => {
        screen += d;
        if (step === 0 && /OTP:/.test(screen)) {
          step = 1;
          p.write('999999\r');
        } else if (step === 1 && /2 attempts left/.test(screen)) {
          step = 2;
          setTimeout(() => p.write('123456\r'), 100);
        }
      });
      void ptyExited(p).then((exitCode) => resolve({ code: exitCode, screen }));
    });
    expect(result.code, result.screen).toBe(0);
    expect(result.screen).toMatch(/2 statements saved/);
    expect(result.screen).toMatch(/│ Statement +│ depository_a statement/); // a terminal gets the statement tables (issue 20 item 7)
    expect(readdirSync(out).sort()).toEqual(
      SANDBOX_MONTHS.slice(0, 2)
        .map((m) => m.name)
        .sort(),
    );
    for (const m of SANDBOX_MONTHS.slice(0, 2)) {
      const parsed = await cas(['parse', path.join(out, m.name), '--password', 'ABCPM1234K']);
      expect(JSON.parse(parsed.stdout)).toEqual(expectedJson(m.expected));
    }
  });

  it('cas mailback checks the password rule locally and reads it from a file', async () => {
    const dir = tmpDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(dir, 'weak'), 'password\n');
    writeFileSync(path.join(dir, 'good'), 'Secret@123\n');
    const env = { CAS_API_KEY: key, CAS_BASE_URL: srv.url };
    const weak = await cas(
      ['mailback', '--email', 'a@b.in', '--from', '2025-04-01', '--to', '2026-03-31', '--password-file', path.join(dir, 'weak')],
      { env },
    );
    expect(weak.exitCode).toBe(2);
    expect(weak.stderr).toMatch(/upper-case/);
    const ok = await cas(
      ['mailback', '--email', 'a@b.in', '--from', '2025-04-01', '--to', '2026-03-31', '--password-file', path.join(dir, 'good')],
      { env },
    );
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout).status).toBe('success');
    expect(ok.stderr).toMatch(/password-protected PDF/);
    expect(ok.stderr + ok.stdout).not.toContain('Secret@123');
  });
});

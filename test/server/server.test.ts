import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cas, expectedJson, fixture } from '../helpers/cas.js';
import { newKey, PG, post, serve, serveAdmin, waitForAsync, type Served } from '../helpers/server.js';
import { BILLED, FEATURES, PRICES } from '../../src/server/billing.js';
import type { RouteMeta } from '../../src/server/context.js';

const SANDBOX = 'cas_sandbox_public_key';
const pdf = (p: string): Buffer => readFileSync(fixture(p));
const b64 = (p: string): string => pdf(p).toString('base64');

function form(fields: Record<string, string | Buffer>, fileField = 'pdf_file'): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (Buffer.isBuffer(v))
      fd.append(k === '$file' ? fileField : k, new Blob([new Uint8Array(v)], { type: 'application/pdf' }), 'statement.pdf');
    else fd.append(k, v);
  }
  return fd;
}

let srv: Served;
let key: string;
let fileServer: http.Server;
let fileUrl: string;
// The billing tests send 200 uploads at once on one key: the caps on uploads in flight (18.7, tested
// in security.test.ts) are raised so that every one of them reaches billing.
const WIDE = { CAS_MAX_UPLOADS: '256', CAS_MAX_UPLOADS_PER_KEY: '256' };

beforeAll(async () => {
  srv = await serve(undefined, [], WIDE);
  key = await newKey(srv.dataDir, ['--credits', '1000']);
  fileServer = http.createServer((req, res) => {
    if (req.url === '/cas.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(pdf('registrar/cams-detailed-plain.pdf'));
    } else if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://127.0.0.2:1/private.pdf' });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', () => r()));
  fileUrl = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await srv?.stop();
  fileServer?.close();
});

describe('authentication and request ids', () => {
  it('401 without a key, naming the header; 403 for an invalid key; X-Request-ID everywhere', async () => {
    const a = await post(srv.url, '/v1/credits');
    expect(a.status).toBe(401);
    expect(a.body).toEqual({ status: 'failed', msg: expect.stringMatching(/x-api-key header/) });
    expect(a.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]+$/);
    const b = await post(srv.url, '/v1/credits', { key: 'cas_live_nope' });
    expect(b.status).toBe(403);
    expect(b.body).toEqual({ status: 'failed', msg: 'invalid API key' });
    const c = await post(srv.url, '/v9/nothing', { key });
    expect(c.status).toBe(404);
    expect(c.body.status).toBe('failed');
    expect(c.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('echoes a client req_ id and replaces anything else', async () => {
    const a = await post(srv.url, '/v1/credits', { key, headers: { 'x-request-id': 'req_client123' } });
    expect(a.headers.get('x-request-id')).toBe('req_client123');
    const b = await post(srv.url, '/v1/credits', { key, headers: { 'x-request-id': 'evil id' } });
    expect(b.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]+$/);
    expect(b.headers.get('x-request-id')).not.toBe('evil id');
  });

  it('402 when credits run out; 403 when the rate is exceeded', async () => {
    const poor = await newKey(srv.dataDir, ['--credits', '0']);
    const r = await post(srv.url, '/v4/smart/parse', {
      key: poor,
      json: { pdf_file: b64('registrar/cams-summary.pdf'), password: 'ABCPM1234K' },
    });
    expect(r.status).toBe(402);
    expect(r.body.msg).toMatch(/insufficient credits/);
    const slow = await newKey(srv.dataDir, ['--credits', '5', '--rate', '2/min']);
    expect((await post(srv.url, '/v1/credits', { key: slow })).status).toBe(200);
    expect((await post(srv.url, '/v1/credits', { key: slow })).status).toBe(200);
    const third = await post(srv.url, '/v1/credits', { key: slow });
    expect(third.status).toBe(403);
    expect(third.body.msg).toMatch(/quota exceeded: at most 2 requests per minute/);
  });

  it('malformed JSON is a 400 with the error body and no stack trace', async () => {
    const r = await post(srv.url, '/v4/smart/parse', { key, body: '{"pdf_file": ', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: 'failed', msg: 'malformed JSON body' });
  });
});

describe('access tokens', () => {
  it('are created with the key, work on /v4/*, and follow the rules', async () => {
    const t = await post(srv.url, '/v1/token', { key, json: { expiry_minutes: 5 } });
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ status: 'success', token_type: 'api_key', expires_in: 300 });
    const token = t.body.access_token as string;
    expect(token).toMatch(/^at_/);
    const def = await post(srv.url, '/v1/token', { key, json: {} });
    expect(def.body.expires_in).toBe(3600);
    expect((await post(srv.url, '/v1/token', { key, json: { expiry_minutes: 61 } })).status).toBe(400);

    const parsed = await post(srv.url, '/v4/registrar_a_registrar_b/parse', {
      key: token,
      body: form({ $file: pdf('registrar/cams-summary.pdf'), password: 'ABCPM1234K' }),
    });
    expect(parsed.status).toBe(200);
    expect(parsed.body).toEqual(expectedJson('expected/registrar-summary.json'));

    const again = await post(srv.url, '/v1/token', { key: token, json: {} });
    expect(again.status).toBe(403);
    expect(again.body.msg).toMatch(/cannot create other tokens/);
    const logs = await post(srv.url, '/v1/usage', { key: token, json: {} });
    expect(logs.status).toBe(403);
    expect(logs.body).toEqual({ detail: expect.stringMatching(/access tokens cannot read usage logs/) });

    const ok = await post(srv.url, '/v1/token/verify', { key, json: { access_token: token } });
    expect(ok.body).toMatchObject({ status: 'success', valid: true, error: null });
    expect(ok.body.masked_api_key).toMatch(/^cas_live_\*+$/);
    const bad = await post(srv.url, '/v1/verify-token', { key, json: { access_token: 'at_forged' } });
    expect(bad.body).toMatchObject({ valid: false, error: 'unknown token' });
  });
});

describe('sandbox key', () => {
  it('returns sample data, uses no credits, checks no password, and allows 10 requests a minute', async () => {
    const s = await post(srv.url, '/v4/smart/parse', { key: SANDBOX, body: form({ $file: Buffer.from('%PDF-1.4 anything') }, 'file') });
    expect(s.status).toBe(200);
    expect(s.body).toEqual(expectedJson('expected/depository_a.json'));
    expect(s.headers.get('x-credits-used')).toBe('0');
    const b = await post(srv.url, '/v4/depository_b/parse', { key: SANDBOX, json: { pdf_file: b64('depository_b/nsdl-cas.pdf') } });
    expect(b.body).toEqual(expectedJson('expected/depository_b.json'));
    const r = await post(srv.url, '/v4/registrar_a_registrar_b/parse', {
      key: SANDBOX,
      json: { pdf_url: 'https://example.invalid/x.pdf' },
    });
    expect(r.body.meta.cas_type).toBe('REGISTRAR_A_REGISTRAR_B');
    const c = await post(srv.url, '/v1/credits', { key: SANDBOX });
    expect(c.body).toMatchObject({ is_unlimited: true, remaining: null });
    const t = await post(srv.url, '/v1/token', { key: SANDBOX, json: {} });
    const viaToken = await post(srv.url, '/v4/depository_a/parse', {
      key: t.body.access_token,
      json: { pdf_file: b64('registrar/cams-summary.pdf') },
    });
    expect(viaToken.status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(srv.url, '/v1/credits', { key: SANDBOX })).status);
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses.slice(4)).toEqual([403, 403]);
  });
});

describe('parse endpoints', () => {
  it('JSON base64 and multipart give the goldens; the credits headers follow', async () => {
    const j = await post(srv.url, '/v4/depository_a/parse', {
      key,
      json: { pdf_file: b64('depository_a/cdsl-cas.pdf'), password: 'ABCPM1234K' },
    });
    expect(j.status).toBe(200);
    expect(j.body).toEqual(expectedJson('expected/depository_a.json'));
    expect(j.headers.get('x-credits-used')).toBe('1');
    expect(Number(j.headers.get('x-credits-remaining'))).toBeGreaterThan(0);
    const m = await post(srv.url, '/v4/smart/parse', {
      key,
      body: form({ $file: pdf('registrar/kfintech-detailed.pdf'), password: 'ABCPM1234K' }, 'file'),
    });
    expect(m.body).toEqual(expectedJson('expected/registrar-detailed.json'));
    const cn = await post(srv.url, '/v4/contract_note/parse', {
      key,
      body: form({ $file: pdf('contract_note/broker_c.pdf'), password: 'ABCPM1234K', broker_type: 'broker_c' }),
    });
    expect(cn.body).toEqual(expectedJson('expected/contract-note-broker_c.json'));
  });

  it('pdf_url is fetched from an allowed loopback host; private and loopback targets are refused', async () => {
    const ok = await post(srv.url, '/v4/registrar_a_registrar_b/parse', { key, json: { pdf_url: `${fileUrl}/cas.pdf` } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(expectedJson('expected/registrar-detailed.json'));
    for (const u of [
      'http://10.0.0.1/cas.pdf',
      'http://127.0.0.2:9/cas.pdf',
      'http://[::1]:9/cas.pdf',
      'http://169.254.169.254/latest',
      `${fileUrl}/redirect`,
      'ftp://example.com/x.pdf',
    ]) {
      const r = await post(srv.url, '/v4/registrar_a_registrar_b/parse', { key, json: { pdf_url: u } });
      expect(r.status, u).toBe(400);
      expect(r.body.msg, u).toMatch(/non-public address|http or https/);
    }
  });

  it('bad requests are 400 with clear messages, and are not billed', async () => {
    const before = (await post(srv.url, '/v1/credits', { key })).body.remaining;
    const cases: [unknown, RegExp][] = [
      [{}, /missing the PDF/],
      [{ pdf_file: b64('registrar/cams-summary.pdf'), pdf_url: 'http://x/y.pdf' }, /exactly one of pdf_file or pdf_url/],
      [{ pdf_file: 'not base64 !!' }, /base64/],
      [{ pdf_file: Buffer.from('hello').toString('base64') }, /not a PDF/],
      [{ pdf_file: b64('registrar/cams-detailed.pdf') }, /password-protected/],
      [{ pdf_file: b64('registrar/cams-detailed.pdf'), password: 'nope' }, /invalid password/],
      [{ pdf_file: b64('bad/unrelated.pdf') }, /not a supported statement/],
    ];
    for (const [body, re] of cases) {
      const r = await post(srv.url, '/v4/smart/parse', { key, json: body });
      expect(r.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(r.body.msg).toMatch(re);
      expect(r.headers.get('x-credits-used')).toBe('0');
    }
    const wrongType = await post(srv.url, '/v4/depository_a/parse', {
      key,
      json: { pdf_file: b64('registrar/cams-summary.pdf'), password: 'ABCPM1234K' },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.msg).toMatch(/--type depository_a was given|depository_a/);
    const cnNoPw = await post(srv.url, '/v4/contract_note/parse', { key, json: { pdf_file: b64('contract_note/broker_a.pdf') } });
    expect(cnNoPw.body.msg).toMatch(/password is required/);
    expect((await post(srv.url, '/v1/credits', { key })).body.remaining).toBe(before);
  });

  it('serves an OpenAPI 3.1 document built from the schemas', async () => {
    const r = await fetch(`${srv.url}/openapi.json`);
    const doc = (await r.json()) as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v4/smart/parse', '/v1/credits', '/v1/token']));
    // The top-level fields of SPEC.md's Parsed statement, all required.
    const fields = ['meta', 'investor', 'summary', 'demat_accounts', 'mutual_funds', 'insurance', 'nps'];
    expect(doc.components.schemas.ParsedStatement).toMatchObject({ type: 'object', required: expect.arrayContaining(fields) });
    expect(Object.keys((doc.components.schemas.ParsedStatement as { properties: object }).properties).sort()).toEqual([...fields].sort());
  });
});

describe('billing under concurrency, and restarts', () => {
  it('200 simultaneous billed requests on 100 credits: exactly 100 succeed, the rest 402, balance 0, every request logged (charged ones a row each)', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '100']);
    const body = JSON.stringify({ pdf_file: b64('registrar/cams-summary.pdf'), password: 'ABCPM1234K' });
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${srv.url}/v4/registrar_a_registrar_b/parse`, {
          method: 'POST',
          headers: { 'x-api-key': k, 'content-type': 'application/json' },
          body,
        }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 402)).toHaveLength(100);
    const c = await post(srv.url, '/v1/credits', { key: k });
    expect(c.body).toMatchObject({ remaining: 0, used: 100, limit: 100 });
    const logs = await post(srv.url, '/v1/usage', { key: k, json: { limit: 1000 } });
    // Each charged call is a row; the 100 refused (charged nothing) share rows per minute.
    const parseLogs = logs.body.logs.filter((l: { feature: string }) => l.feature === 'parse') as { status_code: number }[];
    expect(parseLogs.filter((l) => l.status_code === 200)).toHaveLength(100);
    expect(parseLogs.filter((l) => l.status_code === 402).length).toBeLessThanOrEqual(2);
    const sum = await post(srv.url, '/logs/summary', { key: k, json: {} });
    expect(sum.body.summary.by_feature).toEqual(expect.arrayContaining([{ feature: 'parse', credits: 100, requests: 200 }]));
  });

  it('a restart on the same database keeps keys, credits, tokens and logs; SIGTERM exits 0', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '10']);
    const t = (await post(srv.url, '/v1/token', { key: k, json: {} })).body.access_token as string;
    await post(srv.url, '/v4/smart/parse', { key: k, json: { pdf_file: b64('registrar/cams-summary.pdf'), password: 'ABCPM1234K' } });
    const dataDir = srv.dataDir;
    expect(await srv.stop()).toBe(0);
    srv = await serve(dataDir, [], WIDE);
    const c = await post(srv.url, '/credits', { key: k });
    expect(c.body).toMatchObject({ remaining: 9, used: 1 });
    const v = await post(srv.url, '/v1/token/verify', { key: k, json: { access_token: t } });
    expect(v.body.valid).toBe(true);
    const logs = await post(srv.url, '/logs', { key: k, json: {} });
    expect(logs.body.logs.map((l: { feature: string }) => l.feature)).toEqual(expect.arrayContaining(['parse', 'token']));
    const viaToken = await post(srv.url, '/v4/smart/parse', {
      key: t,
      json: { pdf_file: b64('registrar/cams-summary.pdf'), password: 'ABCPM1234K' },
    });
    expect(viaToken.status).toBe(200);
  });
});

describe('administration without HTTP', () => {
  it('keys list never shows secrets; revoke and credits add take effect at once', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '2', '--name', 'ops-test']);
    const list = await serveAdmin(srv.dataDir, ['keys', 'list', '--json']);
    const rows = JSON.parse(list.stdout) as { id: number; prefix: string; name: string; credits: number }[];
    const row = rows.find((r) => r.name === 'ops-test')!;
    expect(row).toMatchObject({ credits: 2, prefix: expect.stringMatching(/^cas_live_.{4}\.\.\.$/) });
    expect(list.stdout).not.toContain(k);
    expect((await serveAdmin(srv.dataDir, ['credits', 'add', String(row.id), '3'])).exitCode).toBe(0);
    expect((await post(srv.url, '/v1/credits', { key: k })).body.remaining).toBe(5);
    expect((await serveAdmin(srv.dataDir, ['keys', 'revoke', String(row.id)])).exitCode).toBe(0);
    const after = await post(srv.url, '/v1/credits', { key: k });
    expect(after.status).toBe(403);
    expect(after.body.msg).toBe('invalid API key');
    expect((await serveAdmin(srv.dataDir, ['keys', 'revoke', String(row.id)])).exitCode).toBe(2);
  });
});

describe('CLI account commands against the real server', () => {
  it('the client retries HTTP 500 with backoff, then succeeds', async () => {
    let calls = 0;
    const flaky = http.createServer((req, res) => {
      calls++;
      res.setHeader('content-type', 'application/json');
      if (calls <= 2) {
        res.writeHead(500);
        res.end(JSON.stringify({ status: 'failed', msg: 'internal error; retry later' }));
      } else {
        res.end(
          JSON.stringify({
            status: 'success',
            used: 1,
            remaining: 2,
            limit: 3,
            is_unlimited: false,
            resets_at: null,
            enabled_features: ['parse'],
          }),
        );
      }
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
    const r = await cas(['credits', '--json'], { env: { CAS_API_KEY: 'k', CAS_BASE_URL: base, CAS_BACKOFF_MS: '10' } });
    flaky.close();
    expect(r.exitCode).toBe(0);
    expect(calls).toBe(3);
    expect(JSON.parse(r.stdout).remaining).toBe(2);
  });

  it('credits, usage, usage --summary, token create and verify; exit 4 on a bad key, 6 when unreachable', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '3']);
    const env = { CAS_API_KEY: k, CAS_BASE_URL: srv.url };
    const c = await cas(['credits', '--json'], { env });
    expect(c.exitCode).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ remaining: 3, used: 0 });
    await post(srv.url, '/v4/smart/parse', { key: k, json: { pdf_file: b64('registrar/cams-summary.pdf'), password: 'ABCPM1234K' } });
    const u = await cas(['usage', '--json', '--limit', '10'], { env });
    expect(JSON.parse(u.stdout).logs.map((l: { feature: string }) => l.feature)).toContain('parse');
    const s = await cas(['usage', '--summary', '--json'], { env });
    expect(JSON.parse(s.stdout).summary.by_feature).toEqual(expect.arrayContaining([{ feature: 'parse', credits: 1, requests: 1 }]));
    const t = await cas(['token', 'create', '--expiry', '10', '--json'], { env });
    const token = JSON.parse(t.stdout).access_token as string;
    expect(token).toMatch(/^at_/);
    const v = await cas(['token', 'verify', '-', '--json'], { env, input: token, stdin: undefined });
    expect(JSON.parse(v.stdout).valid).toBe(true);
    const bad = await cas(['credits'], { env: { CAS_API_KEY: 'cas_live_wrong', CAS_BASE_URL: srv.url } });
    expect(bad.exitCode).toBe(4);
    expect(bad.stderr).toMatch(/invalid API key/);
    const none = await cas(['credits'], { env: { CAS_BASE_URL: srv.url } });
    expect(none.exitCode).toBe(4);
    expect(none.stderr).toMatch(/no API key/);
    const down = await cas(['credits'], {
      env: { CAS_API_KEY: k, CAS_BASE_URL: 'http://127.0.0.1:9', CAS_RETRIES: '2', CAS_BACKOFF_MS: '10' },
    });
    expect(down.exitCode).toBe(6);
    expect(down.stderr).toMatch(/unreachable .* after 3 attempts/);
  });
});

/** What generated SDKs of the hosted API send (issue 25, points 1-3). */
describe('generated-SDK protocol', () => {
  const bare = async (method: string, path: string, secret: string): Promise<{ status: number; body: any }> => {
    // A generated client sends the JSON content type and no body on calls without parameters.
    const res = await fetch(`${srv.url}${path}`, { method, headers: { 'x-api-key': secret, 'content-type': 'application/json' } });
    return { status: res.status, body: await res.json() };
  };

  it('an empty JSON body is an empty object on every bodiless call', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '5']);
    const c = await bare('POST', '/v1/credits', k);
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ status: 'success', remaining: 5 });
    // No mailbox is connected: the answer is the documented reconnect body, not a malformed-body 400.
    const st = await bare('POST', '/v4/inbox/status', k);
    expect(st.status).toBe(401);
    expect(st.body.status).toBe('error');
    expect(JSON.stringify(st.body)).not.toMatch(/malformed/);
    const created = await post(srv.url, '/v4/inbound-email', { key: k, json: {} });
    expect(created.status).toBe(201);
    const del = await bare('DELETE', `/v4/inbound-email/${created.body.inbound_email_id}`, k);
    expect(del.status).toBe(200);
    // Whitespace only is still empty; a broken body is still refused.
    const ws = await fetch(`${srv.url}/v1/credits`, {
      method: 'POST',
      headers: { 'x-api-key': k, 'content-type': 'application/json' },
      body: ' \n ',
    });
    expect(ws.status).toBe(200);
    const broken = await fetch(`${srv.url}/v1/credits`, {
      method: 'POST',
      headers: { 'x-api-key': k, 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ status: 'failed', msg: 'malformed JSON body' });
  });

  it('usage windows accept RFC 3339 offsets and dates alone, compared as instants', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '5']);
    await post(srv.url, '/v1/credits', { key: k, json: {} });
    const now = new Date();
    const ist = (d: Date): string => new Date(d.getTime() + 5.5 * 3600_000).toISOString().replace(/\.\d+Z$/, '+05:30');
    const utc = (d: Date): string => d.toISOString().replace(/\.\d+Z$/, '+00:00');
    const hourAgo = new Date(now.getTime() - 3600_000);
    const inHour = new Date(now.getTime() + 3600_000);
    for (const [from, to] of [
      [utc(hourAgo), utc(inHour)],
      [ist(hourAgo), ist(inHour)],
      [hourAgo.toISOString().slice(0, 10), inHour.toISOString().slice(0, 10)],
    ]) {
      const u = await post(srv.url, '/v1/usage', { key: k, json: { start_time: from, end_time: to } });
      expect(u.status, `${from} .. ${to}`).toBe(200);
      expect(u.body.count, `${from} .. ${to}`).toBeGreaterThanOrEqual(1);
      const s = await post(srv.url, '/v1/usage/summary', { key: k, json: { start_time: from, end_time: to } });
      expect(s.status).toBe(200);
      expect(s.body.summary.total_requests).toBeGreaterThanOrEqual(1);
    }
    // A window in the past, written in +05:30, finds nothing: the offset is honoured, not dropped.
    const past = await post(srv.url, '/v1/usage', {
      key: k,
      json: { start_time: ist(new Date(now.getTime() - 7200_000)), end_time: ist(new Date(now.getTime() - 3 * 3600_000 + 1800_000)) },
    });
    expect(past.body.count).toBe(0);
    expect((await post(srv.url, '/v1/usage', { key: k, json: { start_time: 'yesterday' } })).status).toBe(400);
  });

  it('/v1/token/verify checks the access token sent in x-api-key, with no body', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '5']);
    const t = (await post(srv.url, '/v1/token', { key: k, json: { expiry_minutes: 5 } })).body.access_token as string;
    const v = await bare('POST', '/v1/token/verify', t);
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ status: 'success', valid: true, error: null });
    expect(v.body.masked_api_key).toMatch(/^cas_live_\*+$/);
    const forged = await bare('POST', '/v1/token/verify', 'at_forged');
    expect(forged.body).toMatchObject({ status: 'success', valid: false, error: 'unknown token' });
    // The body form still works, and a token still cannot create tokens.
    expect((await post(srv.url, '/v1/token/verify', { key: k, json: { access_token: t } })).body.valid).toBe(true);
    expect((await post(srv.url, '/v1/token', { key: t, json: {} })).status).toBe(403);
  });
});

describe('billing features are a closed set', () => {
  it('a misspelt feature does not compile, and the credits endpoint lists exactly the priced ones', async () => {
    // @ts-expect-error 'pasre' is not a Feature (npm run typecheck fails if this compiles)
    const misspelt: RouteMeta = { feature: 'pasre', auth: 'v4' };
    expect(FEATURES).not.toContain(misspelt.feature);
    expect(BILLED).toEqual(FEATURES.filter((f) => PRICES[f] !== null));
    expect((await post(srv.url, '/v1/credits', { key })).body.enabled_features).toEqual(BILLED);
  });
});

describe('a request costs nothing until it is authenticated and valid (issue 18 items 6, 7, 8, 13)', () => {
  it('an upload without a valid key is refused before its body is read', async () => {
    for (const [headers, status] of [
      [{}, 401],
      [{ 'x-api-key': 'cas_live_nope' }, 403],
    ] as const) {
      // Announce 5 MB, send 64 KB, and wait: the answer must come without the rest of the body.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          `${srv.url}/v4/smart/parse`,
          { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': String(5 * 1024 * 1024) } },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        req.write(Buffer.alloc(64 * 1024, 0x20));
        setTimeout(() => reject(new Error('no answer within 3 s: the body was awaited before the key was checked')), 3000);
      });
      expect(answer.status).toBe(status);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 'failed' });
    }
  });

  it('a key without the credits is refused 402 before its body is read; an invalid request is 400 before any credit is reserved', async () => {
    // Issue 32.1: a 0-credit key's body is not awaited (it could be trickled to hold an upload place).
    const empty = await newKey(srv.dataDir, ['--credits', '0']);
    const unpaid = await post(srv.url, '/v4/smart/parse', { key: empty, json: { pdf_file: 5 } });
    expect(unpaid).toMatchObject({ status: 402, body: { status: 'failed', msg: expect.stringMatching(/insufficient credits/) } });
    const one = await newKey(srv.dataDir, ['--credits', '1']);
    const invalid = await post(srv.url, '/v4/smart/parse', { key: one, json: { pdf_file: 5 } });
    expect(invalid).toMatchObject({ status: 400, body: { status: 'failed', msg: expect.stringMatching(/^pdf_file: /) } });
    expect(invalid.headers.get('x-credits-used')).toBe('0');
    expect((await post(srv.url, '/v1/credits', { key: one })).body).toMatchObject({ used: 0, remaining: 1 });
  });

  it('a client that goes away while its request runs gets its credit back at once', async () => {
    const one = await newKey(srv.dataDir, ['--credits', '1']);
    // A PDF address that never answers: the request waits on it until the client gives up.
    const hang = http.createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
    try {
      const abort = new AbortController();
      const sent = fetch(`${srv.url}/v4/registrar_a_registrar_b/parse`, {
        method: 'POST',
        headers: { 'x-api-key': one, 'content-type': 'application/json' },
        body: JSON.stringify({ pdf_url: `http://127.0.0.1:${(hang.address() as AddressInfo).port}/cas.pdf` }),
        signal: abort.signal,
      }).catch(() => null);
      let held = 1;
      for (let i = 0; i < 20 && held !== 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        held = (await post(srv.url, '/v1/credits', { key: one })).body.remaining;
      }
      expect(held, 'the credit is reserved while the request runs').toBe(0);
      abort.abort();
      await sent;
      let back = 0;
      for (let i = 0; i < 30 && back !== 1; i++) {
        await new Promise((r) => setTimeout(r, 100));
        back = (await post(srv.url, '/v1/credits', { key: one })).body.remaining;
      }
      expect(back, 'refunded within 3 s of the abort, not when the fetch times out').toBe(1);
    } finally {
      hang.closeAllConnections();
      hang.close();
    }
  });

  it('credits held by requests a killed server never finished are refunded at the next start', async () => {
    // PostgreSQL: the next start is another instance, which refunds a dead one's requests once its heartbeat
    // is 3 beats old (SQLite refunds everything at start-up: one server per database file).
    const beat: Record<string, string> = PG ? { CAS_HEARTBEAT_MS: '300' } : {};
    const own = await serve(undefined, [], beat);
    const k = await newKey(own.dataDir, ['--credits', '5']);
    const hang = http.createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
    let again: Served | undefined;
    try {
      const body = JSON.stringify({ pdf_url: `http://127.0.0.1:${(hang.address() as AddressInfo).port}/cas.pdf` });
      const running = Array.from({ length: 3 }, () =>
        fetch(`${own.url}/v4/smart/parse`, { method: 'POST', headers: { 'x-api-key': k, 'content-type': 'application/json' }, body }).catch(
          () => null,
        ),
      );
      let left = 5;
      for (let i = 0; i < 30 && left !== 2; i++) {
        await new Promise((r) => setTimeout(r, 100));
        left = (await post(own.url, '/v1/credits', { key: k })).body.remaining;
      }
      expect(left, 'three requests hold a credit each').toBe(2);
      own.proc.kill('SIGKILL');
      await own.proc;
      await Promise.all(running);
      again = await serve(own.dataDir, [], beat);
      if (PG) {
        const srv2 = again;
        await waitForAsync(async () => (await post(srv2.url, '/v1/credits', { key: k })).body.remaining === 5, 15_000);
        expect(again.log()).toMatch(/refunded the credits of 3 requests/);
      } else expect(again.log()).toMatch(/refunded the credits of 3 requests a previous run did not finish/);
      expect((await post(again.url, '/v1/credits', { key: k })).body).toMatchObject({ remaining: 5, used: 0 });
    } finally {
      await again?.stop();
      hang.closeAllConnections();
      hang.close();
    }
  });

  it('malformed multipart bodies are 400 with the error shape, and free', async () => {
    const bodies: [string, string][] = [
      ['multipart/form-data', 'no boundary at all'],
      ['multipart/form-data; boundary=XYZ', '--XYZ\r\nContent-Disposition: form-data; name="pdf_file"; filename="a.pdf"\r\n\r\ncut short'],
    ];
    for (const [type, body] of bodies) {
      const r = await post(srv.url, '/v4/smart/parse', { key, body, headers: { 'content-type': type } });
      expect(r.status, type).toBe(400);
      expect(r.body).toEqual({ status: 'failed', msg: expect.stringMatching(/^malformed multipart body/) });
      expect(r.headers.get('x-credits-used')).toBe('0');
    }
  });

  it('answers are never sniffed nor cached: success, error and unknown paths', async () => {
    for (const r of [
      await post(srv.url, '/v1/credits', { key }),
      await post(srv.url, '/v1/credits'),
      await post(srv.url, '/v9/nothing', { key }),
      await post(srv.url, '/v4/smart/parse', { key: SANDBOX, json: { pdf_file: b64('registrar/cams-summary.pdf') } }),
    ]) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
  });
});

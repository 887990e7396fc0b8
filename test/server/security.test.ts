/**
 * Issue 18 (hardening), the server's stored data and limits, against a real `cas serve`:
 * private files whatever the umask, sealed webhook secrets and an outside key (10), links on the
 * configured public URL or the listening address, never a request's Host (11), usage-log retention
 * and aggregation of free calls (12), caps on uploads in flight (7).
 */
import { afterAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { verifyWebhook } from '../../src/shared/webhook-signature.js';
import { cas, fixture, tmpDir } from '../helpers/cas.js';
import { dbRows, dbRun, newKey, PG, post, receiver, serve, smtpPortOf, storeArgs, waitFor, type Served } from '../helpers/server.js';

const CDSL = readFileSync(fixture('depository_a/cdsl-cas.pdf'));
const SANDBOX = 'cas_sandbox_public_key';
const MAIL = ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'];
const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8);
const inline = (from: string): string =>
  `FYI\n\n---------- Forwarded message ---------\nFrom: Statement Desk <${from}>\nSubject: CAS\n\nYour statement is attached.\n`;
const b64 = (rel: string): string => readFileSync(fixture(rel)).toString('base64');

async function mail(s: Served, to: string): Promise<void> {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPortOf(s), secure: false, ignoreTLS: true });
  try {
    await t.sendMail({
      from: 'aarav.investor@mail.example',
      to,
      subject: 'Fwd: CAS',
      text: inline('eCAS@cdslstatement.com'),
      attachments: [{ filename: 'c.pdf', content: CDSL }],
    });
  } finally {
    t.close();
  }
}

/** GET with an explicit Host header (fetch will not forge one). */
function getWithHost(url: string, host: string, key: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'GET', headers: { host, 'x-api-key': key } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** POST JSON with an explicit Host header. */
function postWithHost(url: string, host: string, key: string, json: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const body = JSON.stringify(json);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: {
          host,
          'x-api-key': key,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-forwarded-host': host,
          'x-forwarded-proto': 'https',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const open: Served[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.stop()));
});

describe('stored files and secrets (18.10) and link bases (18.11)', () => {
  it('under umask 000 every file is 0600 and every folder 0700; webhook secrets are sealed yet sign; links never carry a forged Host', async () => {
    const hook = await receiver();
    const dataDir = path.join(tmpDir('cas-sec-'), 'fresh', 'data');
    const s = await serve(dataDir, MAIL, { CAS_DNS_OFFLINE: '1' }, { umask: '000' });
    open.push(s);
    try {
      // SQLite keeps a generated key beside the database (and warns); PostgreSQL takes the shared CAS_SECRET_KEY.
      if (!PG) expect(s.log()).toMatch(/warning: stored secrets are encrypted with a key kept beside the database/);
      const key = await newKey(dataDir, ['--credits', '5']);
      const created = await post(s.url, '/v4/inbound-email', { key, json: { alias: 'modes', callback_url: hook.url } });
      expect(created.status).toBe(201);
      const secret = created.body.webhook_secret as string;
      await mail(s, 'modes@in.cas.test');
      const h = await waitFor(() => hook.hooks[0]);
      // The signature still verifies with the secret shown once, though the database keeps it sealed.
      expect(verifyWebhook(secret, String(h.headers['x-cas-signature']), h.body, 300)).toEqual({ ok: true });
      for (const f of JSON.parse(h.body).files as { url: string }[]) expect(f.url.startsWith(`${s.url}/files/`)).toBe(true);

      expect(mode(dataDir)).toBe('700');
      expect(mode(path.dirname(dataDir))).toBe('700');
      if (!PG)
        for (const f of ['cas.db', 'cas.db-wal', 'cas.db-shm', 'cas.db.key']) expect([f, mode(path.join(dataDir, f))]).toEqual([f, '600']);
      expect(mode(path.join(dataDir, 'files'))).toBe('700');
      const pdfs = readdirSync(path.join(dataDir, 'files'));
      expect(pdfs.length).toBeGreaterThan(0);
      for (const f of pdfs) expect([f, mode(path.join(dataDir, 'files', f))]).toEqual([f, '600']);

      // Not in plain text anywhere in the database (main file or log: SQLite's files; PostgreSQL's rows below).
      if (!PG) {
        const raw = Buffer.concat([readFileSync(path.join(dataDir, 'cas.db')), readFileSync(path.join(dataDir, 'cas.db-wal'))]);
        expect(raw.includes(Buffer.from(secret))).toBe(false);
      }
      const stored = (await dbRows(dataDir, 'SELECT webhook_secret FROM inbound_emails'))[0].webhook_secret as string;
      expect(await dbRows(dataDir, "SELECT COUNT(*) AS n FROM settings WHERE name LIKE 'inbox_key%'")).toEqual([{ n: 0 }]);
      expect(stored).toMatch(/^whenc_/);
      expect(stored).not.toContain(secret);

      // Link poisoning: a forged Host (and X-Forwarded-Host) appears in no URL handed out.
      const id = created.body.inbound_email_id as string;
      const files = await getWithHost(`${s.url}/v4/inbound-email/${id}/files`, 'evil.example', key);
      expect(files.status).toBe(200);
      expect(files.body.files.length).toBeGreaterThan(0);
      for (const f of files.body.files as { url: string }[]) expect(f.url.startsWith(`${s.url}/files/`)).toBe(true);
      const connect = await postWithHost(`${s.url}/v4/inbox/connect`, 'evil.example', SANDBOX, {
        provider: 'gmail',
        redirect_uri: 'https://app.example/back',
      });
      expect(connect.body.oauth_url.startsWith(`${s.url}/v4/inbox/callback?`)).toBe(true);
      const locker = await postWithHost(`${s.url}/v1/kyc/locker/session`, 'evil.example', SANDBOX, {
        consent: true,
        purpose: 'opening an investment account today',
        redirect_url: 'https://app.example/back',
      });
      expect(locker.body.authorization_url.startsWith(`${s.url}/v1/kyc/locker/callback?`)).toBe(true);
      expect(JSON.stringify([files.body, connect.body, locker.body])).not.toContain('evil.example');
    } finally {
      await hook.close();
    }
  });

  it('CAS_PUBLIC_URL is the only base of links; a bad one, or a bad secret key, stops the start with a usage error', async () => {
    const s = await serve(undefined, [], { CAS_PUBLIC_URL: 'https://cas.example.com/api/' });
    open.push(s);
    const connect = await postWithHost(`${s.url}/v4/inbox/connect`, 'evil.example', SANDBOX, {
      provider: 'gmail',
      redirect_uri: 'https://app.example/back',
    });
    expect(connect.body.oauth_url.startsWith('https://cas.example.com/api/v4/inbox/callback?')).toBe(true);
    const bad = await cas(['serve', '--port', '0', '--data-dir', tmpDir('cas-sec-')], { env: { CAS_PUBLIC_URL: 'javascript:alert(1)' } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/public URL .* must be an http\(s\) URL/);
    const short = await cas(['serve', '--port', '0', '--data-dir', tmpDir('cas-sec-')], { env: { CAS_SECRET_KEY: 'too-short' } });
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toMatch(/CAS_SECRET_KEY must be 32 bytes/);
    const missing = await cas(['serve', '--port', '0', '--data-dir', tmpDir('cas-sec-')], {
      env: { CAS_SECRET_KEY_FILE: '/nonexistent/cas.key' },
    });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the secret key file/);
  });

  it.runIf(PG)(
    'on PostgreSQL a start without the shared secret key stops with a usage error naming CAS_SECRET_KEY (PostgreSQL only)',
    async () => {
      const dataDir = tmpDir('cas-sec-');
      const r = await cas(['serve', '--port', '0', '--data-dir', dataDir, ...(await storeArgs(dataDir))]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/CAS_SECRET_KEY/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it.skipIf(PG)(
    'an outside key (CAS_SECRET_KEY): no key file, no warning; plain secrets and a key kept in the database migrate on start (SQLite only: the key file beside the database)',
    async () => {
      const hook = await receiver();
      const dataDir = tmpDir('cas-sec-');
      try {
        // A database as earlier versions left it: the mailbox key in its settings table, a plain webhook secret.
        let s = await serve(dataDir, MAIL, { CAS_DNS_OFFLINE: '1' });
        const key = await newKey(dataDir, ['--credits', '5']);
        const created = await post(s.url, '/v4/inbound-email', { key, json: { alias: 'legacy', callback_url: hook.url } });
        const secret = created.body.webhook_secret as string;
        expect(await s.stop()).toBe(0);
        const legacyKey = randomBytes(32).toString('base64');
        unlinkSync(path.join(dataDir, 'cas.db.key'));
        await dbRun(dataDir, "INSERT INTO settings (name, value) VALUES ('inbox_key_v1', ?)", [legacyKey]);
        await dbRun(dataDir, 'UPDATE inbound_emails SET webhook_secret = ?', [secret]);

        const outside = randomBytes(32).toString('hex');
        s = await serve(dataDir, MAIL, { CAS_DNS_OFFLINE: '1', CAS_SECRET_KEY: outside });
        open.push(s);
        expect(s.log()).not.toMatch(/warning: stored secrets/);
        expect(s.log()).toMatch(/sealed 1 stored secret with the current key/);
        // The key the database kept is moved out of it (for what it sealed before), 0600.
        expect(readFileSync(path.join(dataDir, 'cas.db.key'), 'utf8').trim()).toBe(legacyKey);
        expect(mode(path.join(dataDir, 'cas.db.key'))).toBe('600');
        expect(await dbRows(dataDir, "SELECT COUNT(*) AS n FROM settings WHERE name LIKE 'inbox_key%'")).toEqual([{ n: 0 }]);
        expect((await dbRows(dataDir, 'SELECT webhook_secret FROM inbound_emails'))[0].webhook_secret).toMatch(/^whenc_/);
        await mail(s, 'legacy@in.cas.test');
        const h = await waitFor(() => hook.hooks[0]);
        expect(verifyWebhook(secret, String(h.headers['x-cas-signature']), h.body, 300)).toEqual({ ok: true });

        // A fresh database with the outside key makes no key file beside it.
        const fresh = tmpDir('cas-sec-');
        const s2 = await serve(fresh, [], { CAS_SECRET_KEY: randomBytes(32).toString('base64') });
        open.push(s2);
        expect(existsSync(path.join(fresh, 'cas.db.key'))).toBe(false);
        expect(s2.log()).not.toMatch(/warning/);
      } finally {
        await hook.close();
      }
    },
  );
});

describe('usage log (18.12)', () => {
  it('rows older than CAS_USAGE_RETENTION_DAYS go at start-up; free calls within a minute share a row; billed calls stay one row each and exact', async () => {
    const dataDir = tmpDir('cas-sec-');
    const key = await newKey(dataDir, ['--credits', '5']);
    const keyId = (await dbRows(dataDir, 'SELECT id FROM api_keys'))[0].id as number;
    const old = (days: number): string => new Date(Date.now() - days * 86_400_000).toISOString();
    const ins = (requestId: string, at: string): Promise<void> =>
      dbRun(
        dataDir,
        "INSERT INTO usage_log (key_id, request_id, feature, path, status_code, credits_milli, timestamp) VALUES (?, ?, 'credits', '/v1/credits', 200, 0, ?)",
        [keyId, requestId, at],
      );
    await ins('req_ancient', old(40));
    await ins('req_recent', old(10));
    const s = await serve(dataDir, [], { CAS_USAGE_RETENTION_DAYS: '30' });
    open.push(s);
    const ids = async (): Promise<string[]> =>
      ((await post(s.url, '/v1/usage', { key, json: { limit: 1000 } })).body.logs as { request_id: string }[]).map((l) => l.request_id);
    expect(await ids()).toContain('req_recent');
    expect(await ids()).not.toContain('req_ancient');

    for (let i = 0; i < 6; i++) expect((await post(s.url, '/v1/credits', { key })).status).toBe(200);
    const body = { pdf_file: b64('registrar/cams-summary.pdf'), password: 'ABCPM1234K' };
    expect((await post(s.url, '/v4/smart/parse', { key, json: body })).status).toBe(200);
    expect((await post(s.url, '/v4/smart/parse', { key, json: body })).status).toBe(200);
    expect((await post(s.url, '/v4/smart/parse', { key, json: { pdf_file: 'bm90IGEgcGRm' } })).status).toBe(400);

    const credits = await dbRows(dataDir, "SELECT requests FROM usage_log WHERE feature = 'credits' AND request_id != 'req_recent'");
    const parses = await dbRows(dataDir, "SELECT status_code, credits_milli, requests FROM usage_log WHERE feature = 'parse' ORDER BY id");
    // One row per clock minute: the six calls share one (two when they straddle a minute's end).
    expect(credits.length).toBeLessThanOrEqual(2);
    expect(credits.reduce((n, r) => n + Number(r.requests), 0)).toBe(6);
    expect(parses).toEqual([
      { status_code: 200, credits_milli: 1000, requests: 1 },
      { status_code: 200, credits_milli: 1000, requests: 1 },
      { status_code: 400, credits_milli: 0, requests: 1 },
    ]);
    const sum = await post(s.url, '/v1/usage/summary', { key, json: {} });
    expect(sum.body.summary.by_feature).toEqual(
      expect.arrayContaining([
        { feature: 'credits', credits: 0, requests: 7 },
        { feature: 'parse', credits: 2, requests: 3 },
      ]),
    );
    expect((await post(s.url, '/v1/credits', { key })).body).toMatchObject({ used: 2, remaining: 3 });
  });
});

/** Start an upload and keep it in flight (headers and a little of the body sent); `end` aborts it. */
function slowUpload(url: string, key: string): { end: () => void; answer: Promise<number> } {
  const u = new URL(`${url}/v4/smart/parse`);
  const req = http.request({
    host: u.hostname,
    port: u.port,
    path: u.pathname,
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': '100000' },
  });
  const answer = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
  req.write('{"pdf_file":"');
  return { end: () => req.destroy(), answer };
}

describe('uploads in flight (18.7)', () => {
  it('past the per-key cap 429, past the server cap 503, both with Retry-After and the error shape; places come back; no credit moves', async () => {
    const s = await serve(undefined, [], { CAS_MAX_UPLOADS: '3', CAS_MAX_UPLOADS_PER_KEY: '2' });
    open.push(s);
    const a = await newKey(s.dataDir, ['--credits', '5']);
    const b = await newKey(s.dataDir, ['--credits', '5']);
    const small = { pdf_file: b64('registrar/cams-summary.pdf'), password: 'ABCPM1234K' };
    const held = [slowUpload(s.url, a), slowUpload(s.url, a)];
    await new Promise((r) => setTimeout(r, 300));
    // Unauthenticated uploads take no place.
    expect((await post(s.url, '/v4/smart/parse', { key: 'cas_wrong', json: small })).status).toBe(403);
    const perKey = await post(s.url, '/v4/smart/parse', { key: a, json: small });
    expect(perKey.status).toBe(429);
    expect(perKey.headers.get('retry-after')).toBe('2');
    expect(perKey.body).toEqual({ status: 'failed', msg: expect.stringMatching(/too many uploads in flight for this key/) });
    held.push(slowUpload(s.url, b));
    await new Promise((r) => setTimeout(r, 300));
    const busy = await post(s.url, '/v4/smart/parse', { key: b, json: small });
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('2');
    expect(busy.body).toEqual({ status: 'failed', msg: expect.stringMatching(/the server is busy with 3 uploads/) });
    // A client that goes away gives its place back.
    held[0].end();
    await new Promise((r) => setTimeout(r, 300));
    expect((await post(s.url, '/v4/smart/parse', { key: b, json: small })).status).toBe(200);
    for (const h of held) h.end();
    await Promise.all(held.map((h) => h.answer));
    expect((await post(s.url, '/v1/credits', { key: a })).body).toMatchObject({ used: 0, remaining: 5 });
    expect((await post(s.url, '/v1/credits', { key: b })).body).toMatchObject({ used: 1, remaining: 4 });
  });
});

describe('usage-log growth and failed parses (32.5, 32.7a)', () => {
  it('300 malformed requests to a billed endpoint share a usage row (per key, path, status and minute), still counted one by one', async () => {
    // Ten at once: upload caps and a rate limit above that, since what is measured is the log, not the limiters.
    const s = await serve(undefined, [], { CAS_MAX_UPLOADS: '16', CAS_MAX_UPLOADS_PER_KEY: '16' });
    open.push(s);
    const key = await newKey(s.dataDir, ['--credits', '5', '--rate', '1000/min']);
    for (let round = 0; round < 30; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => post(s.url, '/v4/smart/parse', { key, json: { pdf_file: 12345 } })),
      );
      for (const a of answers) expect(a.status).toBe(400);
    }
    const rows = await dbRows(s.dataDir, "SELECT requests FROM usage_log WHERE feature = 'parse' AND status_code = 400");
    // One row a minute: two only if the 300 requests straddled a minute's end on a slow machine.
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(rows.reduce((n: number, r: { requests: number }) => n + r.requests, 0)).toBe(300);
    const sum = await post(s.url, '/v1/usage/summary', { key, json: {} });
    expect(sum.body.summary.by_feature).toEqual(expect.arrayContaining([{ feature: 'parse', credits: 0, requests: 300 }]));
    expect((await post(s.url, '/v1/credits', { key })).body).toMatchObject({ used: 0, remaining: 5 });
  });

  it('past CAS_MAX_FAILED_PARSES failed parses in a minute, a key’s uploads get 429 with Retry-After; other keys are served; nothing is charged', async () => {
    const s = await serve(undefined, [], { CAS_MAX_FAILED_PARSES: '3' });
    open.push(s);
    const bomber = await newKey(s.dataDir, ['--credits', '5']);
    const other = await newKey(s.dataDir, ['--credits', '5']);
    const bad = { pdf_file: Buffer.from('%PDF-1.7 not really a PDF').toString('base64') };
    const good = { pdf_file: b64('registrar/cams-summary.pdf'), password: 'ABCPM1234K' };
    for (let i = 0; i < 3; i++) {
      const r = await post(s.url, '/v4/smart/parse', { key: bomber, json: bad });
      expect(r.status).toBe(400);
      expect(r.headers.get('x-credits-remaining')).toBe('5');
    }
    for (const body of [bad, good]) {
      const r = await post(s.url, '/v4/smart/parse', { key: bomber, json: body });
      expect(r.status).toBe(429);
      expect(r.body).toEqual({
        status: 'failed',
        msg: expect.stringMatching(/^too many failed parses: at most 3 per minute for this key; retry in \d+ s$/),
      });
      const wait = Number(r.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
    }
    expect((await post(s.url, '/v4/smart/parse', { key: other, json: good })).status).toBe(200);
    expect((await post(s.url, '/v1/credits', { key: bomber })).body).toMatchObject({ used: 0, remaining: 5 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { InboxSearchResponse } from '../../src/schema/index.js';
import { cas, cleanEnv, expectedJson, fixture, tmpDir } from '../helpers/cas.js';
import { startDovecot, type Dovecot } from '../helpers/dovecot.js';
import { dbRows, newKey, post, serve, type Served } from '../helpers/server.js';
import { needs } from '../helpers/tools.js';

const dovecot = needs('dovecot');

const PDF = {
  registrar_a: readFileSync(fixture('registrar/cams-detailed.pdf')),
  registrar_b: readFileSync(fixture('registrar/kfintech-detailed.pdf')),
  depository_a: readFileSync(fixture('depository_a/cdsl-cas.pdf')),
  depository_b: readFileSync(fixture('depository_b/nsdl-cas.pdf')),
};
const raw = (o: Record<string, unknown>): Promise<Buffer> => new MailComposer(o as never).compile().build();
const D = (s: string): Date => new Date(`${s}T09:30:00Z`);

let imap: Dovecot;
let srv: Served;
let key: string;

beforeAll(async () => {
  const msgs: [Buffer, Date][] = [];
  const statement = async (from: string, date: string, file: string, content: Buffer | string, contentType = 'application/pdf') =>
    msgs.push([
      await raw({
        from,
        to: 'investor@example.in',
        subject: 'Consolidated Account Statement',
        date: D(date),
        text: 'Please find your statement attached.',
        attachments: [{ filename: file, content, contentType }],
      }),
      D(date),
    ]);
  await statement('CAMS <donotreply@camsonline.com>', '2026-03-10', 'CAS_10032026.pdf', PDF.registrar_a);
  await statement('KFintech <samfS@kfintech.com>', '2026-03-12', 'KFIN_CAS.pdf', PDF.registrar_b);
  await statement('CDSL <eCAS@cdslstatement.com>', '2026-03-15', 'MAR2026_AA07602549_TXN.pdf', PDF.depository_a);
  await statement('NSDL <NSDL-CAS@nsdl.co.in>', '2026-03-20', 'NSDLe-CAS_103802213_MAR_2026.PDF', PDF.depository_b);
  await statement('CAMS <donotreply@camsonline.com>', '2025-12-01', 'OLD.pdf', PDF.registrar_a);
  await statement('CAMS <donotreply@camsonline.com>', '2026-03-11', 'readme.txt', 'not a pdf', 'text/plain');
  await statement('Fake <donotreply@camsonline.com.evil.example>', '2026-03-13', 'phish.pdf', PDF.registrar_a);
  const filler = await raw({
    from: 'News <news@shop.example>',
    to: 'investor@example.in',
    subject: 'Weekly offers',
    text: 'x'.repeat(4000),
  });
  for (let i = 0; i < 1000; i++) msgs.push([filler, D(`2026-03-${String(1 + (i % 28)).padStart(2, '0')}`)]);
  if (!dovecot.skip) imap = await startDovecot(msgs);
  srv = await serve();
  key = await newKey(srv.dataDir, ['--credits', '10']);
});
afterAll(async () => {
  await srv?.stop();
  imap?.stop();
});

const connectImap = (k = key, password = imap.password) =>
  post(srv.url, '/v4/inbox/connect', {
    key: k,
    json: { provider: 'imap', imap: { host: '127.0.0.1', port: imap.port, tls: false, user: imap.user, password } },
  });

describe.skipIf(dovecot.skip)(`IMAP connector against a real Dovecot server${dovecot.note}`, () => {
  it('finds the four senders in range, skips other dates, non-PDF parts and look-alikes, and lets the server search', async () => {
    const c = await connectImap();
    expect(c.status, JSON.stringify(c.body) + imap.log().slice(-800)).toBe(200);
    expect(c.body).toMatchObject({ provider: 'imap', email: imap.user, inbox_token: expect.stringMatching(/^itk_/) });
    const t = c.body.inbox_token as string;
    expect(c.body.inbox_token).not.toContain(imap.password);
    const st = await post(srv.url, '/v4/inbox/status', { key, json: {}, headers: { 'x-inbox-token': t } });
    expect(st.body).toEqual({ status: 'success', connected: true, provider: 'imap', email: imap.user });
    const r = await post(srv.url, '/v4/inbox/cas', {
      key,
      json: { start_date: '2026-03-01', end_date: '2026-03-31' },
      headers: { 'x-inbox-token': t },
    });
    expect(r.status).toBe(200);
    expect(InboxSearchResponse.safeParse(r.body).success).toBe(true);
    expect(r.body.count).toBe(4);
    expect(r.body.files.map((f: { cas_type: string }) => f.cas_type).sort()).toEqual([
      'depository_a',
      'depository_b',
      'registrar_a',
      'registrar_b',
    ]);
    for (const f of r.body.files) {
      expect(f.expires_in).toBe(86400);
      expect(Buffer.from(await (await fetch(f.url)).arrayBuffer()).equals(PDF[f.cas_type as keyof typeof PDF])).toBe(true);
    }
    expect(r.headers.get('x-credits-used')).toBe('0.2');
    const only = await post(srv.url, '/v4/inbox/cas', {
      key,
      json: { start_date: '2025-11-01', end_date: '2026-03-31', cas_types: ['registrar_a'] },
      headers: { 'x-inbox-token': t },
    });
    expect(only.body.files.map((f: { original_filename: string }) => f.original_filename).sort()).toEqual(['CAS_10032026.pdf', 'OLD.pdf']);
    // The server searched: what Dovecot sent is a small part of a mailbox of 1,000+ messages.
    const out = [...imap.log().matchAll(/Logged out in=\d+ out=(\d+)/g)].map((m) => Number(m[1]));
    expect(out.length).toBeGreaterThan(0);
    expect(Math.max(...out)).toBeLessThan(imap.mailboxBytes() / 10);
  });

  it('a wrong app password is a clear 400; tampered and foreign tokens get the reconnect body', async () => {
    const bad = await connectImap(key, 'wrong');
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/refused the login/);
    const good = (await connectImap()).body.inbox_token as string;
    const tampered = `${good.slice(0, -4)}${good.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    const t = await post(srv.url, '/v4/inbox/cas', { key, json: {}, headers: { 'x-inbox-token': tampered } });
    expect(t.status).toBe(401);
    expect(t.body).toEqual({ status: 'error', msg: 'invalid inbox token', requires_reconnect: true });
    const other = await newKey(srv.dataDir, ['--credits', '1']);
    const f = await post(srv.url, '/v4/inbox/status', { key: other, json: {}, headers: { 'x-inbox-token': good } });
    expect(f.body).toMatchObject({ status: 'error', requires_reconnect: true });
  });
});

describe.skipIf(dovecot.skip)(`connect -> status -> cas -> disconnect -> cas through the CLI${dovecot.note}`, () => {
  it('works end to end, bills 0.2 per search (failures included), and asks to reconnect', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '5']);
    const env = { ...cleanEnv(), CAS_API_KEY: k, CAS_BASE_URL: srv.url, CAS_PDF_PASSWORD: 'ABCPM1234K' };
    const dir = tmpDir();
    writeFileSync(path.join(dir, 'pw'), imap.password);
    const c = await cas(
      [
        'inbox',
        'connect',
        '--provider',
        'imap',
        '--host',
        '127.0.0.1',
        '--port',
        String(imap.port),
        '--no-tls',
        '--user',
        imap.user,
        '--password-file',
        path.join(dir, 'pw'),
        '--json',
      ],
      { env },
    );
    expect(c.exitCode, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toEqual({ connected: true, provider: 'imap', email: imap.user });
    expect(c.stdout + c.stderr).not.toMatch(/itk_/);
    const s = await cas(['inbox', 'status', '--json'], { env });
    expect(JSON.parse(s.stdout).connected).toBe(true);
    const l = await cas(['inbox', 'list', '--from', '2026-03-01', '--to', '2026-03-31', '--type', 'depository_a', '--json'], { env });
    expect(JSON.parse(l.stdout).count).toBe(1);
    const out = path.join(dir, 'out');
    const d = await cas(['inbox', 'download', '--from', '2026-03-14', '--to', '2026-03-16', '--out-dir', out, '--parse'], { env });
    expect(d.exitCode, d.stderr).toBe(0);
    // The line names the saved file first (source_file), then the document.
    const { source_file, ...doc } = JSON.parse(d.stdout) as { source_file: string };
    expect(path.dirname(source_file)).toBe(out);
    expect(doc).toEqual(expectedJson('expected/depository_a.json'));
    const x = await cas(['inbox', 'disconnect', '--json'], { env });
    expect(x.exitCode).toBe(0);
    const again = await cas(['inbox', 'list', '--json'], { env });
    expect(again.exitCode).toBe(4);
    expect(again.stderr).toMatch(/revoked.*run `cas inbox connect` again/);
    const logs = await post(srv.url, '/v1/usage', { key: k, json: {} });
    const searches = logs.body.logs.filter((e: { feature: string }) => e.feature === 'inbox_search');
    expect(searches.map((e: { status_code: number; credits: number }) => [e.status_code, e.credits]).sort()).toEqual([
      [200, 0.2],
      [200, 0.2],
      [401, 0.2],
    ]);
  });
});

describe('Gmail connector on recorded API responses', () => {
  let fake: http.Server;
  let gmail: Served;
  const state = { revoked: false, expired: false, shortLived: false, calls: [] as string[], grants: [] as string[] };
  beforeAll(async () => {
    const b64 = (b: Buffer): string => b.toString('base64url');
    const message = (id: string, from: string, pdfName: string, attId: string, date: string) => ({
      id,
      threadId: id,
      internalDate: String(Date.parse(`${date}T10:00:00Z`)),
      payload: {
        mimeType: 'multipart/mixed',
        headers: [
          { name: 'From', value: from },
          { name: 'Subject', value: 'CAS' },
          { name: 'Message-ID', value: `<${id}@mail.example>` },
        ],
        parts: [
          { partId: '0', mimeType: 'text/plain', filename: '', body: { size: 10, data: b64(Buffer.from('statement')) } },
          { partId: '1', mimeType: 'application/pdf', filename: pdfName, body: { size: 1000, attachmentId: attId } },
        ],
      },
    });
    const recorded: Record<string, unknown> = {
      m1: message('m1', 'CAMS <donotreply@camsonline.com>', 'CAS.pdf', 'a1', '2026-03-10'),
      m2: message('m2', 'NSDL <NSDL-CAS@nsdl.co.in>', 'NSDL.pdf', 'a2', '2026-03-20'),
      m3: message('m3', 'Phish <donotreply@camsonline.com.evil.example>', 'x.pdf', 'a3', '2026-03-21'),
    };
    const attachments: Record<string, Buffer> = { a1: PDF.registrar_a, a2: PDF.depository_b, a3: PDF.registrar_a };
    fake = http.createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      state.calls.push(`${req.method} ${u.pathname}${u.search}`);
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const json = (s: number, d: unknown): void => {
          res.writeHead(s, { 'content-type': 'application/json' });
          res.end(JSON.stringify(d));
        };
        if (u.pathname === '/o/oauth2/v2/auth') {
          expect(u.searchParams.get('scope')).toBe('https://www.googleapis.com/auth/gmail.readonly');
          res.writeHead(302, { location: `${u.searchParams.get('redirect_uri')}?code=gcode&state=${u.searchParams.get('state')}` });
          return res.end();
        }
        if (u.pathname === '/token') {
          const p = new URLSearchParams(body);
          state.grants.push(String(p.get('grant_type')));
          if (p.get('grant_type') === 'authorization_code')
            return p.get('code_verifier')
              ? json(200, {
                  access_token: 'ya29.recorded',
                  refresh_token: '1//r',
                  expires_in: state.shortLived ? 30 : 3599,
                  token_type: 'Bearer',
                  scope: 'https://www.googleapis.com/auth/gmail.readonly',
                })
              : json(400, { error: 'invalid_request' });
          // Google's answers to a refresh: a new access token (no new refresh token), or invalid_grant once revoked.
          if (p.get('grant_type') === 'refresh_token' && p.get('client_id') === 'cid')
            return !state.revoked && p.get('refresh_token') === '1//r'
              ? json(200, {
                  access_token: 'ya29.refreshed',
                  expires_in: 3599,
                  token_type: 'Bearer',
                  scope: 'https://www.googleapis.com/auth/gmail.readonly',
                })
              : json(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
          return json(400, { error: 'unsupported_grant_type' });
        }
        if (u.pathname === '/revoke') return json(200, {});
        const accepted = state.expired ? ['Bearer ya29.refreshed'] : ['Bearer ya29.recorded', 'Bearer ya29.refreshed'];
        if (state.revoked || !accepted.includes(String(req.headers.authorization)))
          return json(401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
        if (u.pathname === '/gmail/v1/users/me/profile')
          return json(200, { emailAddress: 'aarav@gmail.example', messagesTotal: 1234, threadsTotal: 1000, historyId: '1' });
        if (u.pathname === '/gmail/v1/users/me/messages') {
          expect(u.searchParams.get('q')).toMatch(
            /^from:\(.*donotreply@camsonline\.com.*\) has:attachment filename:pdf after:\d+ before:\d+$/,
          );
          return u.searchParams.get('pageToken') === 'p2'
            ? json(200, { messages: [{ id: 'm3', threadId: 'm3' }], resultSizeEstimate: 1 })
            : json(200, {
                messages: [
                  { id: 'm1', threadId: 'm1' },
                  { id: 'm2', threadId: 'm2' },
                ],
                nextPageToken: 'p2',
                resultSizeEstimate: 3,
              });
        }
        const m = /^\/gmail\/v1\/users\/me\/messages\/(\w+)(?:\/attachments\/(\w+))?$/.exec(u.pathname);
        if (m && m[2]) return json(200, { size: attachments[m[2]].length, data: b64(attachments[m[2]]) });
        if (m) return json(200, recorded[m[1]]);
        json(404, { error: { code: 404 } });
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    gmail = await serve(undefined, [], {
      CAS_GMAIL_AUTH_URL: `${base}/o/oauth2/v2/auth`,
      CAS_GMAIL_TOKEN_URL: `${base}/token`,
      CAS_GMAIL_API_URL: base,
      CAS_GMAIL_REVOKE_URL: `${base}/revoke`,
      CAS_GMAIL_CLIENT_ID: 'cid',
    });
  });
  afterAll(async () => {
    await gmail?.stop();
    fake?.close();
  });

  it('cas inbox connect --provider gmail catches the token on a loopback listener and saves it', async () => {
    state.revoked = false;
    const k = await newKey(gmail.dataDir, ['--credits', '5']);
    const env = { ...cleanEnv(), CAS_API_KEY: k, CAS_BASE_URL: gmail.url };
    const { execa } = await import('execa');
    const { BIN } = await import('../helpers/cas.js');
    const proc = execa('node', [BIN, 'inbox', 'connect', '--provider', 'gmail', '--json'], {
      env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    const url = await new Promise<string>((resolve) => {
      let buf = '';
      proc.stderr!.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\S+)/.exec(buf);
        if (m) resolve(m[1]);
      });
    });
    // The browser: the provider sends it to the service's callback, which sends it to the CLI's listener.
    const toCallback = await fetch(url, { redirect: 'manual' });
    const toCli = await fetch(toCallback.headers.get('location')!, { redirect: 'manual' });
    const page = await fetch(toCli.headers.get('location')!);
    expect(await page.text()).toMatch(/Mailbox connected/);
    const r = await proc;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(JSON.parse(String(r.stdout))).toEqual({ connected: true, provider: 'gmail', email: 'aarav@gmail.example' });
    const st = await cas(['inbox', 'status', '--json'], { env });
    expect(JSON.parse(st.stdout)).toMatchObject({ connected: true, email: 'aarav@gmail.example' });
  });

  it('OAuth (PKCE, read-only scope), paginated search, attachments; then a revoked grant asks to reconnect', async () => {
    const k = await newKey(gmail.dataDir, ['--credits', '5']);
    const c = await post(gmail.url, '/v4/inbox/connect', {
      key: k,
      json: { provider: 'gmail', redirect_uri: 'https://app.example/mail-done', state: 'xyz' },
    });
    expect(c.body).toMatchObject({ provider: 'gmail', expires_in: 600 });
    const auth = new URL(c.body.oauth_url);
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    const toCallback = await fetch(auth, { redirect: 'manual' });
    const toApp = new URL((await fetch(toCallback.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!);
    expect(toApp.origin + toApp.pathname).toBe('https://app.example/mail-done');
    expect(toApp.searchParams.get('state')).toBe('xyz');
    const t = toApp.searchParams.get('inbox_token')!;
    expect(t).toMatch(/^itk_/);
    expect((await post(gmail.url, '/v4/inbox/status', { key: k, json: {}, headers: { 'x-inbox-token': t } })).body).toEqual({
      status: 'success',
      connected: true,
      provider: 'gmail',
      email: 'aarav@gmail.example',
    });
    const r = await post(gmail.url, '/v4/inbox/cas', {
      key: k,
      json: { start_date: '2026-03-01', end_date: '2026-03-31' },
      headers: { 'x-inbox-token': t },
    });
    expect(r.body.count).toBe(2);
    expect(r.body.files.map((f: { cas_type: string; original_filename: string }) => `${f.cas_type}:${f.original_filename}`).sort()).toEqual(
      ['depository_b:NSDL.pdf', 'registrar_a:CAS.pdf'],
    );
    expect(state.calls.some((x) => x.includes('pageToken=p2'))).toBe(true);
    const f0 = r.body.files.find((f: { cas_type: string }) => f.cas_type === 'registrar_a');
    expect(Buffer.from(await (await fetch(f0.url)).arrayBuffer()).equals(PDF.registrar_a)).toBe(true);
    state.revoked = true;
    const revoked = await post(gmail.url, '/v4/inbox/cas', { key: k, json: {}, headers: { 'x-inbox-token': t } });
    expect(revoked.status).toBe(401);
    expect(revoked.body).toEqual({ status: 'error', msg: expect.stringMatching(/refused the stored grant/), requires_reconnect: true });
    expect((await post(gmail.url, '/v4/inbox/status', { key: k, json: {}, headers: { 'x-inbox-token': t } })).body.connected).toBe(false);
  });

  it('an expired access token is renewed once with the refresh token and kept; a refused refresh asks to reconnect', async () => {
    state.revoked = false;
    state.expired = false;
    const k = await newKey(gmail.dataDir, ['--credits', '5']);
    const c = await post(gmail.url, '/v4/inbox/connect', { key: k, json: { provider: 'gmail', redirect_uri: 'https://app.example/done' } });
    const toCallback = await fetch(c.body.oauth_url, { redirect: 'manual' });
    const t = new URL((await fetch(toCallback.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!).searchParams.get(
      'inbox_token',
    )!;
    const search = () =>
      post(gmail.url, '/v4/inbox/cas', {
        key: k,
        json: { start_date: '2026-03-01', end_date: '2026-03-31' },
        headers: { 'x-inbox-token': t },
      });
    state.grants.length = 0;
    expect((await search()).body.count).toBe(2);
    expect(state.grants).toEqual([]);
    // An hour later the access token is refused: one refresh, then the search goes through.
    state.expired = true;
    const renewed = await search();
    expect(renewed.status).toBe(200);
    expect(renewed.body.count).toBe(2);
    expect(state.grants).toEqual(['refresh_token']);
    // The new access token was stored: the next search needs no refresh.
    expect((await search()).body.count).toBe(2);
    expect(state.grants).toEqual(['refresh_token']);
    // The user revokes access: the API refuses, the refresh is refused (invalid_grant): reconnect.
    state.revoked = true;
    const gone = await search();
    expect(gone.status).toBe(401);
    expect(gone.body).toEqual({ status: 'error', msg: expect.stringMatching(/refused the stored grant/), requires_reconnect: true });
    expect(state.grants).toEqual(['refresh_token', 'refresh_token']);
    state.revoked = false;
    state.expired = false;
  });

  it('an access token within a minute of its expiry is renewed before the first call', async () => {
    state.revoked = false;
    state.expired = false;
    state.shortLived = true;
    try {
      const k = await newKey(gmail.dataDir, ['--credits', '5']);
      const c = await post(gmail.url, '/v4/inbox/connect', {
        key: k,
        json: { provider: 'gmail', redirect_uri: 'https://app.example/done' },
      });
      const toCallback = await fetch(c.body.oauth_url, { redirect: 'manual' });
      const t = new URL(
        (await fetch(toCallback.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!,
      ).searchParams.get('inbox_token')!;
      state.grants.length = 0;
      state.calls.length = 0;
      const r = await post(gmail.url, '/v4/inbox/cas', {
        key: k,
        json: { start_date: '2026-03-01', end_date: '2026-03-31' },
        headers: { 'x-inbox-token': t },
      });
      expect(r.body.count).toBe(2);
      // The refresh came first: no Gmail API call was made with the old token and refused.
      expect(state.grants).toEqual(['refresh_token']);
      expect(state.calls[0]).toBe('POST /token');
    } finally {
      state.shortLived = false;
    }
  });
});

describe('forged inbox tokens (issue 18 item 9)', () => {
  it('are refused as invalid and create no key on the server', async () => {
    const keys = async (): Promise<string[]> =>
      (await dbRows(srv.dataDir, "SELECT name FROM settings WHERE name LIKE 'inbox_key_%' ORDER BY name")).map((r) => r.name as string);
    const before = await keys();
    for (const kid of [2, 7, 200]) {
      const forged = `itk_${Buffer.concat([Buffer.from([kid]), Buffer.alloc(40, kid)]).toString('base64url')}`;
      const r = await post(srv.url, '/v4/inbox/status', { key, headers: { 'x-inbox-token': forged } });
      expect(r).toMatchObject({ status: 401, body: { status: 'error', msg: 'invalid inbox token', requires_reconnect: true } });
    }
    expect(await keys()).toEqual(before);
  });
});

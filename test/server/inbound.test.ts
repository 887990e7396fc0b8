import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { InboundWebhookPayload } from '../../src/schema/index.js';
import { verifyWebhook } from '../../src/shared/webhook-signature.js';
import { cas, fixture, tmpDir } from '../helpers/cas.js';
import { dbRows, newKey, PG, post, receiver, serve, smtpPortOf, waitFor, waitForAsync, type Served } from '../helpers/server.js';
import { selfSigned } from '../helpers/openssl.js';
import { needs } from '../helpers/tools.js';

const CAMS = readFileSync(fixture('registrar/cams-detailed.pdf'));
const CDSL = readFileSync(fixture('depository_a/cdsl-cas.pdf'));
const NSDL = readFileSync(fixture('depository_b/nsdl-cas.pdf'));
const KFIN = readFileSync(fixture('registrar/kfintech-detailed.pdf'));
const PLAIN = readFileSync(fixture('registrar/cams-detailed-plain.pdf'));

async function raw(opts: Record<string, unknown>): Promise<Buffer> {
  return new MailComposer(opts as never).compile().build();
}

let srv: Served;
let smtpPort: number;
let key: string;
let hooks: Awaited<ReturnType<typeof receiver>>;

async function send(to: string, opts: Record<string, unknown>): Promise<{ ok: boolean; code?: number; message?: string }> {
  const t = nodemailer.createTransport({
    host: '127.0.0.1',
    port: smtpPort,
    secure: false,
    ignoreTLS: true,
    tls: { rejectUnauthorized: false },
  });
  try {
    await t.sendMail({ from: 'Aarav <aarav.investor@mail.example>', to, ...opts });
    return { ok: true };
  } catch (err) {
    const e = err as { responseCode?: number; message: string };
    return { ok: false, code: e.responseCode, message: e.message };
  } finally {
    t.close();
  }
}

const inline = (from: string, subject: string) =>
  `Please see the statement below.\n\n---------- Forwarded message ---------\nFrom: Statement Desk <${from}>\nDate: Tue, 7 Apr 2026 at 10:15\nSubject: ${subject}\nTo: <aarav.investor@mail.example>\n\nDear Investor, your statement is attached.\n`;

beforeAll(async () => {
  hooks = await receiver();
  srv = await serve(undefined, ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'], {
    CAS_DNS_OFFLINE: '1',
    CAS_WEBHOOK_BACKOFF_MS: '200',
  });
  smtpPort = Number(/SMTP on 127\.0\.0\.1:(\d+)/.exec(srv.log())![1]);
  key = await newKey(srv.dataDir, ['--credits', '10']);
});
afterAll(async () => {
  await srv?.stop();
  await hooks?.close();
});

describe('forwarding addresses end to end', () => {
  it('four senders, inline and attached forwards, a non-statement attachment: signed webhooks, files, exact bytes', async () => {
    const created = await post(srv.url, '/v4/inbound-email', {
      key,
      json: { alias: 'aarav', reference: 'user-42', callback_url: hooks.url, metadata: { plan: 'gold' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      email: 'aarav@in.cas.test',
      status: 'active',
      reference: 'user-42',
      allowed_sources: [],
      metadata: { plan: 'gold' },
    });
    const secret = created.body.webhook_secret as string;
    expect(secret).toMatch(/^whsec_/);
    const id = created.body.inbound_email_id as string;
    expect(
      (
        (await fetch(`${srv.url}/v4/inbound-email/${id}`, { headers: { 'x-api-key': key } }).then((r) => r.json())) as Record<
          string,
          unknown
        >
      ).webhook_secret,
    ).toBeUndefined();

    // registrar_a, inline forward, with a non-statement attachment beside the PDF.
    expect(
      await send('aarav@in.cas.test', {
        subject: 'Fwd: Consolidated Account Statement - CAMS Mailback Request',
        text: inline('donotreply@camsonline.com', 'Consolidated Account Statement - CAMS Mailback Request'),
        attachments: [
          { filename: 'CAS_01042026.pdf', content: CAMS, contentType: 'application/pdf' },
          { filename: 'notes.txt', content: 'not a statement' },
        ],
      }),
    ).toEqual({ ok: true });
    // depository_a, forwarded as an attached message.
    const original = await raw({
      from: 'CDSL <eCAS@cdslstatement.com>',
      to: 'aarav.investor@mail.example',
      subject: 'CAS for March 2026',
      text: 'Your CAS',
      attachments: [{ filename: 'MAY2025_AA07602549_TXN.pdf', content: CDSL, contentType: 'application/pdf' }],
    });
    expect(
      await send('AARAV@in.cas.test', {
        subject: 'Fwd: CAS',
        text: 'see attached',
        attachments: [{ filename: 'original.eml', content: original, contentType: 'message/rfc822' }],
      }),
    ).toEqual({ ok: true });
    // depository_b inline; registrar_b attached; an unencrypted registrar PDF from registrar_a (content confirmed).
    expect(
      (
        await send('aarav@in.cas.test', {
          subject: 'Fwd: NSDL CAS',
          text: inline('NSDL-CAS@nsdl.co.in', 'NSDL e-CAS'),
          attachments: [{ filename: 'NSDLe-CAS_103802213_MAR_2026.PDF', content: NSDL, contentType: 'application/pdf' }],
        })
      ).ok,
    ).toBe(true);
    const kfin = await raw({
      from: 'KFintech <samfS@kfintech.com>',
      to: 'x@y',
      subject: 'CAS',
      text: 'statement',
      attachments: [{ filename: 'kfin.pdf', content: KFIN }],
    });
    expect(
      (
        await send('aarav@in.cas.test', {
          subject: 'Fwd',
          text: 'fyi',
          attachments: [{ filename: 'kfin.eml', content: kfin, contentType: 'message/rfc822' }],
        })
      ).ok,
    ).toBe(true);
    expect(
      (
        await send('aarav@in.cas.test', {
          subject: 'Fwd',
          text: inline('donotreply@camsonline.com', 'CAS'),
          attachments: [{ filename: 'plain.pdf', content: PLAIN }],
        })
      ).ok,
    ).toBe(true);
    // A look-alike sender on another domain: ignored.
    expect(
      (
        await send('aarav@in.cas.test', {
          subject: 'Fwd',
          text: inline('donotreply@camsonline.com.evil.example', 'CAS'),
          attachments: [{ filename: 'x.pdf', content: PLAIN }],
        })
      ).ok,
    ).toBe(true);

    const got = await waitFor(() => (hooks.hooks.filter((h) => h.headers['x-cas-delivery-id']).length >= 5 ? hooks.hooks : undefined));
    expect(got).toHaveLength(5);
    const types: string[] = [];
    for (const h of got) {
      expect(verifyWebhook(secret, String(h.headers['x-cas-signature']), h.body, 300)).toEqual({ ok: true });
      expect(h.headers['x-cas-event']).toBe('inbound_email.received');
      const payload = JSON.parse(h.body);
      expect(InboundWebhookPayload.safeParse(payload).success).toBe(true);
      expect(payload).toMatchObject({
        inbound_email_id: id,
        reference: 'user-42',
        metadata: { plan: 'gold' },
        forwarded_by: 'aarav.investor@mail.example',
        count: 1,
      });
      const f = payload.files[0];
      expect(f.expires_in).toBe(172800);
      expect(f.filename).toMatch(new RegExp(`^${f.cas_type}_\\d{8}_[0-9a-f]{12}\\.pdf$`));
      types.push(f.cas_type);
      expect(f.content_check).toBe(f.original_filename === 'plain.pdf' ? 'confirmed' : 'encrypted');
      expect(f.authentication).toEqual(expect.objectContaining({ spf: expect.any(String) }));
      const bytes = Buffer.from(await (await fetch(f.url)).arrayBuffer());
      const want = {
        registrar_a: f.original_filename === 'plain.pdf' ? PLAIN : CAMS,
        depository_a: CDSL,
        depository_b: NSDL,
        registrar_b: KFIN,
      }[f.cas_type as 'registrar_a'];
      expect(bytes.equals(want)).toBe(true);
    }
    expect(types.sort()).toEqual(['depository_a', 'depository_b', 'registrar_a', 'registrar_a', 'registrar_b']);
    const senders = got.map((h) => JSON.parse(h.body).files[0].sender_email).sort();
    expect(senders).toEqual([
      'donotreply@camsonline.com',
      'donotreply@camsonline.com',
      'ecas@cdslstatement.com',
      'nsdl-cas@nsdl.co.in',
      'samfs@kfintech.com',
    ]);

    // The files list: all five, in order, with cursor pagination.
    const page1 = (await fetch(`${srv.url}/v4/inbound-email/${id}/files?limit=3`, { headers: { 'x-api-key': key } }).then((r) =>
      r.json(),
    )) as { files: { filename: string; url: string }[]; count: number; cursor: string };
    expect(page1.count).toBe(3);
    const page2 = (await fetch(`${srv.url}/v4/inbound-email/${id}/files?limit=3&cursor=${page1.cursor}`, {
      headers: { 'x-api-key': key },
    }).then((r) => r.json())) as { files: unknown[]; cursor: string | null };
    expect(page2.files).toHaveLength(2);
    expect(page2.cursor).toBeNull();
    const tampered = page1.files[0].url.replace(/exp=(\d+)/, (_m, e) => `exp=${Number(e) + 1000}`);
    expect((await fetch(tampered)).status).toBe(403);

    // The CLI downloads them and checks a signature from a file.
    const dir = tmpDir();
    const dl = await cas(['inbound', 'files', id, '--download', dir, '--json'], { env: { CAS_API_KEY: key, CAS_BASE_URL: srv.url } });
    expect(dl.exitCode).toBe(0);
    expect(JSON.parse(dl.stdout).count).toBe(5);
    writeFileSync(path.join(dir, 'secret'), secret);
    writeFileSync(path.join(dir, 'body.json'), got[0].body);
    const check = () =>
      cas([
        'inbound',
        'verify-signature',
        '--secret-file',
        path.join(dir, 'secret'),
        '--header',
        String(got[0].headers['x-cas-signature']),
        '--body-file',
        path.join(dir, 'body.json'),
        '--tolerance',
        '0',
      ]);
    const v = await check();
    expect(v.exitCode).toBe(0);
    writeFileSync(path.join(dir, 'body.json'), got[0].body.replace('user-42', 'user-43'));
    const bad = await check();
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/does not match/);
  });

  it('refuses unknown and paused addresses and sources outside allowed_sources; files without a callback are listed', async () => {
    const unknown = await send('nobody@in.cas.test', {
      subject: 'x',
      text: inline('donotreply@camsonline.com', 'x'),
      attachments: [{ filename: 'a.pdf', content: CAMS }],
    });
    expect(unknown).toMatchObject({ ok: false, code: 550 });
    const only = await post(srv.url, '/v4/inbound-email', {
      key,
      json: { alias: 'depository-only', allowed_sources: ['depository_a', 'depository_b'] },
    });
    const refused = await send('depository-only@in.cas.test', {
      subject: 'x',
      text: inline('donotreply@camsonline.com', 'x'),
      attachments: [{ filename: 'a.pdf', content: CAMS }],
    });
    expect(refused).toMatchObject({ ok: false, code: 550 });
    expect(refused.message).toMatch(/registrar_a are not accepted/);
    expect(
      (
        await send('depository-only@in.cas.test', {
          subject: 'x',
          text: inline('eCAS@cdslstatement.com', 'x'),
          attachments: [{ filename: 'c.pdf', content: CDSL }],
        })
      ).ok,
    ).toBe(true);
    const files = (await fetch(`${srv.url}/v4/inbound-email/${only.body.inbound_email_id}/files`, { headers: { 'x-api-key': key } }).then(
      (r) => r.json(),
    )) as { files: { expires_in: number; cas_type: string }[] };
    expect(files.files).toEqual([expect.objectContaining({ cas_type: 'depository_a', expires_in: 1800 })]);
    await post(srv.url, `/v4/inbound-email/${only.body.inbound_email_id}/pause`, { key, json: {} });
    expect(
      await send('depository-only@in.cas.test', {
        subject: 'x',
        text: inline('eCAS@cdslstatement.com', 'x'),
        attachments: [{ filename: 'c.pdf', content: CDSL }],
      }),
    ).toMatchObject({ ok: false, code: 550 });
  });

  it('validates creation', async () => {
    for (const [body, re] of [
      [{ alias: 'A B' }, /alias/],
      [{ metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])) }, /at most 10/],
      [{ allowed_sources: ['bank'] }, /allowed_sources/],
      [{ callback_url: 'http://10.1.2.3/hook' }, /non-public address/],
      [{ callback_url: 'ftp://x.example/h' }, /http or https/],
      [{ alias: 'aarav' }, /taken/],
    ] as const) {
      const r = await post(srv.url, '/v4/inbound-email', { key, json: body });
      expect(r.status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(r.body.msg).toMatch(re);
    }
  });
});

describe('message size cap', () => {
  it('refuses a message over the cap with 552, and accepts one under it', async () => {
    const small = await serve(undefined, ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'], {
      CAS_DNS_OFFLINE: '1',
      CAS_SMTP_MAX_BYTES: '20000',
    });
    try {
      const port = Number(/SMTP on 127\.0\.0\.1:(\d+)/.exec(small.log())![1]);
      const k = await newKey(small.dataDir, ['--credits', '1']);
      await post(small.url, '/v4/inbound-email', { key: k, json: { alias: 'capped' } });
      const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
      const big = await t
        .sendMail({
          from: 'a@mail.example',
          to: 'capped@in.cas.test',
          subject: 'Fwd',
          text: inline('eCAS@cdslstatement.com', 'CAS'),
          attachments: [{ filename: 'c.pdf', content: Buffer.concat([CDSL, CDSL, CDSL, CDSL]) }],
        })
        .then(
          () => null,
          (e: { responseCode?: number }) => e.responseCode,
        );
      expect(big).toBe(552);
      const ok = await t
        .sendMail({
          from: 'a@mail.example',
          to: 'capped@in.cas.test',
          subject: 'Fwd',
          text: inline('eCAS@cdslstatement.com', 'CAS'),
          attachments: [{ filename: 'c.pdf', content: CDSL }],
        })
        .then(() => true);
      expect(ok).toBe(true);
      t.close();
    } finally {
      await small.stop();
    }
  });
});

const openssl = needs('openssl');
describe.skipIf(openssl.skip)(`SMTP STARTTLS and inbound link expiry${openssl.note}`, () => {
  it('with a certificate: STARTTLS is offered, plain MAIL FROM is refused (530) when TLS is required, links expire', async () => {
    const { keyFile, certFile } = selfSigned(tmpDir(), {
      name: 'smtp',
      subject: '/CN=localhost',
      days: 1,
      altNames: 'DNS:localhost,IP:127.0.0.1',
    });
    const tls = await serve(undefined, ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'], {
      CAS_DNS_OFFLINE: '1',
      CAS_SMTP_TLS_KEY: keyFile,
      CAS_SMTP_TLS_CERT: certFile,
      CAS_SMTP_REQUIRE_TLS: '1',
      CAS_INBOUND_LINK_TTL_SECONDS: '2',
    });
    try {
      const port = Number(/SMTP on 127\.0\.0\.1:(\d+)/.exec(tls.log())![1]);
      const k = await newKey(tls.dataDir, ['--credits', '1']);
      const id = (await post(tls.url, '/v4/inbound-email', { key: k, json: { alias: 'secure' } })).body.inbound_email_id as string;
      const mail = {
        from: 'a@mail.example',
        to: 'secure@in.cas.test',
        subject: 'Fwd',
        text: inline('eCAS@cdslstatement.com', 'CAS'),
        attachments: [{ filename: 'c.pdf', content: CDSL }],
      };
      // Plain: refused before any data is taken.
      const plain = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
      const refused = await plain.sendMail(mail).then(
        () => null,
        (e: { responseCode?: number; message: string }) => e,
      );
      plain.close();
      expect(refused?.responseCode).toBe(530);
      expect(refused?.message).toMatch(/STARTTLS/);
      // Upgraded with the server's own certificate as the only trusted CA.
      const secure = nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        secure: false,
        requireTLS: true,
        tls: { ca: readFileSync(certFile), servername: 'localhost' },
      });
      await secure.sendMail(mail);
      secure.close();
      const list = (await fetch(`${tls.url}/v4/inbound-email/${id}/files`, { headers: { 'x-api-key': k } }).then((r) => r.json())) as {
        files: { url: string; expires_in: number; authentication: { tls: boolean } }[];
      };
      expect(list.files).toHaveLength(1);
      const f = list.files[0];
      expect(f.expires_in).toBe(2);
      expect(f.authentication.tls).toBe(true);
      const now = await fetch(f.url);
      expect(now.status).toBe(200);
      expect(Buffer.from(await now.arrayBuffer()).equals(CDSL)).toBe(true);
      // After its lifetime the same link is refused with a clear message; a fresh listing gives a working one.
      await new Promise((r) => setTimeout(r, 3100));
      const late = await fetch(f.url);
      expect(late.status).toBe(403);
      expect(JSON.stringify(await late.json())).toMatch(/expired/);
      const again = (await fetch(`${tls.url}/v4/inbound-email/${id}/files`, { headers: { 'x-api-key': k } }).then((r) => r.json())) as {
        files: { url: string }[];
      };
      expect((await fetch(again.files[0].url)).status).toBe(200);
    } finally {
      await tls.stop();
    }
  });

  it('refuses half a TLS configuration at start-up, naming both settings', async () => {
    const r = await cas(['serve', '--port', '0', '--smtp-port', '0', '--data-dir', tmpDir()], {
      env: { CAS_SMTP_TLS_KEY: '/nonexistent.key' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/CAS_SMTP_TLS_KEY and CAS_SMTP_TLS_CERT/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('inbound email list: status filter and pagination', () => {
  it('filters by status, pages with limit/offset, excludes deleted ones, and checks its bounds', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '1']);
    const ids: string[] = [];
    for (const a of ['list-a', 'list-b', 'list-c', 'list-d', 'list-e'])
      ids.push((await post(srv.url, '/v4/inbound-email', { key: k, json: { alias: a } })).body.inbound_email_id);
    await post(srv.url, `/v4/inbound-email/${ids[1]}/pause`, { key: k, json: {} });
    await post(srv.url, `/v4/inbound-email/${ids[2]}/pause`, { key: k, json: {} });
    expect((await fetch(`${srv.url}/v4/inbound-email/${ids[4]}`, { method: 'DELETE', headers: { 'x-api-key': k } })).status).toBe(200);
    const list = async (q: string) =>
      (await fetch(`${srv.url}/v4/inbound-email?${q}`, { headers: { 'x-api-key': k } })).json() as Promise<{
        inbound_emails: { inbound_email_id: string; status: string }[];
        total: number;
        limit: number;
        offset: number;
      }>;
    expect((await list('status=active')).inbound_emails.map((e) => e.inbound_email_id)).toEqual([ids[0], ids[3]]);
    expect((await list('status=paused')).inbound_emails.map((e) => e.inbound_email_id)).toEqual([ids[1], ids[2]]);
    const all = await list('status=all');
    expect(all.total).toBe(4);
    expect((await list('limit=2&offset=0')).inbound_emails.map((e) => e.inbound_email_id)).toEqual([ids[0], ids[1]]);
    expect(await list('limit=2&offset=2')).toMatchObject({
      total: 4,
      limit: 2,
      offset: 2,
      inbound_emails: [{ inbound_email_id: ids[2] }, { inbound_email_id: ids[3] }],
    });
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'status=deleted'])
      expect((await fetch(`${srv.url}/v4/inbound-email?${q}`, { headers: { 'x-api-key': k } })).status, q).toBe(400);
    expect((await post(srv.url, `/v4/inbound-email/${ids[0]}/resume`, { key: k, json: {} })).body.msg).toMatch(
      /cannot resume an inbound email that is active/,
    );
    expect((await post(srv.url, `/v4/inbound-email/${ids[4]}/resume`, { key: k, json: {} })).status).toBe(404);
    expect((await post(srv.url, `/v4/inbound-email/${ids[1]}/resume`, { key: k, json: {} })).body.status).toBe('active');
  });
});

describe('webhook retries survive a restart', () => {
  it('the receiver fails, the service stops mid-retry and starts again; the delivery arrives once with the same id', async () => {
    const hook = await receiver();
    hook.mode.status = 503;
    const dataDir = tmpDir('cas-srv-');
    let s = await serve(dataDir, ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'], {
      CAS_DNS_OFFLINE: '1',
      CAS_WEBHOOK_BACKOFF_MS: '300',
    });
    const port = Number(/SMTP on 127\.0\.0\.1:(\d+)/.exec(s.log())![1]);
    const k = await newKey(dataDir, ['--credits', '1']);
    await post(s.url, '/v4/inbound-email', { key: k, json: { alias: 'retry', callback_url: hook.url } });
    const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    await t.sendMail({
      from: 'aarav.investor@mail.example',
      to: 'retry@in.cas.test',
      subject: 'Fwd',
      text: inline('eCAS@cdslstatement.com', 'CAS'),
      attachments: [{ filename: 'c.pdf', content: CDSL }],
    });
    t.close();
    await waitFor(() => (hook.hooks.length >= 2 ? true : undefined));
    expect(await s.stop()).toBe(0);
    const failedIds = new Set(hook.hooks.map((h) => h.headers['x-cas-delivery-id']));
    expect(failedIds.size).toBe(1);
    const before = hook.hooks.length;
    hook.mode.status = 200;
    s = await serve(dataDir, ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'], {
      CAS_DNS_OFFLINE: '1',
      CAS_WEBHOOK_BACKOFF_MS: '300',
    });
    try {
      await waitFor(() => (hook.hooks.length > before ? true : undefined), 15_000);
      await new Promise((r) => setTimeout(r, 1500));
      const after = hook.hooks.slice(before);
      expect(after).toHaveLength(1);
      expect(after[0].headers['x-cas-delivery-id']).toBe([...failedIds][0]);
      expect(JSON.parse(after[0].body).files[0].cas_type).toBe('depository_a');
    } finally {
      await s.stop();
      await hook.close();
    }
  });
});

describe('webhook deliveries: concurrent across endpoints, attempts recorded before the POST (18.15)', () => {
  const env = { CAS_DNS_OFFLINE: '1', CAS_WEBHOOK_BACKOFF_MS: '300' };
  const mailTo = async (s: Served, to: string): Promise<void> => {
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPortOf(s), secure: false, ignoreTLS: true });
    await t.sendMail({
      from: 'aarav.investor@mail.example',
      to,
      subject: 'Fwd',
      text: inline('eCAS@cdslstatement.com', 'CAS'),
      attachments: [{ filename: 'c.pdf', content: CDSL }],
    });
    t.close();
  };

  it('a slow endpoint does not hold back another customer', async () => {
    const slow = await receiver();
    const fast = await receiver();
    slow.mode.delayMs = 4000;
    const s = await serve(undefined, ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'], env);
    try {
      const k = await newKey(s.dataDir, ['--credits', '1']);
      await post(s.url, '/v4/inbound-email', { key: k, json: { alias: 'slow-one', callback_url: slow.url } });
      await post(s.url, '/v4/inbound-email', { key: k, json: { alias: 'fast-one', callback_url: fast.url } });
      await mailTo(s, 'slow-one@in.cas.test');
      await waitFor(() => slow.hooks[0]);
      await mailTo(s, 'fast-one@in.cas.test');
      const f = await waitFor(() => fast.hooks[0]);
      // Delivered while the slow endpoint was still holding its POST (it answers 4 s after receiving it).
      expect(f.at - slow.hooks[0].at).toBeLessThan(3000);
    } finally {
      await s.stop();
      await slow.close();
      await fast.close();
    }
  });

  it('an attempt killed mid-POST (SIGKILL) is on record and retried after the restart with the same delivery id', async () => {
    const hook = await receiver();
    hook.mode.hang = true;
    const dataDir = tmpDir('cas-srv-');
    // PostgreSQL: the restarted server is another instance, which takes the killed one's delivery back
    // once its lease (webhook timeout + 5 s) has run out; SQLite takes every lease back at start-up.
    const killEnv = PG ? { ...env, CAS_HEARTBEAT_MS: '500', CAS_WEBHOOK_TIMEOUT_MS: '3000' } : env;
    const retryMs = PG ? 30_000 : 10_000;
    let s = await serve(dataDir, ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'], killEnv);
    try {
      const k = await newKey(dataDir, ['--credits', '1']);
      await post(s.url, '/v4/inbound-email', { key: k, json: { alias: 'killed', callback_url: hook.url } });
      await mailTo(s, 'killed@in.cas.test');
      const first = await waitFor(() => hook.hooks[0]);
      const id = String(first.headers['x-cas-delivery-id']);
      const read = <T>(sql: string): Promise<T> => dbRows(dataDir, sql, [id]) as Promise<T>;
      // The POST is in flight: its attempt is already recorded, not completed.
      expect(await read('SELECT attempt, status_code, completed_at FROM webhook_attempts WHERE delivery_id = ?')).toEqual([
        { attempt: 1, status_code: null, completed_at: null },
      ]);
      s.proc.kill('SIGKILL');
      await s.proc;
      hook.mode.hang = false;
      s = await serve(dataDir, ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'], killEnv);
      const again = await waitFor(() => hook.hooks[1], retryMs);
      expect(again.headers['x-cas-delivery-id']).toBe(id);
      await waitForAsync(
        async () => (await read<{ status: string }[]>('SELECT status FROM webhook_deliveries WHERE id = ?'))[0].status === 'delivered',
      );
      const attempts = await read<{ attempt: number; status_code: number | null; error: string | null }[]>(
        'SELECT attempt, status_code, error FROM webhook_attempts WHERE delivery_id = ? ORDER BY id',
      );
      expect(attempts).toEqual([
        { attempt: 1, status_code: null, error: expect.stringMatching(/interrupted/) },
        { attempt: 2, status_code: 200, error: null },
      ]);
    } finally {
      await s.stop();
      await hook.close();
    }
  });
});

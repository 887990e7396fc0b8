/**
 * Issue 18, load: 200 mixed requests at once against a real `cas serve` on loopback (valid parses,
 * invalid bodies, oversized bodies, wrong keys, hostile PDFs), with the server killed (SIGKILL) in
 * the middle and started again on the same database. Afterwards credits balance exactly (what the
 * key lost = the billed rows of the usage log, no reservation left), every answer was SPEC's shape
 * or a dropped connection while the server was down, every webhook of mail accepted before or after
 * the kill arrives at least once, and the database passes integrity_check.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fixture, tmpDir } from './helpers.js';
import nodemailer from 'nodemailer';
import { newKey, post, receiver, serve, smtpPortOf, waitFor, type Served } from './server-helpers.js';

const CREDITS = 40;
const SUMMARY = readFileSync(fixture('registrar/cams-summary.pdf'));
const bodies = {
  valid: JSON.stringify({ pdf_file: SUMMARY.toString('base64'), password: 'ABCPM1234K' }),
  invalid: JSON.stringify({ pdf_file: 123, password: ['x'] }),
  oversized: JSON.stringify({ pdf_file: Buffer.alloc(1_600_000, 7).toString('base64') }),
  truncated: JSON.stringify({ pdf_file: SUMMARY.subarray(0, Math.floor(SUMMARY.length * 0.6)).toString('base64'), password: 'ABCPM1234K' }),
  garbage: JSON.stringify({ pdf_file: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(50_000, 'garbage text, not a statement ')]).toString('base64') }),
};
type Kind = keyof typeof bodies | 'wrong_key';
const KINDS: Kind[] = ['valid', 'valid', 'valid', 'valid', 'invalid', 'oversized', 'wrong_key', 'truncated', 'garbage', 'valid'];
/** What each kind may be answered (429/503: the caps on uploads in flight; 402: credits ran out). */
const ALLOWED: Record<Kind, number[]> = {
  valid: [200, 402, 429, 503],
  invalid: [400, 429, 503],
  oversized: [413, 429, 503],
  wrong_key: [403],
  truncated: [400, 402, 429, 503],
  garbage: [400, 402, 429, 503],
};

interface Answer { kind: Kind; status: number; body: unknown; phase: 'a' | 'b' }

async function send(url: string, kind: Kind, key: string, phase: 'a' | 'b'): Promise<Answer> {
  try {
    const res = await fetch(`${url}/v4/smart/parse`, { method: 'POST', headers: { 'x-api-key': kind === 'wrong_key' ? 'cas_not_a_key' : key, 'content-type': 'application/json' }, body: kind === 'wrong_key' ? bodies.valid : bodies[kind] });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* kept as text: fails the shape check below */
    }
    return { kind, status: res.status, body, phase };
  } catch {
    // The connection dropped (the server was killed under it).
    return { kind, status: 0, body: null, phase };
  }
}

async function mail(s: Served, to: string): Promise<void> {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPortOf(s), secure: false, ignoreTLS: true });
  try {
    const text = 'FYI\n\n---------- Forwarded message ---------\nFrom: Statement Desk <donotreply@camsonline.com>\nSubject: CAS\n\nAttached.\n';
    await t.sendMail({ from: 'aarav.investor@mail.example', to, subject: 'Fwd: CAS', text, attachments: [{ filename: 'cas.pdf', content: SUMMARY }] });
  } finally {
    t.close();
  }
}

describe('load: 200 mixed requests across a SIGKILL and a restart', () => {
  it('credits balance exactly, every answer has SPEC shape, the database is intact', async () => {
    const dataDir = tmpDir('cas-load-');
    const env = { CAS_MAX_UPLOAD_BYTES: String(1024 * 1024), CAS_MAX_UPLOADS: '64', CAS_MAX_UPLOADS_PER_KEY: '64' };
    const mailArgs = ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'];
    const hook = await receiver();
    hook.mode.delayMs = 200;
    let s: Served = await serve(dataDir, mailArgs, env);
    const key = await newKey(dataDir, ['--credits', String(CREDITS)]);
    const webhookKey = await newKey(dataDir);
    expect((await post(s.url, '/v4/inbound-email', { key: webhookKey, json: { alias: 'load', callback_url: hook.url } })).status).toBe(201);
    const t0 = Date.now();
    await mail(s, 'load@in.cas.test');
    await mail(s, 'load@in.cas.test');

    // Phase a: 100 at once; the server is killed once a few parses have been answered.
    const a = Array.from({ length: 100 }, (_, i) => send(s.url, KINDS[i % KINDS.length], key, 'a'));
    let answered = 0;
    for (const p of a) void p.then((r) => (answered += r.kind === 'valid' && r.status === 200 ? 1 : 0));
    while (answered < 5 && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 20));
    s.proc.kill('SIGKILL');
    await s.proc;
    const phaseA = await Promise.all(a);

    // Phase b: the server again on the same database, 100 more at once.
    s = await serve(dataDir, mailArgs, env);
    const [phaseB] = await Promise.all([Promise.all(Array.from({ length: 100 }, (_, i) => send(s.url, KINDS[(i + 3) % KINDS.length], key, 'b'))), mail(s, 'load@in.cas.test')]);
    // Every accepted mail's webhook arrives at least once, those the kill interrupted included.
    const ids = await waitFor(() => {
      const got = new Set(hook.hooks.map((h) => String(h.headers['x-cas-delivery-id'])));
      return got.size >= 3 ? got : undefined;
    }, 20_000);
    // A graceful stop lets the attempt in flight finish and record its answer.
    expect(await s.stop()).toBe(0);
    await hook.close();
    const all = [...phaseA, ...phaseB];

    for (const r of all) {
      if (r.status === 0 && r.phase === 'a') continue;
      expect([r.kind, ALLOWED[r.kind]]).toEqual([r.kind, expect.arrayContaining([r.status])]);
      if (r.status !== 200) expect(r.body).toEqual({ status: 'failed', msg: expect.any(String) });
      if (r.status !== 200) expect(String((r.body as { msg: string }).msg)).not.toMatch(/\n\s+at /);
    }

    const db = new Database(path.join(dataDir, 'cas.db'), { readonly: true });
    try {
      expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      const k = db.prepare('SELECT id, credits_milli, used_milli FROM api_keys').get() as { id: number; credits_milli: number; used_milli: number };
      const billed = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(credits_milli), 0) AS milli FROM usage_log WHERE key_id = ? AND credits_milli > 0').get(k.id) as { n: number; milli: number };
      expect(db.prepare('SELECT COUNT(*) AS n FROM credit_reservations').get()).toEqual({ n: 0 });
      const deliveries = db.prepare('SELECT id, status FROM webhook_deliveries').all() as { id: string; status: string }[];
      expect(deliveries.map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
      expect(new Set(deliveries.map((d) => d.id))).toEqual(ids);
      // Nothing lost, nothing made: what the key spent is exactly what the log bills.
      expect(k.credits_milli + k.used_milli).toBe(CREDITS * 1000);
      expect(k.used_milli).toBe(billed.milli);
      expect(billed.milli).toBe(billed.n * 1000);
      // Every parse a client saw succeed is billed; beyond those, only parses whose answer the kill cut off.
      const ok = all.filter((r) => r.status === 200).length;
      const cut = phaseA.filter((r) => r.status === 0 && r.kind === 'valid').length;
      expect(billed.n).toBeGreaterThanOrEqual(ok);
      expect(billed.n).toBeLessThanOrEqual(ok + cut);
      const tally: Record<string, number> = {};
      for (const r of all) tally[`${r.phase}:${r.kind}:${r.status}`] = (tally[`${r.phase}:${r.kind}:${r.status}`] ?? 0) + 1;
      process.stderr.write(`load: ${ok} parses billed of ${billed.n} logged, ${Date.now() - t0} ms; ${JSON.stringify(tally)}\n`);
      expect(ok).toBeGreaterThan(5);
    } finally {
      db.close();
    }
    expect(Date.now() - t0).toBeLessThan(60_000);
  }, 90_000);
});

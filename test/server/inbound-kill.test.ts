/**
 * Mail intake killed mid-way (issue 32.4), against a real `cas serve --smtp-port` and a real SMTP
 * client: 40 messages of 3 PDFs each arrive from four connections at once and the server is killed
 * (SIGKILL) while they are being stored. After the restart every email is there whole (its three
 * files, on disk, and its one webhook delivery) or not at all; no temporary file or intake journal
 * is left in the files folder and no file is there that the store does not record. The sender then
 * retries all 40 with the same Message-IDs: each is answered 250 and stored exactly once.
 * SQLite only: on PostgreSQL the restarted server is another instance, which sweeps a dead instance's
 * leftovers once its heartbeat has lapsed (the next start).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, tmpDir } from '../helpers/cas.js';
import { dbRows, newKey, PG, post, receiver, serve, smtpPortOf, waitForAsync, type Served } from '../helpers/server.js';

const BASE = readFileSync(fixture('registrar/cams-summary.pdf'));
const MESSAGES = 40;
const MAIL = ['--smtp-port', '0', '--inbound-domain', 'in.cas.test'];
const ENV = { CAS_DNS_OFFLINE: '1', CAS_WEBHOOK_BACKOFF_MS: '200' };
const forwarded = `FYI\n\n---------- Forwarded message ---------\nFrom: Statement Desk <donotreply@camsonline.com>\nSubject: CAS\n\nYour statement is attached.\n`;
/** A distinct PDF per message and attachment (bytes after %%EOF), so every file is its own. */
const pdf = (m: number, a: number): Buffer => Buffer.concat([BASE, Buffer.from(`\n% message ${m} attachment ${a}\n`)]);
const messageId = (m: number): string => `<kill-${m}@mail.example>`;

/** Send messages `ids` over `lanes` connections at once; the ids the server accepted (250). */
const errors: string[] = [];
async function sendAll(s: Served, to: string, ids: number[], lanes = 4): Promise<number[]> {
  const accepted: number[] = [];
  const queue = [...ids];
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      const t = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPortOf(s), secure: false, ignoreTLS: true });
      try {
        for (let m = queue.shift(); m !== undefined; m = queue.shift()) {
          try {
            await t.sendMail({
              from: 'aarav.investor@mail.example',
              to,
              subject: `Fwd: CAS ${m}`,
              messageId: messageId(m),
              text: forwarded,
              attachments: [0, 1, 2].map((a) => ({ filename: `cas-${m}-${a}.pdf`, content: pdf(m, a) })),
            });
            accepted.push(m);
          } catch (err) {
            // The server died (or refused): not accepted.
            errors.push(`${m}: ${(err as Error).message}`);
          }
        }
      } finally {
        t.close();
      }
    }),
  );
  return accepted;
}

const open: Served[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.stop()));
});

describe.skipIf(PG)('SMTP intake killed mid-way (32.4)', () => {
  it('SIGKILL during 40 emails x 3 PDFs: each email whole or absent, no stray files; a retry of the same Message-ID is stored once', async () => {
    const hook = await receiver();
    const dataDir = tmpDir('cas-kill-');
    const filesDir = path.join(dataDir, 'files');
    let s = await serve(dataDir, MAIL, ENV);
    const key = await newKey(dataDir, ['--credits', '1']);
    const made = await post(s.url, '/v4/inbound-email', { key, json: { alias: 'kill', callback_url: hook.url } });
    expect(made.status).toBe(201);
    const to = 'kill@in.cas.test';
    const stored = async (): Promise<number> =>
      (await dbRows(dataDir, 'SELECT COUNT(DISTINCT message_id) AS n FROM inbound_files'))[0].n as number;

    // Kill while intake is under way: once a few emails are stored, before all of them are.
    const sending = sendAll(
      s,
      to,
      Array.from({ length: MESSAGES }, (_, i) => i),
    );
    await waitForAsync(async () => (await stored()) >= 4, 120_000);
    s.proc.kill('SIGKILL');
    await s.proc;
    const acceptedBeforeKill = await sending;
    open.push((s = await serve(dataDir, MAIL, ENV)));

    // Whole or absent: three files per stored email, each on disk, one delivery each.
    const check = async (): Promise<Map<string, number>> => {
      const files = (await dbRows(dataDir, 'SELECT message_id, sha256 FROM inbound_files')) as { message_id: string; sha256: string }[];
      const per = new Map<string, number>();
      for (const f of files) {
        per.set(f.message_id, (per.get(f.message_id) ?? 0) + 1);
        expect(existsSync(path.join(filesDir, `${f.sha256}.pdf`)), f.sha256).toBe(true);
      }
      for (const [id, n] of per) expect(n, id).toBe(3);
      const deliveries = (await dbRows(dataDir, 'SELECT payload FROM webhook_deliveries')) as { payload: string }[];
      const delivered = deliveries.map((d) => (JSON.parse(d.payload) as { files: { message_id: string }[] }).files[0].message_id).sort();
      expect(delivered).toEqual([...per.keys()].sort());
      const messages = (await dbRows(dataDir, 'SELECT message_id FROM inbound_messages')) as { message_id: string }[];
      expect(messages.map((m) => m.message_id).sort()).toEqual([...per.keys()].sort());
      // Nothing on disk the store does not record: no temporary file, no journal, no orphan.
      const recorded = new Set(files.map((f) => `${f.sha256}.pdf`));
      expect(readdirSync(filesDir).filter((n) => !recorded.has(n))).toEqual([]);
      return per;
    };
    const afterKill = await check();
    expect(afterKill.size).toBeGreaterThanOrEqual(4);
    // Every email the sender was told was accepted (250) is stored.
    for (const m of acceptedBeforeKill) expect(afterKill.get(messageId(m)), `message ${m}`).toBe(3);

    // The sending server retries everything: all answered 250, each email stored exactly once.
    const all = Array.from({ length: MESSAGES }, (_, i) => i);
    errors.length = 0;
    const retried = await sendAll(s, to, all);
    expect(
      retried.sort((a, b) => a - b),
      `${errors.join('\n')}\n${s.log().slice(-3000)}`,
    ).toEqual(all);
    const final = await check();
    expect(final.size).toBe(MESSAGES);
    expect(s.log()).toMatch(/was received before; not stored again/);
    expect(s.log()).not.toMatch(/\n\s+at /);
    await hook.close();
  }, 400_000);
});

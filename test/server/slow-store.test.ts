/**
 * The body deadline against a slow store (issue 32.1, found by busy-loop runs of load.test on
 * PostgreSQL): a PostgreSQL lock held by the test stands in for the busy store, so the deadline fires
 * in the middle of the store's step, deterministically. PostgreSQL only (the postgres project).
 */
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { PG, databaseUrl, jsonOrText, newKey, post, serve, type Served } from '../helpers/server.js';
import { trickle, until, type Answer } from '../helpers/trickle.js';

const open: Served[] = [];
const trickles: { stop: () => void }[] = [];
afterAll(async () => {
  for (const t of trickles) t.stop();
  await Promise.all(open.map((s) => s.stop()));
});

/**
 * A multipart upload (its body is read by the handler, after the credit is reserved) that sends
 * its headers and the start of its file part, then nothing: the body deadline answers it.
 */
function stalledUpload(url: string, key: string): { answer: Promise<Answer>; closed: Promise<void>; stop: () => void } {
  const b = 'casboundary';
  const head = `--${b}\r\nContent-Disposition: form-data; name="pdf_file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`;
  let req!: http.ClientRequest;
  let closed!: () => void;
  const whenClosed = new Promise<void>((r) => (closed = r));
  const answer = new Promise<Answer>((resolve) => {
    req = http.request(
      new URL('/v4/smart/parse', url),
      { method: 'POST', headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${b}`, 'content-length': '200000' } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: jsonOrText(text), headers: res.headers }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, body: null, headers: res.headers }));
      },
    );
    req.on('error', () => resolve({ status: 0, body: null, headers: {} }));
    req.on('close', () => closed());
    req.write(head);
  });
  return { answer, closed: whenClosed, stop: () => req.destroy() };
}

/**
 * Answers begun while the store is slow (busy-machine runs of test/load.test.ts found both). A
 * PostgreSQL lock held by the test stands in for the busy store: it makes the store's step wait for
 * as long as the test says, so the body deadline fires in the middle of it.
 */
describe.skipIf(!PG)('the body deadline against a slow store (PostgreSQL; skipped on SQLite)', { timeout: 240_000 }, () => {
  async function locked(dataDir: string, sql: string): Promise<{ release: () => Promise<void> }> {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: (await databaseUrl(dataDir))! });
    await c.connect();
    await c.query('BEGIN');
    await c.query(sql);
    return {
      release: async () => {
        await c.query('COMMIT');
        await c.end();
      },
    };
  }
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  it('a refusal still being logged when the deadline passes keeps its own status (it was answered 408 with the refusal body)', async () => {
    const s = await serve(undefined, [], { CAS_BODY_TIMEOUT_SECONDS: '2' });
    open.push(s);
    const broke = await newKey(s.dataDir, ['--credits', '0']);
    const lock = await locked(s.dataDir, 'LOCK TABLE usage_log IN EXCLUSIVE MODE');
    const t = trickle(s.url, broke);
    trickles.push(t);
    // The 402 is sent before the body is read; its usage row waits for the lock past the 2 s deadline.
    await sleep(5000);
    await lock.release();
    const a = await t.answer;
    t.stop();
    expect(a.status, JSON.stringify(a.body)).toBe(402);
    expect(a.body).toEqual({ status: 'failed', msg: expect.stringMatching(/^insufficient credits/) });
  });

  it('a credit reserved while the deadline answered the upload is given back (it stayed held until a restart)', async () => {
    const s = await serve(undefined, [], { CAS_BODY_TIMEOUT_SECONDS: '2' });
    open.push(s);
    const k = await newKey(s.dataDir, ['--credits', '3']);
    // The reservation's UPDATE waits for the key's row; the deadline answers 408 meanwhile.
    const lock = await locked(s.dataDir, 'SELECT id FROM api_keys FOR UPDATE');
    const u = stalledUpload(s.url, k);
    trickles.push(u);
    const a = await u.answer;
    expect(a.status, JSON.stringify(a.body)).toBe(408);
    await u.closed;
    // Only now may the reservation complete: its request is answered and its connection gone.
    await lock.release();
    const credits = await until(
      async () => {
        const r = await post(s.url, '/v1/credits', { key: k });
        return { status: r.status, body: r.body, headers: {} };
      },
      (x) => x.body?.remaining === 3,
    );
    expect(credits.body).toMatchObject({ used: 0, remaining: 3 });
    expect(s.log()).not.toMatch(/\n\s+at /);
  });
});

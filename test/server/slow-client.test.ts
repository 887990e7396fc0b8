/**
 * Slow request bodies (issue 32.1) against a real `cas serve`: an attacker holding the server's 8
 * upload slots with bodies trickled a byte at a time, from the public sandbox key and from a key
 * with 0 credits, no longer locks paying keys out. The 0-credit key is refused (402) before its body
 * is read, the sandbox key has a small upload cap of its own, and a body that does not arrive within
 * the body deadline (CAS_BODY_TIMEOUT_SECONDS) or arrives slower than CAS_BODY_MIN_RATE is answered
 * 408 in SPEC's error shape, freeing its slot. Outcomes are awaited, never timed.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../helpers/cas.js';
import { newKey, post, serve, type Served } from '../helpers/server.js';
import { trickle, until, type Answer } from '../helpers/trickle.js';

const SANDBOX = 'cas_sandbox_public_key';
const SMALL = { pdf_file: readFileSync(fixture('registrar/cams-summary.pdf')).toString('base64'), password: 'ABCPM1234K' };

/** A paying parse of the small statement. */
async function parse(url: string, key: string): Promise<Answer> {
  const r = await post(url, '/v4/smart/parse', { key, json: SMALL });
  return { status: r.status, body: r.body, headers: Object.fromEntries(r.headers) };
}

const open: Served[] = [];
const trickles: { stop: () => void }[] = [];
afterAll(async () => {
  for (const t of trickles) t.stop();
  await Promise.all(open.map((s) => s.stop()));
});

describe('slow request bodies (32.1)', { timeout: 240_000 }, () => {
  it('the sandbox key and a 0-credit key trickling 8 uploads cannot lock a paying key out; the trickles get 408', async () => {
    const s = await serve(undefined, [], { CAS_BODY_TIMEOUT_SECONDS: '4' });
    open.push(s);
    const broke = await newKey(s.dataDir, ['--credits', '0']);
    const payer = await newKey(s.dataDir, ['--credits', '5']);
    // The attack: four trickled uploads on each key (the per-key cap), eight in all (the server's cap).
    const sandbox = [0, 1, 2, 3].map(() => trickle(s.url, SANDBOX));
    const unpaid = [0, 1, 2, 3].map(() => trickle(s.url, broke));
    trickles.push(...sandbox, ...unpaid);

    // The 0-credit key is refused before its body is read.
    for (const t of unpaid) {
      const a = await t.answer;
      expect(a.status).toBe(402);
      expect(a.body).toEqual({ status: 'failed', msg: expect.stringMatching(/^insufficient credits/) });
      t.stop();
    }
    // A paying key is served while the sandbox trickles are still arriving.
    const paid = await until(
      () => parse(s.url, payer),
      (a) => a.status === 200,
    );
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.investor).toBeTruthy();

    // The sandbox key holds at most its own cap (2); the others are refused at once, the held ones
    // answered 408 at the body deadline, in SPEC's error shape with the security headers.
    const answers = await Promise.all(sandbox.map((t) => t.answer));
    const codes = answers.map((a) => a.status).sort();
    expect(codes).toEqual([408, 408, 429, 429]);
    for (const a of answers.filter((x) => x.status === 429))
      expect(a.body.msg).toMatch(/too many uploads in flight for the sandbox key \(at most 2\)/);
    for (const a of answers.filter((x) => x.status === 408)) {
      expect(a.body).toEqual({ status: 'failed', msg: 'the request body did not arrive within 4 s' });
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers['cache-control']).toBe('no-store');
    }
    expect((await post(s.url, '/v1/credits', { key: payer })).body).toMatchObject({ used: 1, remaining: 4 });
    expect(s.log()).not.toMatch(/\n\s+at /);
  });

  it('paying keys filling all 8 slots with trickles: the deadline answers them 408, frees the slots and charges nothing', async () => {
    // The trickles hold their slots until the deadline (no minimum rate): the probe below has the
    // whole 15 s to find them all taken (with 3 s, a PostgreSQL run's probes missed the moment).
    const s = await serve(undefined, [], { CAS_BODY_TIMEOUT_SECONDS: '15', CAS_BODY_MIN_RATE: '0' });
    open.push(s);
    const [a, b] = await Promise.all([0, 1].map(() => newKey(s.dataDir, ['--credits', '5'])));
    // The probing key asks until the slots are all taken; every probe that comes first is parsed
    // and paid (a busy PostgreSQL run spent 5 credits before the eighth trickle was in).
    const c = await newKey(s.dataDir, ['--credits', '1000']);
    const held = [a, a, a, a, b, b, b, b].map((k) => trickle(s.url, k));
    trickles.push(...held);
    // Every slot taken: the next upload is refused for now.
    const busy = await until(
      () => parse(s.url, c),
      (x) => x.status === 503,
    );
    expect(busy.status).toBe(503);
    const answers = await Promise.all(held.map((t) => t.answer));
    expect(answers.map((x) => x.status)).toEqual(Array(8).fill(408));
    // The slots are free again.
    const served = await until(
      () => parse(s.url, c),
      (x) => x.status === 200,
    );
    expect(served.status).toBe(200);
    for (const k of [a, b]) expect((await post(s.url, '/v1/credits', { key: k })).body).toMatchObject({ used: 0, remaining: 5 });
  });

  it('a body arriving slower than CAS_BODY_MIN_RATE is answered 408 before the whole-body deadline', async () => {
    const s = await serve(undefined, [], { CAS_BODY_TIMEOUT_SECONDS: '600', CAS_BODY_MIN_RATE: '1000' });
    open.push(s);
    const k = await newKey(s.dataDir, ['--credits', '5']);
    const t = trickle(s.url, k);
    trickles.push(t);
    const x = await t.answer;
    expect(x.status).toBe(408);
    expect(x.body).toEqual({ status: 'failed', msg: 'the request body is arriving slower than 1000 bytes per second' });
    expect((await post(s.url, '/v1/credits', { key: k })).body).toMatchObject({ used: 0, remaining: 5 });
  });

  it('body settings are checked at start-up', async () => {
    const { cas, tmpDir } = await import('../helpers/cas.js');
    for (const [name, v] of [
      ['CAS_BODY_TIMEOUT_SECONDS', '0'],
      ['CAS_BODY_MIN_RATE', 'fast'],
      ['CAS_SANDBOX_MAX_UPLOADS', '0'],
      ['CAS_MAX_FAILED_PARSES', '-1'],
    ]) {
      const r = await cas(['serve', '--port', '0', '--data-dir', tmpDir()], { env: { [name]: v } });
      expect(r.exitCode, name).toBe(2);
      expect(r.stderr).toContain(name);
    }
  });
});

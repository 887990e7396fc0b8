/** Credits and the usage log: reservations, refunds, balances, rate limits, and the account endpoints' reads. */
import { fromMilli, toMilli, type Db, type Queries } from './sql.js';
import type { KeyRow } from './keys.js';

/**
 * Take `credits` from a key atomically (one conditional UPDATE: concurrent requests on any number of
 * instances can never overdraw it) and record the reservation with the instance holding it, in the
 * same transaction, so that credits held by a request a crash cut short are returned
 * (`refundOrphans`). Returns the reservation's id (0 when nothing is charged), or null when the key
 * has too few credits.
 */
export async function reserve(db: Queries, key: KeyRow, credits: number, instanceId: string): Promise<number | null> {
  const milli = toMilli(credits);
  if (!milli) return 0;
  return db.tx(async (q): Promise<number | null> => {
    const taken = key.unlimited
      ? (await q.run('UPDATE api_keys SET used_milli = used_milli + ? WHERE id = ?', milli, key.id)) === 1
      : (await q.run(
          'UPDATE api_keys SET credits_milli = credits_milli - ?, used_milli = used_milli + ? WHERE id = ? AND credits_milli >= ?',
          milli,
          milli,
          key.id,
          milli,
        )) === 1;
    if (!taken) return null;
    const r = await q.get<{ id: number }>(
      'INSERT INTO credit_reservations (key_id, milli, unlimited, created_at, instance_id) VALUES (?, ?, ?, ?, ?) RETURNING id',
      key.id,
      milli,
      key.unlimited ? 1 : 0,
      new Date().toISOString(),
      instanceId,
    );
    return Number(r!.id);
  });
}

/**
 * Keep a charge: `work` (its usage row, the balance for the header) runs in one transaction whose
 * COMMIT is sent as the answer is written (`Db.txBeforeAnswer`); a COMMIT that fails later goes to `late`.
 */
export function keepCharge<T>(db: Db, work: (q: Queries) => Promise<T>, late: (err: Error) => void): Promise<T> {
  return db.txBeforeAnswer(work, late);
}

/**
 * End a reservation: the charge is kept (`refund` false) or given back; either way once. False when
 * the reservation was no longer there: another instance gave it back already, having taken this
 * one for dead while the request ran (see `retake`).
 */
export async function release(db: Queries, id: number, refund: boolean): Promise<boolean> {
  if (!id) return true;
  return db.tx(async (q): Promise<boolean> => {
    // Deleting first is the claim: of two instances settling one reservation, one deletes it.
    const r = await q.get<{ key_id: number; milli: number; unlimited: number }>(
      'DELETE FROM credit_reservations WHERE id = ? RETURNING key_id, milli, unlimited',
      id,
    );
    if (!r) return false;
    if (!refund) return true;
    if (r.unlimited) await q.run('UPDATE api_keys SET used_milli = used_milli - ? WHERE id = ?', r.milli, r.key_id);
    else
      await q.run(
        'UPDATE api_keys SET credits_milli = credits_milli + ?, used_milli = used_milli - ? WHERE id = ?',
        r.milli,
        r.milli,
        r.key_id,
      );
    return true;
  });
}

/**
 * Take a kept charge again when its reservation was given back while the request ran (a stalled
 * instance, taken for dead by another: a very busy machine, a paused process). One conditional
 * UPDATE, as `reserve`, so the key is never overdrawn; false when it cannot pay any more.
 */
export async function retake(q: Queries, key: KeyRow, credits: number): Promise<boolean> {
  const milli = toMilli(credits);
  if (!milli) return true;
  if (key.unlimited) return (await q.run('UPDATE api_keys SET used_milli = used_milli + ? WHERE id = ?', milli, key.id)) === 1;
  return (
    (await q.run(
      'UPDATE api_keys SET credits_milli = credits_milli - ?, used_milli = used_milli + ? WHERE id = ? AND credits_milli >= ?',
      milli,
      milli,
      key.id,
      milli,
    )) === 1
  );
}

/**
 * Refund the reservations of instances that are gone (their heartbeat rows were removed: a dead
 * instance, or on SQLite every previous run), one at a time, each once; returns how many.
 */
export async function refundOrphans(db: Db): Promise<number> {
  const ids = (
    await db.all<{ id: number }>(
      'SELECT id FROM credit_reservations WHERE instance_id IS NULL OR instance_id NOT IN (SELECT id FROM instances) ORDER BY id',
    )
  ).map((r) => r.id);
  for (const id of ids) await release(db, id, true);
  return ids.length;
}

/**
 * The per-key rate limit, shared by every instance: at most `perMinute` calls in any 60 seconds.
 * The key's hits are counted and one added in one transaction, serialised per key (an advisory lock
 * on PostgreSQL; SQLite's one writer); hits older than a minute are deleted on the way.
 */
export async function rateAllow(db: Db, who: string, perMinute: number): Promise<boolean> {
  const now = new Date();
  const since = new Date(now.getTime() - 60_000).toISOString();
  const pg = db.dialect === 'postgres';
  return db.tx(async (q) => {
    if (pg) await q.get('SELECT pg_advisory_xact_lock(hashtext(?))', `cas-rate:${who}`);
    await q.run('DELETE FROM rate_hits WHERE who = ? AND at <= ?', who, since);
    const n = (await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM rate_hits WHERE who = ?', who))!.n;
    if (n >= perMinute) return false;
    await q.run('INSERT INTO rate_hits (who, at) VALUES (?, ?)', who, now.toISOString());
    return true;
  });
}

const failedWho = (keyId: number): string => `failed-parse:${keyId}`;

/** Record a failed (refunded) parse of a key in the store (every instance counts it). */
export async function recordFailedParse(db: Queries, keyId: number): Promise<void> {
  await db.run('INSERT INTO rate_hits (who, at) VALUES (?, ?)', failedWho(keyId), new Date().toISOString());
}

/** Seconds until a key may upload again when it has had `max` failed parses in the last minute; 0 when it may now. */
export async function failedParsesWait(db: Queries, keyId: number, max: number): Promise<number> {
  const now = Date.now();
  const r = await db.get<{ n: number; first: string | null }>(
    'SELECT COUNT(*) AS n, MIN(at) AS first FROM (SELECT at FROM rate_hits WHERE who = ? AND at > ? ORDER BY at DESC LIMIT ?) recent',
    failedWho(keyId),
    new Date(now - 60_000).toISOString(),
    max,
  );
  if (!r || r.n < max || !r.first) return 0;
  return Math.max(1, Math.ceil((Date.parse(r.first) + 60_000 - now) / 1000));
}

/** Credits left on a key (null: unlimited or unknown). */
export async function remaining(db: Queries, keyId: number): Promise<number | null> {
  const r = await db.get<{ credits_milli: number; unlimited: number }>('SELECT credits_milli, unlimited FROM api_keys WHERE id = ?', keyId);
  return !r || r.unlimited ? null : fromMilli(r.credits_milli);
}

/** A key's balance: credits left and used, whether unlimited. */
export async function balance(db: Queries, keyId: number): Promise<{ remaining: number; used: number; limit: number; unlimited: boolean }> {
  const k = (await db.get<{ credits_milli: number; used_milli: number; unlimited: number }>(
    'SELECT credits_milli, used_milli, unlimited FROM api_keys WHERE id = ?',
    keyId,
  ))!;
  return {
    remaining: fromMilli(k.credits_milli),
    used: fromMilli(k.used_milli),
    limit: fromMilli(k.credits_milli + k.used_milli),
    unlimited: Boolean(k.unlimited),
  };
}

/**
 * Log a call. A call that is charged nothing (a free feature, or a billed one refused, failed and
 * refunded) is counted on the row of the same key, feature, path, status and instance for the same
 * clock minute (its `requests` count): one upsert on a unique key, so no key can grow the log one row
 * per request, even with many calls at once on several connections; the row keeps its first call's
 * request id and time. Each charged call is a row of its own.
 */
export async function logUsage(
  db: Queries,
  e: {
    keyId: number;
    requestId: string;
    feature: string;
    path: string;
    status: number;
    credits: number;
    free: boolean;
    instanceId: string;
  },
): Promise<void> {
  const milli = toMilli(e.credits);
  const now = new Date().toISOString();
  if (!milli) {
    // Each instance counts on its own row, so instances never wait on one another's row lock.
    await db.run(
      'INSERT INTO usage_log (key_id, request_id, feature, path, status_code, credits_milli, timestamp, instance_id, bucket) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?) ' +
        'ON CONFLICT (key_id, feature, path, status_code, instance_id, bucket) WHERE bucket IS NOT NULL DO UPDATE SET requests = usage_log.requests + 1',
      e.keyId,
      e.requestId,
      e.feature,
      e.path,
      e.status,
      now,
      e.instanceId,
      now.slice(0, 16),
    );
    return;
  }
  await db.run(
    'INSERT INTO usage_log (key_id, request_id, feature, path, status_code, credits_milli, timestamp, instance_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    e.keyId,
    e.requestId,
    e.feature,
    e.path,
    e.status,
    milli,
    now,
    e.instanceId,
  );
}

/** Delete rate-limit hits older than a minute (they count only within one). */
export async function pruneRateHits(db: Queries): Promise<void> {
  await db.run('DELETE FROM rate_hits WHERE at < ?', new Date(Date.now() - 60_000).toISOString());
}

/** Delete usage-log rows older than `days` days; returns how many. */
export function pruneUsage(db: Queries, days: number): Promise<number> {
  return db.run('DELETE FROM usage_log WHERE timestamp < ?', new Date(Date.now() - days * 86_400_000).toISOString());
}

export interface UsageEntry {
  request_id: string;
  feature: string;
  path: string;
  status_code: number;
  credits: number;
  timestamp: string;
}

/** A key's usage log between two UTC ISO instants, newest first. */
export async function usageLogs(db: Queries, keyId: number, from: string, to: string, limit: number): Promise<UsageEntry[]> {
  const rows = await db.all<Omit<UsageEntry, 'credits'> & { credits_milli: number }>(
    'SELECT request_id, feature, path, status_code, credits_milli, timestamp FROM usage_log WHERE key_id = ? AND timestamp >= ? AND timestamp <= ? ORDER BY id DESC LIMIT ?',
    keyId,
    from,
    to,
    limit,
  );
  return rows.map((r) => ({
    request_id: r.request_id,
    feature: r.feature,
    path: r.path,
    status_code: r.status_code,
    credits: fromMilli(r.credits_milli),
    timestamp: r.timestamp,
  }));
}

/** Credits and requests per feature between two UTC ISO instants. */
export async function usageByFeature(
  db: Queries,
  keyId: number,
  from: string,
  to: string,
): Promise<{ feature: string; credits: number; requests: number; milli: number }[]> {
  const rows = await db.all<{ feature: string; c: number; n: number }>(
    'SELECT feature, SUM(credits_milli) AS c, SUM(requests) AS n FROM usage_log WHERE key_id = ? AND timestamp >= ? AND timestamp <= ? GROUP BY feature ORDER BY feature',
    keyId,
    from,
    to,
  );
  return rows.map((r) => ({ feature: r.feature, credits: fromMilli(r.c), requests: r.n, milli: r.c }));
}

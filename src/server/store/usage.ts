/** Credits and the usage log: reservations, refunds, balances, and the account endpoints' reads. */
import { fromMilli, stmt, toMilli, type DB } from '../db.js';
import type { KeyRow } from './keys.js';
import type { Feature } from '../billing.js';

/**
 * Take `credits` from a key atomically and record the reservation (in the same transaction), so
 * that credits held by a request a crash cut short are returned at the next start (`reconcile`).
 * Returns the reservation's id (0 when nothing is charged), or null when the key has too few credits
 * (a key is never overdrawn).
 */
export function reserve(db: DB, key: KeyRow, credits: number): number | null {
  const milli = toMilli(credits);
  if (!milli) return 0;
  return db.transaction((): number | null => {
    const taken = key.unlimited
      ? stmt(db, 'UPDATE api_keys SET used_milli = used_milli + ? WHERE id = ?').run(milli, key.id).changes === 1
      : stmt(
          db,
          'UPDATE api_keys SET credits_milli = credits_milli - ?, used_milli = used_milli + ? WHERE id = ? AND credits_milli >= ?',
        ).run(milli, milli, key.id, milli).changes === 1;
    if (!taken) return null;
    return Number(
      stmt(db, 'INSERT INTO credit_reservations (key_id, milli, unlimited, created_at) VALUES (?, ?, ?, ?)').run(
        key.id,
        milli,
        key.unlimited ? 1 : 0,
        new Date().toISOString(),
      ).lastInsertRowid,
    );
  })();
}

/** End a reservation: the charge is kept (`refund` false) or given back; either way once. */
export function release(db: DB, id: number, refund: boolean): void {
  if (!id) return;
  db.transaction(() => {
    const r = stmt(db, 'SELECT key_id, milli, unlimited FROM credit_reservations WHERE id = ?').get(id) as
      { key_id: number; milli: number; unlimited: number } | undefined;
    if (!r) return;
    stmt(db, 'DELETE FROM credit_reservations WHERE id = ?').run(id);
    if (refund)
      stmt(
        db,
        `UPDATE api_keys SET ${r.unlimited ? '' : 'credits_milli = credits_milli + ?, '}used_milli = used_milli - ? WHERE id = ?`,
      ).run(...(r.unlimited ? [r.milli, r.key_id] : [r.milli, r.milli, r.key_id]));
  })();
}

/** At start-up (one server per database): refund every reservation a previous run left; returns how many. */
export function reconcile(db: DB): number {
  const ids = (stmt(db, 'SELECT id FROM credit_reservations ORDER BY id').all() as { id: number }[]).map((r) => r.id);
  for (const id of ids) release(db, id, true);
  return ids.length;
}

/** Credits left on a key (null: unlimited or unknown). */
export function remaining(db: DB, keyId: number): number | null {
  const r = stmt(db, 'SELECT credits_milli, unlimited FROM api_keys WHERE id = ?').get(keyId) as
    { credits_milli: number; unlimited: number } | undefined;
  return !r || r.unlimited ? null : fromMilli(r.credits_milli);
}

/** A key's balance: credits left and used, whether unlimited. */
export function balance(db: DB, keyId: number): { remaining: number; used: number; limit: number; unlimited: boolean } {
  const k = stmt(db, 'SELECT credits_milli, used_milli, unlimited FROM api_keys WHERE id = ?').get(keyId) as {
    credits_milli: number;
    used_milli: number;
    unlimited: number;
  };
  return {
    remaining: fromMilli(k.credits_milli),
    used: fromMilli(k.used_milli),
    limit: fromMilli(k.credits_milli + k.used_milli),
    unlimited: Boolean(k.unlimited),
  };
}

/**
 * Log a call, one row each, except a call to a free feature (`free`: no price, 0 credits): it joins
 * the row of the same key, feature, path and status begun less than a minute earlier (that row's
 * `requests` count), so free calls cannot grow the log one row each; the row keeps its first call's
 * request id and time. Calls to billed features (charged or not) stay one row each.
 */
export function logUsage(
  db: DB,
  e: { keyId: number; requestId: string; feature: Feature; path: string; status: number; credits: number; free: boolean },
): void {
  const milli = toMilli(e.credits);
  const now = new Date();
  if (e.free && !milli) {
    const since = new Date(now.getTime() - 60_000).toISOString();
    const joined = stmt(
      db,
      'UPDATE usage_log SET requests = requests + 1 WHERE id = (SELECT id FROM usage_log WHERE key_id = ? AND timestamp >= ? AND feature = ? AND path = ? AND status_code = ? AND credits_milli = 0 ORDER BY id DESC LIMIT 1)',
    ).run(e.keyId, since, e.feature, e.path, e.status).changes;
    if (joined) return;
  }
  stmt(
    db,
    'INSERT INTO usage_log (key_id, request_id, feature, path, status_code, credits_milli, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(e.keyId, e.requestId, e.feature, e.path, e.status, milli, now.toISOString());
}

/** Delete usage-log rows older than `days` days; returns how many. */
export function pruneUsage(db: DB, days: number): number {
  return stmt(db, 'DELETE FROM usage_log WHERE timestamp < ?').run(new Date(Date.now() - days * 86_400_000).toISOString()).changes;
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
export function usageLogs(db: DB, keyId: number, from: string, to: string, limit: number): UsageEntry[] {
  const rows = stmt(
    db,
    'SELECT request_id, feature, path, status_code, credits_milli, timestamp FROM usage_log WHERE key_id = ? AND timestamp >= ? AND timestamp <= ? ORDER BY id DESC LIMIT ?',
  ).all(keyId, from, to, limit) as (Omit<UsageEntry, 'credits'> & { credits_milli: number })[];
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
export function usageByFeature(
  db: DB,
  keyId: number,
  from: string,
  to: string,
): { feature: string; credits: number; requests: number; milli: number }[] {
  const rows = stmt(
    db,
    'SELECT feature, SUM(credits_milli) AS c, SUM(requests) AS n FROM usage_log WHERE key_id = ? AND timestamp >= ? AND timestamp <= ? GROUP BY feature ORDER BY feature',
  ).all(keyId, from, to) as { feature: string; c: number; n: number }[];
  return rows.map((r) => ({ feature: r.feature, credits: fromMilli(r.c), requests: r.n, milli: r.c }));
}

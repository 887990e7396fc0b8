/** Rate limits shared by every instance: the per-key calls a minute, and failed parses a minute. */
import type { Db, Queries } from './sql.js';

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

/** Delete rate-limit hits older than a minute (they count only within one). */
export async function pruneRateHits(db: Queries): Promise<void> {
  await db.run('DELETE FROM rate_hits WHERE at < ?', new Date(Date.now() - 60_000).toISOString());
}

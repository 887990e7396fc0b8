/** The usage log: one row per charged call (uncharged ones counted per minute), and the account endpoints' reads of it. */
import { fromMilli, toMilli, type Queries } from './sql.js';

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

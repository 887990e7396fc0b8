/**
 * The webhook outbox: deliveries queued with the email they announce, claimed under a lease,
 * each attempt recorded before its POST and completed after it (the worker: inbound/deliver.ts).
 *
 * A delivery is claimed in one transaction (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so instances never
 * claim the same one) under a lease; a lease that runs out (the instance died: SIGKILL, a lost
 * machine) makes the delivery claimable again by any instance, its open attempt marked interrupted.
 * An endpoint (callback URL) with a delivery in flight gets no other until it ends (its earliest due
 * delivery first).
 */
import { randomBytes } from 'node:crypto';
import type { Db, Queries } from './sql.js';

export const INTERRUPTED = 'interrupted: the server sending it stopped during this attempt';

/** A claimed delivery: its row, with the attempt just counted and the id of that attempt's record. */
export interface Delivery {
  id: string;
  inbound_email_id: string;
  url: string;
  payload: string;
  status: string;
  attempts: number;
  created_at: string;
  attemptId: number;
}

/** Queue a delivery (inside the transaction that records the email it announces). */
export async function enqueueDelivery(q: Queries, d: { inboundId: string; url: string; payload: string; at: string }): Promise<void> {
  await q.run(
    'INSERT INTO webhook_deliveries (id, inbound_email_id, url, payload, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)',
    `dlv_${randomBytes(12).toString('hex')}`,
    d.inboundId,
    d.url,
    d.payload,
    'pending',
    d.at,
    d.at,
  );
}

/** SQLite, one server per database file: whatever a previous run held is free again now. */
export async function releaseAll(db: Db): Promise<void> {
  const now0 = new Date().toISOString();
  await db.run('UPDATE webhook_attempts SET error = ?, completed_at = ? WHERE completed_at IS NULL', INTERRUPTED, now0);
  await db.run(
    "UPDATE webhook_deliveries SET status = 'pending', claimed_by = NULL, lease_until = NULL, next_attempt_at = ? WHERE status = 'sending'",
    now0,
  );
}

/** Claim the earliest due delivery of an endpoint with nothing in flight (any instance's), or undefined. */
export function claimDelivery(db: Db, instanceId: string, leaseMs: number): Promise<Delivery | undefined> {
  const skipLocked = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  return db.tx(async (q) => {
    const now = new Date().toISOString();
    const d = await q.get<Delivery>(
      `SELECT * FROM webhook_deliveries d
        WHERE ((d.status = 'pending' AND d.next_attempt_at <= ?) OR (d.status = 'sending' AND d.lease_until < ?))
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries s WHERE s.url = d.url AND s.id != d.id AND s.status = 'sending' AND s.lease_until >= ?)
        ORDER BY d.next_attempt_at LIMIT 1${skipLocked}`,
      now,
      now,
      now,
    );
    if (!d) return undefined;
    if (d.status === 'sending')
      await q.run(
        'UPDATE webhook_attempts SET error = ?, completed_at = ? WHERE delivery_id = ? AND completed_at IS NULL',
        INTERRUPTED,
        now,
        d.id,
      );
    const attempt = d.attempts + 1;
    await q.run(
      "UPDATE webhook_deliveries SET status = 'sending', attempts = ?, claimed_by = ?, lease_until = ? WHERE id = ?",
      attempt,
      instanceId,
      new Date(Date.now() + leaseMs).toISOString(),
      d.id,
    );
    const a = await q.get<{ id: number }>(
      'INSERT INTO webhook_attempts (delivery_id, attempt, at) VALUES (?, ?, ?) RETURNING id',
      d.id,
      attempt,
      now,
    );
    return { ...d, attempts: attempt, attemptId: a!.id };
  });
}

/**
 * Complete an attempt: its record, and the delivery delivered, or pending again at `retryAt` (failed
 * when `giveUp`), only while the lease is this attempt's (a lease that ran out may have passed to
 * another instance).
 */
export async function completeDelivery(
  db: Db,
  d: Delivery,
  instanceId: string,
  r: { status: number | null; error: string | null; at: number; ok: boolean; giveUp: boolean; retryAt: number },
): Promise<void> {
  await db.tx(async (q) => {
    await q.run(
      'UPDATE webhook_attempts SET status_code = ?, error = ?, completed_at = ? WHERE id = ?',
      r.status,
      r.error,
      new Date(r.at).toISOString(),
      d.attemptId,
    );
    if (r.ok)
      await q.run(
        "UPDATE webhook_deliveries SET status = 'delivered', last_error = NULL, claimed_by = NULL, lease_until = NULL WHERE id = ? AND claimed_by = ? AND attempts = ?",
        d.id,
        instanceId,
        d.attempts,
      );
    else
      await q.run(
        'UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, last_error = ?, claimed_by = NULL, lease_until = NULL WHERE id = ? AND claimed_by = ? AND attempts = ?',
        r.giveUp ? 'failed' : 'pending',
        new Date(r.retryAt).toISOString(),
        r.error ?? `HTTP ${r.status}`,
        d.id,
        instanceId,
        d.attempts,
      );
  });
}

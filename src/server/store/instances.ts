/**
 * The `cas serve` instances of one database: each writes a heartbeat row every `heartbeatMs`; an
 * instance whose heartbeat is older than three beats is dead (SIGKILL, a lost machine), and any other
 * instance removes its row and refunds the credits its unfinished requests held (its webhook leases
 * run out on their own). On SQLite, one server per file, a previous run is dead by definition: its
 * rows go at start-up.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Db } from './sql.js';
import { refundOrphans } from './credits.js';

export const newInstanceId = (): string => `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

export async function registerInstance(db: Db, id: string): Promise<void> {
  const now = new Date().toISOString();
  await db.run('INSERT INTO instances (id, started_at, heartbeat_at) VALUES (?, ?, ?)', id, now, now);
}

export async function heartbeat(db: Db, id: string): Promise<void> {
  const now = new Date().toISOString();
  // A row another instance removed (this one was stalled past three beats) is written again.
  if (!(await db.run('UPDATE instances SET heartbeat_at = ? WHERE id = ?', now, id))) await registerInstance(db, id);
}

/**
 * Remove the instances whose heartbeat is older than `staleMs` (every other one when `everyOther`:
 * SQLite's start-up), then refund the reservations of instances that are gone. Their webhook leases
 * run out on their own (inbound.ts claims deliveries whose lease has passed).
 */
export async function reapInstances(
  db: Db,
  self: string,
  staleMs: number,
  everyOther = false,
): Promise<{ instances: number; refunded: number }> {
  const cutoff = new Date(Date.now() - staleMs).toISOString();
  const instances = everyOther
    ? await db.run('DELETE FROM instances WHERE id != ?', self)
    : await db.run('DELETE FROM instances WHERE heartbeat_at < ? AND id != ?', cutoff, self);
  return { instances, refunded: await refundOrphans(db) };
}

export async function removeInstance(db: Db, id: string): Promise<void> {
  await db.run('DELETE FROM instances WHERE id = ?', id);
}

/** The ids of the instances with a heartbeat row. */
export async function liveInstances(db: Db): Promise<string[]> {
  return (await db.all<{ id: string }>('SELECT id FROM instances')).map((r) => r.id);
}

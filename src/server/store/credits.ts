/**
 * Credits: reservations taken before a billed call and kept or refunded after it (each once, on
 * any instance), refunds of dead instances' reservations, and a key's balance.
 */
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

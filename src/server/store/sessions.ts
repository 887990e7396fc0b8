/**
 * Depository_a OTP fetch sessions, rows in the shared store (a session started on one instance is
 * verified on any). States: `otp_sent` -> `verifying` (one verification at a time, taken with a
 * conditional UPDATE) -> `verified` (single use), back to `otp_sent` after a wrong OTP or an upstream
 * failure, `locked` (too many wrong OTPs), or `expired` (not verified within the session lifetime).
 */
import { randomBytes } from 'node:crypto';
import type { Queries } from './sql.js';

export interface FetchSession {
  id: string;
  key_id: number;
  provider: string;
  upstream_ref: string;
  pan: string;
  state: string;
  attempts: number;
  expires_at: string;
}

export async function createFetchSession(
  db: Queries,
  s: { keyId: number; provider: string; ref: string; pan: string; ttlSeconds: number },
): Promise<string> {
  const id = `fs_${randomBytes(12).toString('hex')}`;
  const now = new Date();
  await db.run(
    'INSERT INTO fetch_sessions (id, key_id, provider, upstream_ref, pan, state, attempts, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)',
    id,
    s.keyId,
    s.provider,
    s.ref,
    s.pan,
    'otp_sent',
    new Date(now.getTime() + s.ttlSeconds * 1000).toISOString(),
    now.toISOString(),
    now.toISOString(),
  );
  return id;
}

/** The session, when it belongs to this key. */
export async function ownFetchSession(db: Queries, id: string, keyId: number): Promise<FetchSession | undefined> {
  const s = await db.get<FetchSession>('SELECT * FROM fetch_sessions WHERE id = ?', id);
  return s && s.key_id === keyId ? s : undefined;
}

/** Take the session for one verification (`otp_sent` -> `verifying`); false when another request holds it or its state changed. */
export async function claimFetchSession(db: Queries, id: string): Promise<boolean> {
  const now = new Date().toISOString();
  return (await db.run("UPDATE fetch_sessions SET state = 'verifying', updated_at = ? WHERE id = ? AND state = 'otp_sent'", now, id)) === 1;
}

/**
 * End a verification the caller claimed: `verified`, `wrong` (one more wrong OTP: back to `otp_sent`,
 * or `locked` at `maxAttempts`), or `released` (the upstream failed: back to `otp_sent`). Returns the
 * wrong attempts so far.
 */
export async function finishFetchSession(
  db: Queries,
  id: string,
  outcome: 'verified' | 'wrong' | 'released',
  maxAttempts: number,
): Promise<number> {
  const now = new Date().toISOString();
  const row =
    outcome === 'wrong'
      ? await db.get<{ attempts: number }>(
          "UPDATE fetch_sessions SET attempts = attempts + 1, state = CASE WHEN attempts + 1 >= ? THEN 'locked' ELSE 'otp_sent' END, updated_at = ? WHERE id = ? RETURNING attempts",
          maxAttempts,
          now,
          id,
        )
      : await db.get<{ attempts: number }>(
          'UPDATE fetch_sessions SET state = ?, updated_at = ? WHERE id = ? RETURNING attempts',
          outcome === 'verified' ? 'verified' : 'otp_sent',
          now,
          id,
        );
  return row?.attempts ?? 0;
}

/** Mark an unverified session expired. */
export async function expireFetchSession(db: Queries, id: string): Promise<void> {
  await db.run(
    "UPDATE fetch_sessions SET state = 'expired', updated_at = ? WHERE id = ? AND state = 'otp_sent'",
    new Date().toISOString(),
    id,
  );
}

/**
 * Depository_a OTP fetch sessions. States: `otp_sent` -> `verified` (single use), `expired`
 * (not verified within the session lifetime) or `locked` (too many wrong OTPs).
 */
import { randomBytes } from 'node:crypto';
import { stmt, type DB } from '../db.js';

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

export function createFetchSession(db: DB, s: { keyId: number; provider: string; ref: string; pan: string; ttlSeconds: number }): string {
  const id = `fs_${randomBytes(12).toString('hex')}`;
  const now = new Date();
  stmt(
    db,
    'INSERT INTO fetch_sessions (id, key_id, provider, upstream_ref, pan, state, attempts, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)',
  ).run(
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
export function ownFetchSession(db: DB, id: string, keyId: number): FetchSession | undefined {
  const s = stmt(db, 'SELECT * FROM fetch_sessions WHERE id = ?').get(id) as FetchSession | undefined;
  return s && s.key_id === keyId ? s : undefined;
}

export function setFetchState(db: DB, id: string, state: string, attempts: number): void {
  stmt(db, 'UPDATE fetch_sessions SET state = ?, attempts = ?, updated_at = ? WHERE id = ?').run(
    state,
    attempts,
    new Date().toISOString(),
    id,
  );
}

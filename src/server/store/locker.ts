/** Document-locker consent sessions: pending -> authorized | failed; unauthorized ones expire after 10 minutes. */
import { stmt, type DB } from '../db.js';

export interface LockerSession {
  id: string;
  key_id: number;
  state: string;
  code_verifier: string;
  redirect_url: string;
  purpose: string;
  documents: string;
  status: string;
  access_token: string | null;
  consented_at: string | null;
  expires_at: string;
}

export function createLockerSession(
  db: DB,
  s: {
    id: string;
    keyId: number;
    state: string;
    verifier: string;
    redirectUrl: string;
    purpose: string;
    documents: string[];
    ttlMs: number;
  },
): void {
  const now = new Date();
  stmt(
    db,
    'INSERT INTO locker_sessions (id, key_id, state, code_verifier, redirect_url, purpose, documents, status, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(
    s.id,
    s.keyId,
    s.state,
    s.verifier,
    s.redirectUrl,
    s.purpose,
    JSON.stringify(s.documents),
    'pending',
    new Date(now.getTime() + s.ttlMs).toISOString(),
    now.toISOString(),
  );
}

export function lockerSessionByState(db: DB, state: string): LockerSession | undefined {
  return stmt(db, 'SELECT * FROM locker_sessions WHERE state = ?').get(state) as LockerSession | undefined;
}

/** The session, when it belongs to this key. */
export function ownLockerSession(db: DB, id: string, keyId: number): LockerSession | undefined {
  const s = stmt(db, 'SELECT * FROM locker_sessions WHERE id = ?').get(id) as LockerSession | undefined;
  return s && s.key_id === keyId ? s : undefined;
}

export function setLockerStatus(db: DB, id: string, status: 'authorized' | 'failed', token: string | null = null): void {
  stmt(db, 'UPDATE locker_sessions SET status = ?, access_token = ?, consented_at = ? WHERE id = ?').run(
    status,
    token,
    status === 'authorized' ? new Date().toISOString() : null,
    id,
  );
}

/** Document-locker consent sessions: pending -> authorized | failed; unauthorized ones expire after 10 minutes. */
import type { Db } from './sql.js';

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

export async function createLockerSession(
  db: Db,
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
): Promise<void> {
  const now = new Date();
  await db.run(
    'INSERT INTO locker_sessions (id, key_id, state, code_verifier, redirect_url, purpose, documents, status, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
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

export async function lockerSessionByState(db: Db, state: string): Promise<LockerSession | undefined> {
  return (await db.get('SELECT * FROM locker_sessions WHERE state = ?', state)) as LockerSession | undefined;
}

/** The session, when it belongs to this key. */
export async function ownLockerSession(db: Db, id: string, keyId: number): Promise<LockerSession | undefined> {
  const s = (await db.get('SELECT * FROM locker_sessions WHERE id = ?', id)) as LockerSession | undefined;
  return s && s.key_id === keyId ? s : undefined;
}

/** Record the consent's outcome once: only a pending session changes (a second callback cannot undo the first). */
export async function setLockerStatus(db: Db, id: string, status: 'authorized' | 'failed', token: string | null = null): Promise<void> {
  await db.run(
    "UPDATE locker_sessions SET status = ?, access_token = ?, consented_at = ? WHERE id = ? AND status = 'pending'",
    status,
    token,
    status === 'authorized' ? new Date().toISOString() : null,
    id,
  );
}

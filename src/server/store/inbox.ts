/** Connected mailboxes (active -> revoked) and their pending OAuth states; credentials are sealed. */
import { randomBytes } from 'node:crypto';
import { stmt, type DB } from '../db.js';
import { seal } from '../inbox.js';

export interface Connection {
  id: string;
  key_id: number;
  provider: string;
  email: string;
  credentials: string | null;
  status: string;
}
export interface OAuthState {
  state: string;
  key_id: number;
  code_verifier: string;
  redirect_uri: string;
  client_state: string | null;
  expires_at: string;
}

/** Store a connection; returns the inbox token that names it. */
export function createConnection(db: DB, keyId: number, provider: string, email: string, credentials: unknown): string {
  const id = `mbx_${randomBytes(10).toString('hex')}`;
  stmt(db, 'INSERT INTO inbox_connections (id, key_id, provider, email, credentials, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    id,
    keyId,
    provider,
    email,
    credentials === null ? null : seal(db, credentials, 'cred_'),
    'active',
    new Date().toISOString(),
  );
  return seal(db, { cid: id, provider, email });
}

export function connectionById(db: DB, id: string): Connection | undefined {
  return stmt(db, 'SELECT * FROM inbox_connections WHERE id = ?').get(id) as Connection | undefined;
}

/** Replace the stored (refreshed) credentials of an active connection. */
export function storeCredentials(db: DB, id: string, credentials: unknown): void {
  stmt(db, "UPDATE inbox_connections SET credentials = ? WHERE id = ? AND status = 'active'").run(seal(db, credentials, 'cred_'), id);
}

export function revokeConnection(db: DB, id: string): void {
  stmt(db, "UPDATE inbox_connections SET status = 'revoked', credentials = NULL, revoked_at = ? WHERE id = ?").run(
    new Date().toISOString(),
    id,
  );
}

export function createOAuthState(
  db: DB,
  s: { state: string; keyId: number; verifier: string; redirectUri: string; clientState: string | null; ttlMs: number },
): void {
  stmt(
    db,
    'INSERT INTO inbox_oauth_states (state, key_id, provider, code_verifier, redirect_uri, client_state, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(s.state, s.keyId, 'gmail', s.verifier, s.redirectUri, s.clientState, new Date(Date.now() + s.ttlMs).toISOString());
}

/** Take (read and delete) a pending OAuth state; undefined when unknown or expired. */
export function takeOAuthState(db: DB, state: string): OAuthState | undefined {
  const s = stmt(db, 'SELECT * FROM inbox_oauth_states WHERE state = ?').get(state) as OAuthState | undefined;
  if (!s || Date.parse(s.expires_at) <= Date.now()) return undefined;
  stmt(db, 'DELETE FROM inbox_oauth_states WHERE state = ?').run(s.state);
  return s;
}

/** Connected mailboxes (active -> revoked) and their pending OAuth states; credentials are sealed. */
import { randomBytes } from 'node:crypto';
import type { Db } from './sql.js';
import { seal } from './secrets.js';

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
export async function createConnection(db: Db, keyId: number, provider: string, email: string, credentials: unknown): Promise<string> {
  const id = `mbx_${randomBytes(10).toString('hex')}`;
  await db.run(
    'INSERT INTO inbox_connections (id, key_id, provider, email, credentials, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
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

export async function connectionById(db: Db, id: string): Promise<Connection | undefined> {
  return (await db.get('SELECT * FROM inbox_connections WHERE id = ?', id)) as Connection | undefined;
}

/** Replace the stored (refreshed) credentials of an active connection. */
export async function storeCredentials(db: Db, id: string, credentials: unknown): Promise<void> {
  await db.run("UPDATE inbox_connections SET credentials = ? WHERE id = ? AND status = 'active'", seal(db, credentials, 'cred_'), id);
}

export async function revokeConnection(db: Db, id: string): Promise<void> {
  await db.run(
    "UPDATE inbox_connections SET status = 'revoked', credentials = NULL, revoked_at = ? WHERE id = ?",
    new Date().toISOString(),
    id,
  );
}

export async function createOAuthState(
  db: Db,
  s: { state: string; keyId: number; verifier: string; redirectUri: string; clientState: string | null; ttlMs: number },
): Promise<void> {
  await db.run(
    'INSERT INTO inbox_oauth_states (state, key_id, provider, code_verifier, redirect_uri, client_state, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    s.state,
    s.keyId,
    'gmail',
    s.verifier,
    s.redirectUri,
    s.clientState,
    new Date(Date.now() + s.ttlMs).toISOString(),
  );
}

/** Take (delete and return, once, whichever instance asks first) a pending OAuth state; undefined when unknown or expired. */
export async function takeOAuthState(db: Db, state: string): Promise<OAuthState | undefined> {
  const s = await db.get<OAuthState>('DELETE FROM inbox_oauth_states WHERE state = ? RETURNING *', state);
  return s && Date.parse(s.expires_at) > Date.now() ? s : undefined;
}

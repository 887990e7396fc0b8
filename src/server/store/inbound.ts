/**
 * Forwarding addresses (inbound email) and the files received on them. Status: active <-> paused;
 * active | paused -> deleted (soft delete, final, excluded from lists).
 */
import { stmt, type DB } from '../db.js';
import { sealWebhookSecret } from '../secrets.js';

export interface InboundRow {
  id: string;
  key_id: number;
  email: string;
  reference: string | null;
  callback_url: string | null;
  allowed_sources: string;
  metadata: string;
  status: string;
  created_at: string;
  updated_at: string;
}
export interface InboundFileRow {
  id: number;
  received_at: string;
}

export function inboundAddressTaken(db: DB, email: string): boolean {
  return Boolean(stmt(db, 'SELECT 1 FROM inbound_emails WHERE lower(email) = lower(?)').get(email));
}

export function createInbound(
  db: DB,
  r: {
    id: string;
    keyId: number;
    email: string;
    reference: string | null;
    callbackUrl: string | null;
    allowedSources: string[];
    metadata: Record<string, string>;
    secret: string;
  },
): InboundRow {
  const now = new Date().toISOString();
  stmt(
    db,
    'INSERT INTO inbound_emails (id, key_id, email, reference, callback_url, allowed_sources, metadata, webhook_secret, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(
    r.id,
    r.keyId,
    r.email,
    r.reference,
    r.callbackUrl,
    JSON.stringify(r.allowedSources),
    JSON.stringify(r.metadata),
    sealWebhookSecret(db, r.secret),
    'active',
    now,
    now,
  );
  return inboundById(db, r.id)!;
}

export function inboundById(db: DB, id: string): InboundRow | undefined {
  return stmt(db, 'SELECT * FROM inbound_emails WHERE id = ?').get(id) as InboundRow | undefined;
}

/** A live (not deleted) address of this key. */
export function ownInbound(db: DB, id: string, keyId: number): InboundRow | undefined {
  const r = stmt(db, "SELECT * FROM inbound_emails WHERE id = ? AND status != 'deleted'").get(id) as InboundRow | undefined;
  return r && r.key_id === keyId ? r : undefined;
}

export function listInbound(
  db: DB,
  keyId: number,
  status: 'active' | 'paused' | 'all',
  limit: number,
  offset: number,
): { rows: InboundRow[]; total: number } {
  const where = status === 'all' ? "status != 'deleted'" : 'status = ?';
  const args = status === 'all' ? [keyId] : [keyId, status];
  const total = (stmt(db, `SELECT COUNT(*) AS n FROM inbound_emails WHERE key_id = ? AND ${where}`).get(...args) as { n: number }).n;
  const rows = stmt(db, `SELECT * FROM inbound_emails WHERE key_id = ? AND ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`).all(
    ...args,
    limit,
    offset,
  ) as InboundRow[];
  return { rows, total };
}

export function setInboundStatus(db: DB, id: string, status: 'active' | 'paused' | 'deleted'): void {
  stmt(db, 'UPDATE inbound_emails SET status = ?, updated_at = ? WHERE id = ?').run(status, new Date().toISOString(), id);
}

/** Up to `limit` files after row id `after`, received at or after (`exclusive`: after) `since`. */
export function inboundFiles(db: DB, inboundId: string, after: number, since: string, exclusive: boolean, limit: number): InboundFileRow[] {
  return stmt(
    db,
    `SELECT * FROM inbound_files WHERE inbound_email_id = ? AND id > ? AND received_at ${exclusive ? '>' : '>='} ? ORDER BY id LIMIT ?`,
  ).all(inboundId, after, since, limit) as InboundFileRow[];
}

/** All files received in one instant (the attachments of one email). */
export function inboundFilesAt(db: DB, inboundId: string, receivedAt: string): InboundFileRow[] {
  return stmt(db, 'SELECT * FROM inbound_files WHERE inbound_email_id = ? AND received_at = ? ORDER BY id').all(
    inboundId,
    receivedAt,
  ) as InboundFileRow[];
}

/**
 * Forwarding addresses (inbound email) and the files received on them. Status: active <-> paused;
 * active | paused -> deleted (soft delete, final, excluded from lists).
 */
import type { Db, Queries } from './sql.js';
import { sealWebhookSecret } from './secrets.js';

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
/** A forwarding address as stored, with its (sealed) webhook secret. */
export type InboundSecretRow = InboundRow & { webhook_secret: string };
export interface InboundFileRow {
  id: number;
  message_id: string;
  filename: string;
  original_filename: string;
  message_date: string;
  cas_type: string;
  sender_email: string;
  size: number;
  sha256: string;
  received_at: string;
  content_check: string;
  authentication: string;
}
/** A received file, before it is recorded. */
export interface NewInboundFile {
  filename: string;
  originalFilename: string;
  messageDate: string;
  casType: string;
  senderEmail: string;
  forwardedBy: string;
  size: number;
  sha256: string;
  contentCheck: string;
  authentication: string;
}

export async function inboundAddressTaken(db: Db, email: string): Promise<boolean> {
  return Boolean(await db.get('SELECT 1 FROM inbound_emails WHERE lower(email) = lower(?)', email));
}

export async function createInbound(
  db: Db,
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
): Promise<InboundRow> {
  const now = new Date().toISOString();
  await db.run(
    'INSERT INTO inbound_emails (id, key_id, email, reference, callback_url, allowed_sources, metadata, webhook_secret, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
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
  return (await inboundById(db, r.id))!;
}

export async function inboundById(db: Db, id: string): Promise<InboundSecretRow | undefined> {
  return (await db.get('SELECT * FROM inbound_emails WHERE id = ?', id)) as InboundSecretRow | undefined;
}

/** The active address that is `email` (case-insensitive), or undefined. */
export function activeInbound(db: Db, email: string): Promise<InboundSecretRow | undefined> {
  return db.get<InboundSecretRow>("SELECT * FROM inbound_emails WHERE lower(email) = lower(?) AND status = 'active'", email);
}

/**
 * Record one email whole in one transaction: the email (its Message-ID: a retry is recognised, and
 * null returned), its files, and what `also` adds in the same transaction (its webhook delivery, the
 * files renamed into place) before it commits.
 */
export function recordEmail(
  db: Db,
  email: { inboundId: string; messageId: string; receivedAt: string },
  files: NewInboundFile[],
  also: (q: Queries, rows: InboundFileRow[]) => Promise<void>,
): Promise<InboundFileRow[] | null> {
  return db.tx(async (q) => {
    const fresh = await q.run(
      'INSERT INTO inbound_messages (inbound_email_id, message_id, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      email.inboundId,
      email.messageId,
      email.receivedAt,
    );
    if (!fresh) return null;
    const rows: InboundFileRow[] = [];
    for (const f of files)
      rows.push(
        (await q.get<InboundFileRow>(
          'INSERT INTO inbound_files (inbound_email_id, message_id, filename, original_filename, message_date, cas_type, sender_email, forwarded_by, size, sha256, content_check, authentication, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
          email.inboundId,
          email.messageId,
          f.filename,
          f.originalFilename,
          f.messageDate,
          f.casType,
          f.senderEmail,
          f.forwardedBy,
          f.size,
          f.sha256,
          f.contentCheck,
          f.authentication,
          email.receivedAt,
        ))!,
      );
    await also(q, rows);
    return rows;
  });
}

/** A live (not deleted) address of this key. */
export async function ownInbound(db: Db, id: string, keyId: number): Promise<InboundRow | undefined> {
  const r = (await db.get("SELECT * FROM inbound_emails WHERE id = ? AND status != 'deleted'", id)) as InboundRow | undefined;
  return r && r.key_id === keyId ? r : undefined;
}

export async function listInbound(
  db: Db,
  keyId: number,
  status: 'active' | 'paused' | 'all',
  limit: number,
  offset: number,
): Promise<{ rows: InboundRow[]; total: number }> {
  const where = status === 'all' ? "status != 'deleted'" : 'status = ?';
  const args = status === 'all' ? [keyId] : [keyId, status];
  const total = ((await db.get(`SELECT COUNT(*) AS n FROM inbound_emails WHERE key_id = ? AND ${where}`, ...args)) as { n: number }).n;
  const rows = (await db.all(
    `SELECT * FROM inbound_emails WHERE key_id = ? AND ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`,
    ...args,
    limit,
    offset,
  )) as InboundRow[];
  return { rows, total };
}

export async function setInboundStatus(db: Db, id: string, status: 'active' | 'paused' | 'deleted'): Promise<void> {
  await db.run('UPDATE inbound_emails SET status = ?, updated_at = ? WHERE id = ?', status, new Date().toISOString(), id);
}

/** Up to `limit` files after row id `after`, received at or after (`exclusive`: after) `since`. */
export async function inboundFiles(
  db: Db,
  inboundId: string,
  after: number,
  since: string,
  exclusive: boolean,
  limit: number,
): Promise<InboundFileRow[]> {
  return (await db.all(
    `SELECT * FROM inbound_files WHERE inbound_email_id = ? AND id > ? AND received_at ${exclusive ? '>' : '>='} ? ORDER BY id LIMIT ?`,
    inboundId,
    after,
    since,
    limit,
  )) as InboundFileRow[];
}

/** All files received in one instant (the attachments of one email). */
export async function inboundFilesAt(db: Db, inboundId: string, receivedAt: string): Promise<InboundFileRow[]> {
  return (await db.all(
    'SELECT * FROM inbound_files WHERE inbound_email_id = ? AND received_at = ? ORDER BY id',
    inboundId,
    receivedAt,
  )) as InboundFileRow[];
}

/** Whether a received file with this content is recorded (a stored file still in use). */
export async function fileRecorded(db: Queries, sha: string): Promise<boolean> {
  return Boolean(await db.get('SELECT 1 AS t FROM inbound_files WHERE sha256 = ? LIMIT 1', sha));
}

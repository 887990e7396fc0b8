/** What a forwarding address shows of itself and of the files it received (answers, lists and webhook payloads). */
import type * as S from '../../schema/index.js';
import { realFileName } from '../../schema/dialect.js';
import type { Names } from '../../schema/names.js';
import { ApiError, type App } from '../context.js';
import { baseUrl } from '../store/files.js';
import { inboundFiles, inboundFilesAt, type InboundFileRow, type InboundRow } from '../store/inbound.js';

/** A forwarding address as the API shows it (times to the second). */
export const view = (r: InboundRow): S.InboundEmail => ({
  inbound_email_id: r.id,
  email: r.email,
  reference: r.reference,
  callback_url: r.callback_url,
  allowed_sources: JSON.parse(r.allowed_sources) as S.StatementSource[],
  metadata: JSON.parse(r.metadata) as Record<string, string>,
  // Lists and reads never return a deleted address.
  status: r.status as S.InboundEmail['status'],
  created_at: r.created_at.replace(/\.\d{3}Z$/, 'Z'),
  updated_at: r.updated_at.replace(/\.\d{3}Z$/, 'Z'),
});

/** What a file shows beyond an Email statement file. */
export interface FileExtensions {
  received_at: string;
  content_check: string;
  authentication: unknown;
}

/** An Email statement file, plus the extensions `received_at`, `content_check` and `authentication` (SPF/DKIM/DMARC). */
export function fileView(
  app: App,
  base: string,
  f: InboundFileRow,
  ttl: number,
  names: Names = 'spec',
): S.EmailStatementFile & FileExtensions {
  // In real names the file is named `cdsl_...` and its link is made with that name.
  const filename = names === 'real' ? realFileName(f.filename) : f.filename;
  return {
    message_id: f.message_id,
    filename,
    original_filename: f.original_filename,
    message_date: f.message_date,
    // Recorded only from a StatementSource (inbound/receive.ts).
    cas_type: f.cas_type as S.StatementSource,
    sender_email: f.sender_email,
    size: f.size,
    url: app.files.link(base, f.sha256, filename, ttl),
    expires_in: ttl,
    received_at: f.received_at,
    content_check: f.content_check,
    authentication: JSON.parse(f.authentication) as unknown,
  };
}

/**
 * One page of an address's files, newest last. Two ways of paging: ours (`since` inclusive, an
 * opaque `cursor` for the next page) and the hosted API's polling on real-name requests without a
 * cursor (`since` exclusive; the cursor is the last file's `received_at`, passed back as `since`).
 */
export async function filesPage(
  app: App,
  r: InboundRow,
  q: { since?: string; limit?: number; cursor?: string },
  names: Names,
): Promise<{ status: 'success'; files: (S.EmailStatementFile & FileExtensions)[]; count: number; cursor: string | null }> {
  const limit = q.limit ?? 50;
  let after = 0;
  if (q.cursor !== undefined) {
    after = Number(Buffer.from(q.cursor, 'base64url').toString('utf8'));
    if (!Number.isInteger(after) || after < 0) throw new ApiError(400, 'cursor is not valid');
  }
  const since = q.since ? new Date(q.since).toISOString() : '';
  const hosted = names === 'real' && q.cursor === undefined;
  const rows = await inboundFiles(app.db, r.id, after, since, hosted, limit + 1);
  let page = rows.slice(0, limit);
  if (hosted && rows.length > limit && page[page.length - 1].received_at === rows[limit].received_at) {
    // A `received_at` cursor must not split files received in the same instant (the attachments
    // of one email): end the page before them, or, when they are all it holds, return all of them.
    const tie = rows[limit].received_at;
    const before = page.filter((x) => x.received_at !== tie);
    page = before.length ? before : await inboundFilesAt(app.db, r.id, tie);
  }
  const ttl = app.config.mail.linkTtlSeconds ?? (r.callback_url ? 172800 : 1800);
  const files = page.map((x) => fileView(app, baseUrl(app), x, ttl, names));
  const cursor = hosted
    ? page.length
      ? page[page.length - 1].received_at
      : (q.since ?? null)
    : rows.length > limit
      ? Buffer.from(String(page[page.length - 1].id)).toString('base64url')
      : null;
  return { status: 'success', files, count: files.length, cursor };
}

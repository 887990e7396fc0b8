/**
 * Forwarding addresses (inbound email). Status transitions: active <-> paused (pause, resume);
 * active | paused -> deleted (soft delete; final; excluded from lists; mail to it is refused).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { zodMessage } from '../../schema/zod-message.js';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { StatementSource } from '../../schema/index.js';
import { stmt } from '../db.js';
import { fail, type App } from '../context.js';
import { assertPublicUrl, FetchError } from '../fetch-url.js';
import { baseUrl } from '../files.js';
import { fileView } from '../inbound.js';

const Create = z.object({
  alias: z.string().regex(/^[a-z0-9][a-z0-9._-]{2,62}$/, 'alias: 3-63 characters of a-z, 0-9, dot, dash, underscore').optional(),
  reference: z.string().max(255).nullable().optional(),
  callback_url: z.string().optional(),
  allowed_sources: z.array(StatementSource).optional(),
  metadata: z.record(z.string(), z.string().max(500)).refine((m) => Object.keys(m).length <= 10, 'metadata holds at most 10 string pairs').optional(),
}).strict();

interface Row { id: string; key_id: number; email: string; reference: string | null; callback_url: string | null; allowed_sources: string; metadata: string; status: string; created_at: string; updated_at: string }

const view = (r: Row) => ({ inbound_email_id: r.id, email: r.email, reference: r.reference, callback_url: r.callback_url, allowed_sources: JSON.parse(r.allowed_sources), metadata: JSON.parse(r.metadata), status: r.status, created_at: r.created_at.replace(/\.\d{3}Z$/, 'Z'), updated_at: r.updated_at.replace(/\.\d{3}Z$/, 'Z') });

export function inboundRoutes(f: FastifyInstance, app: App): void {
  const { db, config } = app;
  const meta = { feature: 'inbound_email', auth: 'v4' as const, shape: 'inbound_email' as const };
  const own = (req: FastifyRequest, reply: FastifyReply): Row | null => {
    const { id } = req.params as { id: string };
    const r = stmt(db, "SELECT * FROM inbound_emails WHERE id = ? AND status != 'deleted'").get(id) as Row | undefined;
    if (!r || r.key_id !== req.cas.principal!.keyId) {
      fail(reply, 404, 'no such inbound email');
      return null;
    }
    return r;
  };

  f.post('/v4/inbound-email', { config: { meta: { ...meta, request: 'inbound_create' as const } } }, async (req, reply) => {
    const b = Create.safeParse(req.body ?? {});
    if (!b.success) return fail(reply, 400, zodMessage(b.error));
    if (b.data.callback_url !== undefined) {
      try {
        await assertPublicUrl(b.data.callback_url, config.fetch.allowHosts);
      } catch (err) {
        return fail(reply, 400, `callback_url ${err instanceof FetchError ? err.message : 'is not valid'}`);
      }
    }
    const id = `ie_${randomBytes(8).toString('hex')}`;
    const email = `${b.data.alias ?? id}@${config.mail.inboundDomain}`;
    if (stmt(db, 'SELECT 1 FROM inbound_emails WHERE lower(email) = lower(?)').get(email)) return fail(reply, 400, `alias '${b.data.alias}' is taken`);
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    const now = new Date().toISOString();
    stmt(db, 'INSERT INTO inbound_emails (id, key_id, email, reference, callback_url, allowed_sources, metadata, webhook_secret, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      id, req.cas.principal!.keyId, email, b.data.reference ?? null, b.data.callback_url ?? null, JSON.stringify(b.data.allowed_sources ?? []), JSON.stringify(b.data.metadata ?? {}), secret, 'active', now, now,
    );
    const row = stmt(db, 'SELECT * FROM inbound_emails WHERE id = ?').get(id) as Row;
    // The signing secret is shown here once.
    return reply.code(201).send({ ...view(row), webhook_secret: secret });
  });

  f.get('/v4/inbound-email', { config: { meta: { ...meta, shape: 'inbound_list' as const } } }, async (req, reply) => {
    const q = req.query as { status?: string; limit?: string; offset?: string };
    const status = q.status ?? 'all';
    if (!['active', 'paused', 'all'].includes(status)) return fail(reply, 400, 'status must be active, paused or all');
    const limit = q.limit === undefined ? 20 : Number(q.limit);
    const offset = q.offset === undefined ? 0 : Number(q.offset);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail(reply, 400, 'limit must be a whole number from 1 to 100');
    if (!Number.isInteger(offset) || offset < 0) return fail(reply, 400, 'offset must be a whole number of 0 or more');
    const where = status === 'all' ? "status != 'deleted'" : 'status = ?';
    const args = status === 'all' ? [req.cas.principal!.keyId] : [req.cas.principal!.keyId, status];
    const total = (stmt(db, `SELECT COUNT(*) AS n FROM inbound_emails WHERE key_id = ? AND ${where}`).get(...args) as { n: number }).n;
    const rows = stmt(db, `SELECT * FROM inbound_emails WHERE key_id = ? AND ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`).all(...args, limit, offset) as Row[];
    return { status: 'success', inbound_emails: rows.map(view), total, limit, offset };
  });

  f.get('/v4/inbound-email/:id', { config: { meta } }, async (req, reply) => {
    const r = own(req, reply);
    return r ? view(r) : reply;
  });

  f.delete('/v4/inbound-email/:id', { config: { meta: { ...meta, shape: undefined } } }, async (req, reply) => {
    const r = own(req, reply);
    if (!r) return reply;
    stmt(db, "UPDATE inbound_emails SET status = 'deleted', updated_at = ? WHERE id = ?").run(new Date().toISOString(), r.id);
    return { status: 'success', msg: `${r.email} deleted; mail to it is refused from now on` };
  });

  for (const [action, from, to] of [['pause', 'active', 'paused'], ['resume', 'paused', 'active']] as const) {
    f.post(`/v4/inbound-email/:id/${action}`, { config: { meta } }, async (req, reply) => {
      const r = own(req, reply);
      if (!r) return reply;
      if (r.status !== from) return fail(reply, 400, `cannot ${action} an inbound email that is ${r.status}`);
      stmt(db, 'UPDATE inbound_emails SET status = ?, updated_at = ? WHERE id = ?').run(to, new Date().toISOString(), r.id);
      return view(stmt(db, 'SELECT * FROM inbound_emails WHERE id = ?').get(r.id) as Row);
    });
  }

  f.get('/v4/inbound-email/:id/files', { config: { meta: { ...meta, shape: 'email_files' as const } } }, async (req, reply) => {
    const r = own(req, reply);
    if (!r) return reply;
    const q = req.query as { since?: string; limit?: string; cursor?: string };
    const limit = q.limit === undefined ? 50 : Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail(reply, 400, 'limit must be a whole number from 1 to 100');
    if (q.since !== undefined && Number.isNaN(Date.parse(q.since))) return fail(reply, 400, 'since must be an ISO date-time');
    let after = 0;
    if (q.cursor !== undefined) {
      after = Number(Buffer.from(q.cursor, 'base64url').toString('utf8'));
      if (!Number.isInteger(after) || after < 0) return fail(reply, 400, 'cursor is not valid');
    }
    const since = q.since ? new Date(q.since).toISOString() : '';
    // The hosted API's polling: `since` is exclusive and the cursor is the last file's `received_at`
    // (pass it back as `since`); ours: `since` inclusive, an opaque `cursor` for the next page.
    const hosted = req.cas.names === 'real' && q.cursor === undefined;
    const rows = stmt(db, `SELECT * FROM inbound_files WHERE inbound_email_id = ? AND id > ? AND received_at ${hosted ? '>' : '>='} ? ORDER BY id LIMIT ?`).all(r.id, after, since, limit + 1) as { id: number; received_at: string }[];
    let page = rows.slice(0, limit);
    if (hosted && rows.length > limit && page[page.length - 1].received_at === rows[limit].received_at) {
      // A `received_at` cursor must not split files received in the same instant (the attachments
      // of one email): end the page before them, or, when they are all it holds, return all of them.
      const tie = rows[limit].received_at;
      const before = page.filter((x) => x.received_at !== tie);
      page = before.length ? before : (stmt(db, 'SELECT * FROM inbound_files WHERE inbound_email_id = ? AND received_at = ? ORDER BY id').all(r.id, tie) as typeof rows);
    }
    const ttl = config.mail.linkTtlSeconds ?? (r.callback_url ? 172800 : 1800);
    const files = page.map((x) => fileView(app, baseUrl(config.publicUrl, req as never), x as never, ttl, req.cas.names));
    if (hosted) return { status: 'success', files, count: files.length, cursor: page.length ? page[page.length - 1].received_at : q.since ?? null };
    return { status: 'success', files, count: files.length, cursor: rows.length > limit ? Buffer.from(String(page[page.length - 1].id)).toString('base64url') : null };
  });
}

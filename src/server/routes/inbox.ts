/**
 * Mailbox import: connect (OAuth for gmail, app password for imap), status, search, disconnect.
 * Connection states: active -> revoked (disconnect, or the provider refusing the grant).
 * The mailbox error body `{status: "error", msg, requires_reconnect: true}` answers with HTTP 401.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { zodMessage } from '../../schema/zod-message.js';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { IsoDate, StatementSource } from '../../schema/index.js';
import { realFileName } from '../../schema/dialect.js';
import { stmt } from '../db.js';
import { fail, type App } from '../context.js';
import { baseUrl } from '../files.js';
import { pkce } from '../locker.js';
import { GmailConnector, gmailToken, ImapConnector, type GmailCredentials, imapCheck, open, ReconnectError, seal, type FoundFile, type ImapCredentials, type MailConnector } from '../inbox.js';

const Connect = z.object({
  redirect_uri: z.url({ protocol: /^https?$/ }).optional(),
  state: z.string().max(500).optional(),
  provider: z.enum(['gmail', 'imap']).default('gmail'),
  imap: z.object({ host: z.string().min(1), port: z.number().int().min(1).max(65535).default(993), tls: z.boolean().default(true), user: z.string().min(1), password: z.string().min(1) }).optional(),
}).strict().refine((b) => b.provider !== 'imap' || b.imap, { message: 'imap settings (host, port, tls, user, password) are required for provider imap', path: ['imap'] })
  .refine((b) => b.provider !== 'gmail' || b.redirect_uri, { message: 'redirect_uri is required for provider gmail', path: ['redirect_uri'] });

const Search = z.object({ start_date: IsoDate.optional(), end_date: IsoDate.optional(), cas_types: z.array(StatementSource).optional() }).strict();

interface Conn { id: string; key_id: number; provider: string; email: string; credentials: string | null; status: string }

const SAMPLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures');

export function inboxRoutes(f: FastifyInstance, app: App): void {
  const { db, config } = app;
  const g = config.gmail;
  const reconnect = (reply: FastifyReply, msg: string): FastifyReply => reply.code(401).send({ status: 'error', msg, requires_reconnect: true });
  const callbackUrl = (req: FastifyRequest): string => `${baseUrl(config.publicUrl, req as never)}/v4/inbox/callback`;
  const newConnection = (keyId: number, provider: string, email: string, credentials: unknown): string => {
    const id = `mbx_${randomBytes(10).toString('hex')}`;
    stmt(db, 'INSERT INTO inbox_connections (id, key_id, provider, email, credentials, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(id, keyId, provider, email, credentials === null ? null : seal(db, credentials, 'cred_'), 'active', new Date().toISOString());
    return seal(db, { cid: id, provider, email });
  };
  const connection = (req: FastifyRequest): { conn?: Conn; error?: string } => {
    const raw = req.headers['x-inbox-token'];
    if (typeof raw !== 'string' || !raw) return { error: 'missing inbox token: send it in the x-inbox-token header' };
    const t = open<{ cid: string }>(db, raw.trim());
    if (!t) return { error: 'invalid inbox token' };
    const conn = stmt(db, 'SELECT * FROM inbox_connections WHERE id = ?').get(t.cid) as Conn | undefined;
    if (!conn || conn.key_id !== req.cas.principal!.keyId) return { error: 'this inbox token belongs to another key' };
    return { conn };
  };
  const connectorFor = (conn: Conn): MailConnector | 'sandbox' => {
    if (conn.provider === 'sandbox') return 'sandbox';
    const cred = conn.credentials ? open<Record<string, unknown>>(db, conn.credentials, 'cred_') : null;
    if (!cred) throw new ReconnectError('the mailbox credentials are gone; reconnect it');
    if (conn.provider === 'imap') return new ImapConnector(cred as unknown as ImapCredentials);
    const stored = (c: GmailCredentials): void => void stmt(db, "UPDATE inbox_connections SET credentials = ? WHERE id = ? AND status = 'active'").run(seal(db, c, 'cred_'), conn.id);
    return new GmailConnector(g, cred as unknown as GmailCredentials, stored);
  };
  const revoke = (conn: Conn): void => {
    stmt(db, "UPDATE inbox_connections SET status = 'revoked', credentials = NULL, revoked_at = ? WHERE id = ?").run(new Date().toISOString(), conn.id);
  };

  f.post('/v4/inbox/connect', { config: { meta: { feature: 'inbox_connect', auth: 'v4' } } }, async (req, reply) => {
    const raw = (req.body ?? {}) as Record<string, unknown>;
    // The hosted API treats a provider it does not recognise as gmail; outlook and zoho need that
    // service's own OAuth apps, so they are refused here rather than silently turned into gmail.
    if (req.cas.names === 'real' && typeof raw === 'object' && raw && typeof raw.provider === 'string') {
      if (raw.provider === 'outlook' || raw.provider === 'zoho') return fail(reply, 400, `provider ${raw.provider} is not available on this server; use gmail or imap`);
      if (raw.provider !== 'gmail' && raw.provider !== 'imap') raw.provider = 'gmail';
    }
    const b = Connect.safeParse(raw);
    if (!b.success) return fail(reply, 400, zodMessage(b.error));
    const keyId = req.cas.principal!.keyId;
    if (b.data.provider === 'imap') {
      const c = b.data.imap!;
      try {
        await imapCheck(c);
      } catch (err) {
        return fail(reply, 400, (err as Error).message);
      }
      return { status: 'success', provider: 'imap', email: c.user, inbox_token: newConnection(keyId, 'imap', c.user, c) };
    }
    const state = randomBytes(16).toString('base64url');
    const { verifier, challenge } = pkce();
    stmt(db, 'INSERT INTO inbox_oauth_states (state, key_id, provider, code_verifier, redirect_uri, client_state, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(state, keyId, 'gmail', verifier, b.data.redirect_uri!, b.data.state ?? null, new Date(Date.now() + 600_000).toISOString());
    if (req.cas.principal!.sandbox) return { status: 'success', oauth_url: `${callbackUrl(req)}?code=sandbox&state=${state}`, provider: 'gmail', expires_in: 600 };
    const q = new URLSearchParams({ client_id: g.clientId, redirect_uri: callbackUrl(req), response_type: 'code', scope: 'https://www.googleapis.com/auth/gmail.readonly', access_type: 'offline', prompt: 'consent', state, code_challenge: challenge, code_challenge_method: 'S256' });
    return { status: 'success', oauth_url: `${g.authUrl}?${q}`, provider: 'gmail', expires_in: 600 };
  });

  f.get('/v4/inbox/callback', async (req, reply) => {
    const q = req.query as { code?: string; state?: string; error?: string };
    const s = q.state ? (stmt(db, 'SELECT * FROM inbox_oauth_states WHERE state = ?').get(q.state) as { state: string; key_id: number; code_verifier: string; redirect_uri: string; client_state: string | null; expires_at: string } | undefined) : undefined;
    if (!s || Date.parse(s.expires_at) <= Date.now()) return fail(reply, 400, 'unknown or expired state');
    stmt(db, 'DELETE FROM inbox_oauth_states WHERE state = ?').run(s.state);
    const back = (params: Record<string, string>): unknown => {
      const u = new URL(s.redirect_uri);
      for (const [k, v] of Object.entries({ ...params, ...(s.client_state ? { state: s.client_state } : {}) })) u.searchParams.set(k, v);
      return reply.redirect(u.toString(), 302);
    };
    if (q.error || !q.code) return back({ error: q.error ?? 'no code' });
    if (s.key_id === 0 && q.code === 'sandbox') return back({ inbox_token: newConnection(0, 'sandbox', 'sandbox@example.com', null) });
    try {
      const tok = await gmailToken(g, { grant_type: 'authorization_code', code: q.code, redirect_uri: callbackUrl(req), code_verifier: s.code_verifier });
      if (!tok.creds) return back({ error: tok.error ?? `token exchange failed (HTTP ${tok.status})` });
      const pr = await fetch(`${g.apiUrl.replace(/\/+$/, '')}/gmail/v1/users/me/profile`, { headers: { authorization: `Bearer ${tok.creds.access_token}` }, signal: AbortSignal.timeout(15_000) });
      const profile = (await pr.json().catch(() => ({}))) as { emailAddress?: string };
      if (!pr.ok || !profile.emailAddress) return back({ error: 'could not read the mailbox address' });
      return back({ inbox_token: newConnection(s.key_id, 'gmail', profile.emailAddress, tok.creds) });
    } catch {
      return back({ error: 'the mail provider could not be reached' });
    }
  });

  f.post('/v4/inbox/status', { config: { meta: { feature: 'inbox_status', auth: 'v4', shape: 'inbox_status' } } }, async (req, reply) => {
    const { conn, error } = connection(req);
    if (!conn) return reconnect(reply, error!);
    return { status: 'success', connected: conn.status === 'active', provider: conn.provider, email: conn.email };
  });

  f.post('/v4/inbox/cas', { config: { meta: { feature: 'inbox_search', auth: 'v4', shape: 'email_files', request: 'inbox_search' } } }, async (req, reply) => {
    const { conn, error } = connection(req);
    if (!conn) return reconnect(reply, error!);
    if (conn.status !== 'active') return reconnect(reply, 'mailbox access was revoked; connect the mailbox again');
    const b = Search.safeParse(req.body ?? {});
    if (!b.success) return fail(reply, 400, zodMessage(b.error));
    const today = new Date().toISOString().slice(0, 10);
    const start = b.data.start_date ?? new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const end = b.data.end_date ?? today;
    if (start > end) return fail(reply, 400, 'start_date must not be after end_date');
    const sources = b.data.cas_types?.length ? b.data.cas_types : (['depository_a', 'depository_b', 'registrar_a', 'registrar_b'] as const).slice();
    let found: FoundFile[];
    try {
      const connector = connectorFor(conn);
      found = connector === 'sandbox'
        ? [{ messageId: '<sandbox-1@example.com>', date: end, sender: 'donotreply@camsonline.com', source: 'registrar_a' as const, filename: 'CAS_sample.pdf', content: readFileSync(path.join(SAMPLE_DIR, 'registrar/cams-detailed.pdf')) }].filter((x) => sources.includes(x.source))
        : await connector.search({ start, end, sources });
    } catch (err) {
      if (err instanceof ReconnectError) {
        revoke(conn);
        return reconnect(reply, err.message);
      }
      return fail(reply, 502, 'the mailbox could not be searched; try again later');
    }
    const files = [];
    for (const x of found) {
      const sha = await app.files.put(x.content);
      const neutralName = `${x.source}_${x.date.replace(/-/g, '')}_${randomBytes(6).toString('hex')}.pdf`;
      const filename = req.cas.names === 'real' ? realFileName(neutralName) : neutralName;
      files.push({ message_id: x.messageId, filename, original_filename: x.filename, message_date: x.date, cas_type: x.source, sender_email: x.sender, size: x.content.length, url: app.files.link(baseUrl(config.publicUrl, req as never), sha, filename, 86400), expires_in: 86400 });
    }
    return { status: 'success', files, count: files.length };
  });

  f.post('/v4/inbox/disconnect', { config: { meta: { feature: 'inbox_disconnect', auth: 'v4' } } }, async (req, reply) => {
    const { conn, error } = connection(req);
    if (!conn) return reconnect(reply, error!);
    if (conn.status === 'active') {
      try {
        const c = connectorFor(conn);
        if (c !== 'sandbox') await c.revoke();
      } catch {
        /* revoking at the provider is best effort; our copy is deleted below */
      }
      revoke(conn);
    }
    return { status: 'success', msg: `access to ${conn.email} revoked; the stored credentials are deleted` };
  });
}

/**
 * Mailbox import: connect (OAuth for gmail, app password for imap), status, search, disconnect.
 * Connection states: active -> revoked (disconnect, or the provider refusing the grant).
 * The mailbox error body `{status: "error", msg, requires_reconnect: true}` answers with HTTP 401.
 */
import type { FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import * as S from '../../schema/index.js';
import { realFileName } from '../../schema/dialect.js';
import { ApiError, type Section } from '../context.js';
import { baseUrl } from '../store/files.js';
import { oauthCallback, pkce } from '../locker/service.js';
import { notConfigured } from '../retrieval/providers.js';
import { sandboxFile, sandboxManifest } from '../sandbox.js';
import { ReconnectError, type FoundFile, type MailConnector } from '../mail/connector.js';
import { GmailConnector, gmailToken, type GmailCredentials } from '../mail/gmail.js';
import { ImapConnector, imapCheck, type ImapCredentials } from '../mail/imap.js';
import { unseal as open } from '../store/secrets.js';
import {
  connectionById,
  createConnection,
  createOAuthState,
  revokeConnection,
  storeCredentials,
  takeOAuthState,
  type Connection,
} from '../store/inbox.js';

const Connect = z
  .object({
    redirect_uri: z.url({ protocol: /^https?$/ }).optional(),
    state: z.string().max(500).optional(),
    provider: z.enum(['gmail', 'imap']).default('gmail'),
    imap: z
      .object({
        host: z.string().min(1),
        port: z.number().int().min(1).max(65535).default(993),
        tls: z.boolean().default(true),
        user: z.string().min(1),
        password: z.string().min(1),
      })
      .optional(),
  })
  .strict()
  .refine((b) => b.provider !== 'imap' || b.imap, {
    message: 'imap settings (host, port, tls, user, password) are required for provider imap',
    path: ['imap'],
  })
  .refine((b) => b.provider !== 'gmail' || b.redirect_uri, {
    message: 'redirect_uri is required for provider gmail',
    path: ['redirect_uri'],
  });

const Search = z
  .object({ start_date: S.IsoDate.optional(), end_date: S.IsoDate.optional(), cas_types: z.array(S.StatementSource).optional() })
  .strict();
/** The mailbox's token, checked by the handler (a missing or bad one is a reconnect answer, not a 400). */
const InboxToken = z.looseObject({ 'x-inbox-token': z.string().optional() });
const ImapConnected = z.object({ status: z.literal('success'), provider: z.literal('imap'), email: z.string(), inbox_token: z.string() });
const Revoked = S.MailbackResponse;

/** What the sandbox mailbox holds: the example investor's files of fixtures/sandbox/ (the manifest's `inbox`), dated `date`. */
function sandboxMail(date: string): FoundFile[] {
  return sandboxManifest().inbox.map((m, i) => ({
    messageId: `<sandbox-${i + 1}@example.com>`,
    date,
    sender: m.sender,
    source: m.source,
    filename: m.filename,
    content: sandboxFile(m.path),
  }));
}

/** The mailbox's answer when it must be connected again: HTTP 401 `{status: "error", msg, requires_reconnect}`. */
const reconnect = (msg: string): ApiError => new ApiError(401, msg, { status: 'error', msg, requires_reconnect: true });

export const inboxRoutes: Section = async (f, { app }) => {
  const { db, config } = app;
  const g = config.gmail;
  const callbackUrl = (): string => `${baseUrl(app)}/v4/inbox/callback`;
  /** The connection named by the x-inbox-token header, when it is this key's. */
  const connection = async (req: FastifyRequest): Promise<Connection> => {
    const raw = req.headers['x-inbox-token'];
    if (typeof raw !== 'string' || !raw) throw reconnect('missing inbox token: send it in the x-inbox-token header');
    const t = open<{ cid: string }>(db, raw.trim());
    if (!t) throw reconnect('invalid inbox token');
    const conn = await connectionById(db, t.cid);
    if (!conn || conn.key_id !== req.cas.principal!.keyId) throw reconnect('this inbox token belongs to another key');
    return conn;
  };
  const connectorFor = (conn: Connection): MailConnector | 'sandbox' => {
    if (conn.provider === 'sandbox') return 'sandbox';
    const cred = conn.credentials ? open<Record<string, unknown>>(db, conn.credentials, 'cred_') : null;
    if (!cred) throw new ReconnectError('the mailbox credentials are gone; reconnect it');
    if (conn.provider === 'imap') return new ImapConnector(cred as unknown as ImapCredentials);
    const stored = (c: GmailCredentials): Promise<void> => storeCredentials(db, conn.id, c);
    return new GmailConnector(g, cred as unknown as GmailCredentials, stored);
  };

  f.post(
    '/v4/inbox/connect',
    {
      schema: {
        operationId: 'inboxConnect',
        summary: 'Connect a mailbox (OAuth URL, or IMAP)',
        body: Connect,
        response: { 200: S.InboxConnectResponse.or(ImapConnected) },
      },
      config: { meta: { feature: 'inbox_connect', auth: 'v4' } },
      // The hosted API treats a provider it does not recognise as gmail; outlook and zoho need that
      // service's own OAuth apps, so they are refused here rather than silently turned into gmail.
      preValidation: async (req) => {
        const raw = req.body as Record<string, unknown> | undefined;
        if (req.cas.names !== 'real' || !raw || typeof raw !== 'object' || typeof raw.provider !== 'string') return;
        if (raw.provider === 'outlook' || raw.provider === 'zoho')
          throw new ApiError(400, `provider ${raw.provider} is not available on this server; use gmail or imap`);
        if (raw.provider !== 'gmail' && raw.provider !== 'imap') raw.provider = 'gmail';
      },
    },
    async (req) => {
      const b = req.body;
      const keyId = req.cas.principal!.keyId;
      if (b.provider === 'imap') {
        const c = b.imap!;
        try {
          await imapCheck(c);
        } catch (err) {
          throw new ApiError(400, (err as Error).message);
        }
        return {
          status: 'success' as const,
          provider: 'imap' as const,
          email: c.user,
          inbox_token: await createConnection(db, keyId, 'imap', c.user, c),
        };
      }
      // Without an OAuth client no consent can succeed: say so now rather than leave the caller waiting.
      if (!req.cas.principal!.sandbox && !g.clientId) throw notConfigured('gmail');
      const state = randomBytes(16).toString('base64url');
      const { verifier, challenge } = pkce();
      await createOAuthState(db, { state, keyId, verifier, redirectUri: b.redirect_uri!, clientState: b.state ?? null, ttlMs: 600_000 });
      if (req.cas.principal!.sandbox)
        return { status: 'success', oauth_url: `${callbackUrl()}?code=sandbox&state=${state}`, provider: 'gmail', expires_in: 600 };
      const q = new URLSearchParams({
        client_id: g.clientId,
        redirect_uri: callbackUrl(),
        response_type: 'code',
        scope: 'https://www.googleapis.com/auth/gmail.readonly',
        access_type: 'offline',
        prompt: 'consent',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      return { status: 'success', oauth_url: `${g.authUrl}?${q}`, provider: 'gmail', expires_in: 600 };
    },
  );

  f.get(
    '/v4/inbox/callback',
    {
      schema: {
        operationId: 'inboxCallback',
        summary: "The mail provider's OAuth redirect target: redirects to the app's redirect_uri with inbox_token (or error)",
        ...oauthCallback("the app's redirect_uri"),
      },
    },
    async (req, reply) => {
      // A state is taken once: a replayed callback finds none.
      const s = await takeOAuthState(db, req.query.state ?? '');
      if (!s) throw new ApiError(400, 'unknown or expired state');
      const q = req.query;
      const back = (params: Record<string, string>) => {
        const u = new URL(s.redirect_uri);
        for (const [k, v] of Object.entries({ ...params, ...(s.client_state ? { state: s.client_state } : {}) })) u.searchParams.set(k, v);
        return reply.redirect(u.toString(), 302);
      };
      if (q.error || !q.code) return back({ error: q.error ?? 'no code' });
      if (s.key_id === 0 && q.code === 'sandbox')
        return back({ inbox_token: await createConnection(db, 0, 'sandbox', 'sandbox@example.com', null) });
      try {
        const tok = await gmailToken(g, {
          grant_type: 'authorization_code',
          code: q.code,
          redirect_uri: callbackUrl(),
          code_verifier: s.code_verifier,
        });
        if (!tok.creds) return back({ error: tok.error ?? `token exchange failed (HTTP ${tok.status})` });
        const pr = await fetch(`${g.apiUrl.replace(/\/+$/, '')}/gmail/v1/users/me/profile`, {
          headers: { authorization: `Bearer ${tok.creds.access_token}` },
          signal: AbortSignal.timeout(15_000),
        });
        const profile = (await pr.json().catch(() => ({}))) as { emailAddress?: string };
        if (!pr.ok || !profile.emailAddress) return back({ error: 'could not read the mailbox address' });
        return back({ inbox_token: await createConnection(db, s.key_id, 'gmail', profile.emailAddress, tok.creds) });
      } catch {
        return back({ error: 'the mail provider could not be reached' });
      }
    },
  );

  f.post(
    '/v4/inbox/status',
    {
      schema: {
        operationId: 'inboxStatus',
        summary: 'Mailbox connection status',
        headers: InboxToken,
        response: { 200: S.InboxStatusResponse },
      },
      config: { meta: { feature: 'inbox_status', auth: 'v4', shape: 'inbox_status' } },
    },
    async (req) => {
      const conn = await connection(req);
      return { status: 'success', connected: conn.status === 'active', provider: conn.provider, email: conn.email };
    },
  );

  f.post(
    '/v4/inbox/cas',
    {
      schema: {
        operationId: 'inboxCasList',
        summary: 'Statement files in the mailbox',
        headers: InboxToken,
        body: Search,
        response: { 200: S.InboxSearchResponse },
      },
      config: { meta: { feature: 'inbox_search', auth: 'v4', shape: 'email_files', request: 'inbox_search' } },
    },
    async (req) => {
      const conn = await connection(req);
      if (conn.status !== 'active') throw reconnect('mailbox access was revoked; connect the mailbox again');
      const b = req.body;
      const today = new Date().toISOString().slice(0, 10);
      const start = b.start_date ?? new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
      const end = b.end_date ?? today;
      if (start > end) throw new ApiError(400, 'start_date must not be after end_date');
      const sources = b.cas_types?.length ? b.cas_types : (['depository_a', 'depository_b', 'registrar_a', 'registrar_b'] as const).slice();
      let found: FoundFile[];
      try {
        const connector = connectorFor(conn);
        found =
          connector === 'sandbox'
            ? sandboxMail(end).filter((x) => sources.includes(x.source))
            : await connector.search({ start, end, sources });
      } catch (err) {
        if (err instanceof ApiError) throw err;
        if (err instanceof ReconnectError) {
          await revokeConnection(db, conn.id);
          throw reconnect(err.message);
        }
        throw new ApiError(502, 'the mailbox could not be searched; try again later');
      }
      const files = [];
      for (const x of found) {
        const sha = await app.files.put(x.content);
        const neutralName = `${x.source}_${x.date.replace(/-/g, '')}_${randomBytes(6).toString('hex')}.pdf`;
        const filename = req.cas.names === 'real' ? realFileName(neutralName) : neutralName;
        files.push({
          message_id: x.messageId,
          filename,
          original_filename: x.filename,
          message_date: x.date,
          cas_type: x.source,
          sender_email: x.sender,
          size: x.content.length,
          url: app.files.link(baseUrl(app), sha, filename, 86400),
          expires_in: 86400,
        });
      }
      return { status: 'success' as const, files, count: files.length } as never;
    },
  );

  f.post(
    '/v4/inbox/disconnect',
    {
      schema: { operationId: 'inboxDisconnect', summary: 'Revoke mailbox access', headers: InboxToken, response: { 200: Revoked } },
      config: { meta: { feature: 'inbox_disconnect', auth: 'v4' } },
    },
    async (req) => {
      const conn = await connection(req);
      if (conn.status === 'active') {
        try {
          const c = connectorFor(conn);
          if (c !== 'sandbox') await c.revoke();
        } catch {
          /* revoking at the provider is best effort; our copy is deleted below */
        }
        await revokeConnection(db, conn.id);
      }
      return { status: 'success' as const, msg: `access to ${conn.email} revoked; the stored credentials are deleted` };
    },
  );
};

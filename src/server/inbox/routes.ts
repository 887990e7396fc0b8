/**
 * Mailbox import: connect (OAuth for gmail, app password for imap), status, search, disconnect.
 * Connection states: active -> revoked (disconnect, or the provider refusing the grant).
 * The mailbox error body `{status: "error", msg, requires_reconnect: true}` answers with HTTP 401.
 */
import type { FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import * as S from '../../schema/index.js';
import { ApiError, route, type Section } from '../context.js';
import { oauthCallback, pkce } from '../locker/service.js';
import { notConfigured } from '../retrieval/providers.js';
import { imapCheck } from '../mail/imap.js';
import { createConnection, createOAuthState, revokeConnection, takeOAuthState, type Connection } from '../store/inbox.js';
import { callbackUrl, connectionOf, connectorFor, finishGmailConsent, gmailConsentUrl, reconnect, searchMailbox } from './service.js';

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

const inboxConnect = route({
  method: 'post',
  url: '/v4/inbox/connect',
  schema: {
    operationId: 'inboxConnect',
    summary: 'Connect a mailbox (OAuth URL, or IMAP)',
    body: Connect,
    response: { 200: S.InboxConnectResponse.or(ImapConnected) },
  },
  config: { meta: { feature: 'inbox_connect', auth: 'v4' } },
});

const inboxCallback = route({
  method: 'get',
  url: '/v4/inbox/callback',
  schema: {
    operationId: 'inboxCallback',
    summary: "The mail provider's OAuth redirect target: redirects to the app's redirect_uri with inbox_token (or error)",
    ...oauthCallback("the app's redirect_uri"),
  },
});

const inboxStatus = route({
  method: 'post',
  url: '/v4/inbox/status',
  schema: {
    operationId: 'inboxStatus',
    summary: 'Mailbox connection status',
    headers: InboxToken,
    response: { 200: S.InboxStatusResponse },
  },
  config: { meta: { feature: 'inbox_status', auth: 'v4', shape: 'inbox_status' } },
});

const inboxCasList = route({
  method: 'post',
  url: '/v4/inbox/cas',
  schema: {
    operationId: 'inboxCasList',
    summary: 'Statement files in the mailbox',
    headers: InboxToken,
    body: Search,
    response: { 200: S.InboxSearchResponse },
  },
  config: { meta: { feature: 'inbox_search', auth: 'v4', shape: 'email_files', request: 'inbox_search' } },
});

const inboxDisconnect = route({
  method: 'post',
  url: '/v4/inbox/disconnect',
  schema: { operationId: 'inboxDisconnect', summary: 'Revoke mailbox access', headers: InboxToken, response: { 200: Revoked } },
  config: { meta: { feature: 'inbox_disconnect', auth: 'v4' } },
});

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const INBOX_ROUTES = [inboxConnect, inboxCallback, inboxStatus, inboxCasList, inboxDisconnect] as const;

export const inboxRoutes: Section = async (f, { app }) => {
  const { db, config } = app;
  const g = config.gmail;
  const connection = (req: FastifyRequest): Promise<Connection> =>
    connectionOf(app, req.headers['x-inbox-token'], req.cas.principal!.keyId);

  f.route({
    ...inboxConnect,

    // The hosted API treats a provider it does not recognise as gmail; outlook and zoho need that
    // service's own OAuth apps, so they are refused here rather than silently turned into gmail.
    preValidation: async (req) => {
      const raw = req.body as Record<string, unknown> | undefined;
      if (req.cas.names !== 'real' || !raw || typeof raw !== 'object' || typeof raw.provider !== 'string') return;
      if (raw.provider === 'outlook' || raw.provider === 'zoho')
        throw new ApiError(400, `provider ${raw.provider} is not available on this server; use gmail or imap`);
      if (raw.provider !== 'gmail' && raw.provider !== 'imap') raw.provider = 'gmail';
    },

    handler: async (req) => {
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
      const oauthUrl = req.cas.principal!.sandbox
        ? `${callbackUrl(app)}?code=sandbox&state=${state}`
        : gmailConsentUrl(app, state, challenge);
      return { status: 'success', oauth_url: oauthUrl, provider: 'gmail', expires_in: 600 };
    },
  });

  f.route({
    ...inboxCallback,

    handler: async (req, reply) => {
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
      return back(await finishGmailConsent(app, s.key_id, q.code, s.code_verifier));
    },
  });

  f.route({
    ...inboxStatus,

    handler: async (req) => {
      const conn = await connection(req);
      return { status: 'success', connected: conn.status === 'active', provider: conn.provider, email: conn.email };
    },
  });

  f.route({
    ...inboxCasList,

    handler: async (req) => {
      const conn = await connection(req);
      if (conn.status !== 'active') throw reconnect('mailbox access was revoked; connect the mailbox again');
      const b = req.body;
      const today = new Date().toISOString().slice(0, 10);
      const start = b.start_date ?? new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
      const end = b.end_date ?? today;
      if (start > end) throw new ApiError(400, 'start_date must not be after end_date');
      const sources = b.cas_types?.length ? b.cas_types : (['depository_a', 'depository_b', 'registrar_a', 'registrar_b'] as const).slice();
      const files = await searchMailbox(app, conn, { start, end, sources }, req.cas.names);
      return { status: 'success' as const, files, count: files.length };
    },
  });

  f.route({
    ...inboxDisconnect,

    handler: async (req) => {
      const conn = await connection(req);
      if (conn.status === 'active') {
        try {
          const c = connectorFor(app, conn);
          if (c !== 'sandbox') await c.revoke();
        } catch {
          /* revoking at the provider is best effort; our copy is deleted below */
        }
        await revokeConnection(db, conn.id);
      }
      return { status: 'success' as const, msg: `access to ${conn.email} revoked; the stored credentials are deleted` };
    },
  });
};

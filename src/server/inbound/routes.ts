/**
 * Forwarding addresses (inbound email). Status transitions: active <-> paused (pause, resume);
 * active | paused -> deleted (soft delete; final; excluded from lists; mail to it is refused).
 */
import type { FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import * as S from '../../schema/index.js';
import { ApiError, type RouteMeta, type Section } from '../context.js';
import { assertPublicUrl, FetchError } from '../net/fetch.js';
import { baseUrl } from '../store/files.js';
import { fileView } from './service.js';
import {
  createInbound,
  inboundAddressTaken,
  inboundById,
  inboundFiles,
  inboundFilesAt,
  listInbound,
  ownInbound,
  setInboundStatus,
  type InboundRow,
} from '../store/inbound.js';

const Create = z
  .object({
    alias: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{2,62}$/, 'alias: 3-63 characters of a-z, 0-9, dot, dash, underscore')
      .optional(),
    reference: z.string().max(255).nullable().optional(),
    callback_url: z.string().optional().meta({ format: 'uri' }),
    allowed_sources: z.array(S.StatementSource).optional(),
    metadata: z
      .record(z.string(), z.string().max(500))
      .refine((m) => Object.keys(m).length <= 10, 'metadata holds at most 10 string pairs')
      .optional(),
  })
  .strict();
const Id = z.object({ inbound_email_id: z.string() });
const whole = (min: number, max?: number): z.ZodType<number | undefined> => {
  const msg = `must be a whole number ${max === undefined ? `of ${min} or more` : `from ${min} to ${max}`}`;
  const n = z.coerce.number(msg).int(msg).min(min, msg);
  return (max === undefined ? n : n.max(max, msg)).optional();
};
const ListQuery = z.object({
  status: z.enum(['active', 'paused', 'all'], 'must be active, paused or all').optional(),
  limit: whole(1, 100),
  offset: whole(0),
});
const FilesQuery = z.object({
  since: z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO date-time')
    .optional()
    .meta({ format: 'date-time' }),
  limit: whole(1, 100),
  cursor: z.string().optional(),
});
const FilesResponse = S.InboxSearchResponse.extend({ cursor: z.string().nullable() });
const Deleted = S.MailbackResponse;

const view = (r: InboundRow) =>
  ({
    inbound_email_id: r.id,
    email: r.email,
    reference: r.reference,
    callback_url: r.callback_url,
    allowed_sources: JSON.parse(r.allowed_sources),
    metadata: JSON.parse(r.metadata),
    status: r.status,
    created_at: r.created_at.replace(/\.\d{3}Z$/, 'Z'),
    updated_at: r.updated_at.replace(/\.\d{3}Z$/, 'Z'),
  }) as never;

export const inboundRoutes: Section = async (f, { app }) => {
  const { db, config } = app;
  const meta: RouteMeta = { feature: 'inbound_email', auth: 'v4', shape: 'inbound_email' };
  const own = async (req: FastifyRequest<{ Params: { inbound_email_id: string } }>): Promise<InboundRow> => {
    const r = await ownInbound(db, req.params.inbound_email_id, req.cas.principal!.keyId);
    if (!r) throw new ApiError(404, 'no such inbound email');
    return r;
  };

  f.post(
    '/v4/inbound-email',
    {
      schema: {
        operationId: 'createInboundEmail',
        summary: 'Create a forwarding address (its webhook_secret is shown once)',
        body: Create,
        response: { 201: S.InboundEmail.extend({ webhook_secret: z.string() }) },
      },
      config: { meta: { ...meta, request: 'inbound_create' } },
    },
    async (req, reply) => {
      const b = req.body;
      if (b.callback_url !== undefined) {
        try {
          await assertPublicUrl(b.callback_url, config.fetch.allowHosts);
        } catch (err) {
          throw new ApiError(400, `callback_url ${err instanceof FetchError ? err.message : 'is not valid'}`);
        }
      }
      const id = `ie_${randomBytes(8).toString('hex')}`;
      const email = `${b.alias ?? id}@${config.mail.inboundDomain}`;
      if (await inboundAddressTaken(db, email)) throw new ApiError(400, `alias '${b.alias}' is taken`);
      const secret = `whsec_${randomBytes(24).toString('base64url')}`;
      const row = await createInbound(db, {
        id,
        keyId: req.cas.principal!.keyId,
        email,
        reference: b.reference ?? null,
        callbackUrl: b.callback_url ?? null,
        allowedSources: b.allowed_sources ?? [],
        metadata: b.metadata ?? {},
        secret,
      });
      // The signing secret is shown here once.
      reply.code(201);
      return { ...(view(row) as object), webhook_secret: secret } as never;
    },
  );

  f.get(
    '/v4/inbound-email',
    {
      schema: {
        operationId: 'listInboundEmails',
        summary: 'List forwarding addresses',
        querystring: ListQuery,
        response: { 200: S.InboundEmailList },
      },
      config: { meta: { ...meta, shape: 'inbound_list' } },
    },
    async (req) => {
      const limit = req.query.limit ?? 20;
      const offset = req.query.offset ?? 0;
      const { rows, total } = await listInbound(db, req.cas.principal!.keyId, req.query.status ?? 'all', limit, offset);
      return { status: 'success' as const, inbound_emails: rows.map(view), total, limit, offset };
    },
  );

  f.get(
    '/v4/inbound-email/:inbound_email_id',
    {
      schema: { operationId: 'getInboundEmail', summary: 'One forwarding address', params: Id, response: { 200: S.InboundEmail } },
      config: { meta },
    },
    async (req) => view(await own(req)),
  );

  f.delete(
    '/v4/inbound-email/:inbound_email_id',
    {
      schema: { operationId: 'deleteInboundEmail', summary: 'Delete a forwarding address', params: Id, response: { 200: Deleted } },
      config: { meta: { ...meta, shape: undefined } },
    },
    async (req) => {
      const r = await own(req);
      await setInboundStatus(db, r.id, 'deleted');
      return { status: 'success' as const, msg: `${r.email} deleted; mail to it is refused from now on` };
    },
  );

  for (const [action, from, to] of [
    ['pause', 'active', 'paused'],
    ['resume', 'paused', 'active'],
  ] as const) {
    f.post(
      `/v4/inbound-email/:inbound_email_id/${action}`,
      {
        schema: {
          operationId: `${action}InboundEmail`,
          summary: `${action === 'pause' ? 'Pause' : 'Resume'} a forwarding address`,
          params: Id,
          response: { 200: S.InboundEmail },
        },
        config: { meta },
      },
      async (req) => {
        const r = await own(req);
        if (r.status !== from) throw new ApiError(400, `cannot ${action} an inbound email that is ${r.status}`);
        await setInboundStatus(db, r.id, to);
        return view((await inboundById(db, r.id))!);
      },
    );
  }

  f.get(
    '/v4/inbound-email/:inbound_email_id/files',
    {
      schema: {
        operationId: 'listInboundEmailFiles',
        summary: 'Statement files received',
        params: Id,
        querystring: FilesQuery,
        response: { 200: FilesResponse },
      },
      config: { meta: { ...meta, shape: 'email_files' } },
    },
    async (req) => {
      const r = await own(req);
      const q = req.query;
      const limit = q.limit ?? 50;
      let after = 0;
      if (q.cursor !== undefined) {
        after = Number(Buffer.from(q.cursor, 'base64url').toString('utf8'));
        if (!Number.isInteger(after) || after < 0) throw new ApiError(400, 'cursor is not valid');
      }
      const since = q.since ? new Date(q.since).toISOString() : '';
      // The hosted API's polling: `since` is exclusive and the cursor is the last file's `received_at`
      // (pass it back as `since`); ours: `since` inclusive, an opaque `cursor` for the next page.
      const hosted = req.cas.names === 'real' && q.cursor === undefined;
      const rows = await inboundFiles(db, r.id, after, since, hosted, limit + 1);
      let page = rows.slice(0, limit);
      if (hosted && rows.length > limit && page[page.length - 1].received_at === rows[limit].received_at) {
        // A `received_at` cursor must not split files received in the same instant (the attachments
        // of one email): end the page before them, or, when they are all it holds, return all of them.
        const tie = rows[limit].received_at;
        const before = page.filter((x) => x.received_at !== tie);
        page = before.length ? before : await inboundFilesAt(db, r.id, tie);
      }
      const ttl = config.mail.linkTtlSeconds ?? (r.callback_url ? 172800 : 1800);
      const files = page.map((x) => fileView(app, baseUrl(app), x as never, ttl, req.cas.names));
      if (hosted)
        return {
          status: 'success' as const,
          files,
          count: files.length,
          cursor: page.length ? page[page.length - 1].received_at : (q.since ?? null),
        } as never;
      return {
        status: 'success' as const,
        files,
        count: files.length,
        cursor: rows.length > limit ? Buffer.from(String(page[page.length - 1].id)).toString('base64url') : null,
      } as never;
    },
  );
};

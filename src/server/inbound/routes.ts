/**
 * Forwarding addresses (inbound email). Status transitions: active <-> paused (pause, resume);
 * active | paused -> deleted (soft delete; final; excluded from lists; mail to it is refused).
 */
import type { FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import * as S from '../../schema/index.js';
import { ApiError, type RouteMeta, route, type Section } from '../context.js';
import { assertPublicUrl, FetchError } from '../net/fetch.js';
import { filesPage, view } from './service.js';
import {
  createInbound,
  inboundAddressTaken,
  inboundById,
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

const meta: RouteMeta = { feature: 'inbound_email', auth: 'v4', shape: 'inbound_email' };
/** Pausing and resuming a forwarding address: one declaration each. */
const statusChange = (action: 'pause' | 'resume') =>
  route({
    method: 'post',
    url: `/v4/inbound-email/:inbound_email_id/${action}`,
    schema: {
      operationId: `${action}InboundEmail`,
      summary: `${action === 'pause' ? 'Pause' : 'Resume'} a forwarding address`,
      params: Id,
      response: { 200: S.InboundEmail },
    },
    config: { meta },
  });
const pauseInboundEmail = statusChange('pause');
const resumeInboundEmail = statusChange('resume');

const createInboundEmail = route({
  method: 'post',
  url: '/v4/inbound-email',
  schema: {
    operationId: 'createInboundEmail',
    summary: 'Create a forwarding address (its webhook_secret is shown once)',
    body: Create,
    response: { 201: S.InboundEmail.extend({ webhook_secret: z.string() }) },
  },
  config: { meta: { ...meta, request: 'inbound_create' } },
});

const listInboundEmails = route({
  method: 'get',
  url: '/v4/inbound-email',
  schema: {
    operationId: 'listInboundEmails',
    summary: 'List forwarding addresses',
    querystring: ListQuery,
    response: { 200: S.InboundEmailList },
  },
  config: { meta: { ...meta, shape: 'inbound_list' } },
});

const getInboundEmail = route({
  method: 'get',
  url: '/v4/inbound-email/:inbound_email_id',
  schema: { operationId: 'getInboundEmail', summary: 'One forwarding address', params: Id, response: { 200: S.InboundEmail } },
  config: { meta },
});

const deleteInboundEmail = route({
  method: 'delete',
  url: '/v4/inbound-email/:inbound_email_id',
  schema: { operationId: 'deleteInboundEmail', summary: 'Delete a forwarding address', params: Id, response: { 200: Deleted } },
  config: { meta: { ...meta, shape: undefined } },
});

const listInboundEmailFiles = route({
  method: 'get',
  url: '/v4/inbound-email/:inbound_email_id/files',
  schema: {
    operationId: 'listInboundEmailFiles',
    summary: 'Statement files received',
    params: Id,
    querystring: FilesQuery,
    response: { 200: FilesResponse },
  },
  config: { meta: { ...meta, shape: 'email_files' } },
});

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const INBOUND_ROUTES = [
  createInboundEmail,
  listInboundEmails,
  getInboundEmail,
  deleteInboundEmail,
  pauseInboundEmail,
  resumeInboundEmail,
  listInboundEmailFiles,
] as const;

export const inboundRoutes: Section = async (f, { app }) => {
  const { db, config } = app;
  const own = async (req: FastifyRequest<{ Params: { inbound_email_id: string } }>): Promise<InboundRow> => {
    const r = await ownInbound(db, req.params.inbound_email_id, req.cas.principal!.keyId);
    if (!r) throw new ApiError(404, 'no such inbound email');
    return r;
  };

  f.route({
    ...createInboundEmail,

    handler: async (req, reply) => {
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
      return { ...view(row), webhook_secret: secret };
    },
  });

  f.route({
    ...listInboundEmails,

    handler: async (req) => {
      const limit = req.query.limit ?? 20;
      const offset = req.query.offset ?? 0;
      const { rows, total } = await listInbound(db, req.cas.principal!.keyId, req.query.status ?? 'all', limit, offset);
      return { status: 'success' as const, inbound_emails: rows.map(view), total, limit, offset };
    },
  });

  f.route({
    ...getInboundEmail,

    handler: async (req) => view(await own(req)),
  });

  f.route({
    ...deleteInboundEmail,

    handler: async (req) => {
      const r = await own(req);
      await setInboundStatus(db, r.id, 'deleted');
      return { status: 'success' as const, msg: `${r.email} deleted; mail to it is refused from now on` };
    },
  });

  for (const [decl, action, from, to] of [
    [pauseInboundEmail, 'pause', 'active', 'paused'],
    [resumeInboundEmail, 'resume', 'paused', 'active'],
  ] as const) {
    f.route({
      ...decl,
      handler: async (req) => {
        const r = await own(req);
        if (r.status !== from) throw new ApiError(400, `cannot ${action} an inbound email that is ${r.status}`);
        await setInboundStatus(db, r.id, to);
        return view((await inboundById(db, r.id))!);
      },
    });
  }

  f.route({
    ...listInboundEmailFiles,

    handler: async (req) => filesPage(app, await own(req), req.query, req.cas.names),
  });
};

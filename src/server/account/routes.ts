/** Account: credits, usage logs and summary, access tokens (with the older path names). */
import { z } from 'zod';
import * as S from '../../schema/index.js';
import { BILLED } from '../billing.js';
import { ApiError, type RouteDecl, type RouteSchema, type Section } from '../context.js';
import { createAccessToken, findAccessToken, maskKey } from '../store/keys.js';
import { usageByFeature, usageLogs } from '../store/usage.js';
import { balance } from '../store/credits.js';
import { fromMilli } from '../store/sql.js';

/**
 * A point in time as clients send it: RFC 3339 with `Z` or any offset (`+00:00`, `+05:30`, what
 * Python's and most SDKs' serialisers write), optionally without seconds' fraction, or a date alone.
 * Kept as written; `bound` turns it into the UTC instant the usage log is compared with.
 */
const When = z.union([z.iso.datetime({ offset: true, local: true }), z.iso.date()]);
const UsageBody = z
  .object({ start_time: When.optional(), end_time: When.optional(), limit: z.number().int().min(1).max(1000).optional() })
  .strict();
const TokenBody = z.object({ expiry_minutes: z.number().int().min(1, 'must be 1 to 60').max(60, 'must be 1 to 60').optional() }).strict();
const VerifyBody = z.object({ access_token: z.string().optional(), token: z.string().optional() });

/** UTC ISO instant of a usage bound; a date alone is the start (or, as an end, the last moment) of that UTC day. */
function bound(v: string | undefined, edge: 'start' | 'end'): string {
  if (v === undefined) return edge === 'start' ? '0000' : '9999';
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return `${v}T${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}Z`;
  // No offset at all (local time): taken as UTC, the service's clock.
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`;
  return new Date(withZone).toISOString();
}

/**
 * Each operation also answers on its older path name (`<operationId>Legacy` in the document): two
 * declarations of one type (a loop registers both with one handler).
 */
const both = <const S extends RouteSchema, const C extends RouteDecl['config']>(
  paths: [string, string],
  id: string,
  schema: S,
  config: C,
) => paths.map((url, i) => ({ method: 'post' as const, url, schema: { operationId: i ? `${id}Legacy` : id, ...schema }, config }));

const checkCredits = both(
  ['/v1/credits', '/credits'],
  'checkCredits',
  { summary: 'Remaining credits', response: { 200: S.CreditsResponse } },
  { meta: { feature: 'credits', auth: 'key', shape: 'credits' } },
);
const getUsageLogs = both(
  ['/v1/usage', '/logs'],
  'getUsageLogs',
  { summary: 'Usage logs', body: UsageBody, response: { 200: S.UsageResponse } },
  { meta: { feature: 'usage', auth: 'key', tokenDetail: true, shape: 'usage' } },
);
const getUsageSummary = both(
  ['/v1/usage/summary', '/logs/summary'],
  'getUsageSummary',
  { summary: 'Usage by feature', body: UsageBody, response: { 200: S.UsageSummaryResponse } },
  { meta: { feature: 'usage', auth: 'key', tokenDetail: true, shape: 'usage_summary' } },
);
const generateAccessToken = both(
  ['/v1/token', '/v1/access-token'],
  'generateAccessToken',
  { summary: 'Create an access token', body: TokenBody, response: { 200: S.TokenResponse } },
  { meta: { feature: 'token', auth: 'key' } },
);
const verifyAccessToken = both(
  ['/v1/token/verify', '/v1/verify-token'],
  'verifyAccessToken',
  {
    summary: 'Check an access token (the one in x-api-key, or access_token in the body)',
    body: VerifyBody,
    response: { 200: S.TokenVerifyResponse },
  },
  { meta: { feature: 'token', auth: 'key', tokenSelfCheck: true, shape: 'token_verify' } },
);

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const ACCOUNT_ROUTES = [...checkCredits, ...getUsageLogs, ...getUsageSummary, ...generateAccessToken, ...verifyAccessToken];

export const accountRoutes: Section = async (f, { app: { db } }) => {
  for (const d of checkCredits)
    f.route({
      ...d,
      handler: async (req) => {
        const p = req.cas.principal!;
        if (p.sandbox || !p.key)
          return {
            status: 'success' as const,
            used: 0,
            remaining: null,
            limit: null,
            is_unlimited: true,
            resets_at: null,
            enabled_features: BILLED,
          };
        const k = await balance(db, p.keyId);
        return {
          status: 'success' as const,
          used: k.used,
          remaining: k.unlimited ? null : k.remaining,
          limit: k.unlimited ? null : k.limit,
          is_unlimited: k.unlimited,
          resets_at: null,
          enabled_features: BILLED,
        };
      },
    });

  for (const d of getUsageLogs)
    f.route({
      ...d,
      handler: async (req) => {
        const logs = await usageLogs(
          db,
          req.cas.principal!.keyId,
          bound(req.body.start_time, 'start'),
          bound(req.body.end_time, 'end'),
          req.body.limit ?? 100,
        );
        return { status: 'success' as const, logs, count: logs.length };
      },
    });

  for (const d of getUsageSummary)
    f.route({
      ...d,
      handler: async (req) => {
        const rows = await usageByFeature(
          db,
          req.cas.principal!.keyId,
          bound(req.body.start_time, 'start'),
          bound(req.body.end_time, 'end'),
        );
        const by = rows.map((r) => ({ feature: r.feature, credits: r.credits, requests: r.requests }));
        return {
          status: 'success' as const,
          summary: {
            total_credits: fromMilli(rows.reduce((s, r) => s + r.milli, 0)),
            total_requests: rows.reduce((s, r) => s + r.requests, 0),
            by_feature: by,
          },
        };
      },
    });

  for (const d of generateAccessToken)
    f.route({
      ...d,
      handler: async (req) => {
        const { token, expiresIn } = await createAccessToken(db, req.cas.principal!.keyId, req.body.expiry_minutes ?? 60);
        return { status: 'success' as const, access_token: token, token_type: 'api_key' as const, expires_in: expiresIn };
      },
    });

  for (const d of verifyAccessToken)
    f.route({
      ...d,
      handler: async (req) => {
        // Two forms: the hosted API's bodiless call with the token itself in x-api-key, and the API key
        // in x-api-key with the token to check in the body.
        const self = req.cas.selfToken;
        const t = self ?? req.body.access_token ?? req.body.token;
        if (!t) throw new ApiError(400, 'give the token to check in access_token, or send the access token itself in x-api-key');
        const found = await findAccessToken(db, t);
        if (!found || (!self && found.keyId !== req.cas.principal!.keyId) || (self && found.keyId && (!found.key || found.key.revoked_at)))
          return { status: 'success' as const, valid: false, masked_api_key: null, error: 'unknown token' };
        const masked = found.key ? maskKey(found.key.prefix) : 'sandbox';
        if (found.expired) return { status: 'success' as const, valid: false, masked_api_key: masked, error: 'token expired' };
        return { status: 'success' as const, valid: true, masked_api_key: masked, error: null };
      },
    });
};

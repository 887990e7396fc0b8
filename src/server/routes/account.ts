/** Account: credits, usage logs and summary, access tokens (with the older path names). */
import type { FastifyInstance } from 'fastify';
import { zodMessage } from '../../schema/zod-message.js';
import { z } from 'zod';
import { fromMilli, stmt } from '../db.js';
import { PRICES } from '../billing.js';
import { fail, type App } from '../context.js';
import { createAccessToken, findAccessToken, maskKey } from '../keys.js';

/**
 * A point in time as clients send it: RFC 3339 with `Z` or any offset (`+00:00`, `+05:30`, what
 * Python's and most SDKs' serialisers write), optionally without seconds' fraction, or a date alone.
 * Kept as written; `bound` turns it into the UTC instant the usage log is compared with.
 */
const When = z.union([z.iso.datetime({ offset: true, local: true }), z.iso.date()]);
const UsageBody = z.object({ start_time: When.optional(), end_time: When.optional(), limit: z.number().int().min(1).max(1000).optional() }).strict();

/** UTC ISO instant of a usage bound; a date alone is the start (or, as an end, the last moment) of that UTC day. */
function bound(v: string | undefined, edge: 'start' | 'end'): string {
  if (v === undefined) return edge === 'start' ? '0000' : '9999';
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return `${v}T${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}Z`;
  // No offset at all (local time): taken as UTC, the service's clock.
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`;
  return new Date(withZone).toISOString();
}
const TokenBody = z.object({ expiry_minutes: z.number().int().min(1).max(60).optional() }).strict();
const VerifyBody = z.object({ access_token: z.string().optional(), token: z.string().optional() });


export function accountRoutes(f: FastifyInstance, { db }: App): void {
  const credits = async (req: import('fastify').FastifyRequest) => {
    const p = req.cas.principal!;
    if (p.sandbox || !p.key) return { status: 'success', used: 0, remaining: null, limit: null, is_unlimited: true, resets_at: null, enabled_features: Object.keys(PRICES) };
    const k = stmt(db, 'SELECT credits_milli, used_milli, unlimited FROM api_keys WHERE id = ?').get(p.keyId) as { credits_milli: number; used_milli: number; unlimited: number };
    const unlimited = Boolean(k.unlimited);
    return {
      status: 'success', used: fromMilli(k.used_milli), remaining: unlimited ? null : fromMilli(k.credits_milli), limit: unlimited ? null : fromMilli(k.credits_milli + k.used_milli),
      is_unlimited: unlimited, resets_at: null, enabled_features: Object.keys(PRICES),
    };
  };
  for (const url of ['/v1/credits', '/credits']) f.post(url, { config: { meta: { feature: 'credits', auth: 'key', shape: 'credits' } } }, credits);

  const window = (body: z.infer<typeof UsageBody>) => [bound(body.start_time, 'start'), bound(body.end_time, 'end')];
  const usage = async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    const parsed = UsageBody.safeParse(req.body ?? {});
    if (!parsed.success) return fail(reply, 400, zodMessage(parsed.error));
    const [from, to] = window(parsed.data);
    const rows = stmt(db, 'SELECT request_id, feature, path, status_code, credits_milli, timestamp FROM usage_log WHERE key_id = ? AND timestamp >= ? AND timestamp <= ? ORDER BY id DESC LIMIT ?').all(req.cas.principal!.keyId, from, to, parsed.data.limit ?? 100) as { request_id: string; feature: string; path: string; status_code: number; credits_milli: number; timestamp: string }[];
    const logs = rows.map((r) => ({ request_id: r.request_id, feature: r.feature, path: r.path, status_code: r.status_code, credits: fromMilli(r.credits_milli), timestamp: r.timestamp }));
    return { status: 'success', logs, count: logs.length };
  };
  for (const url of ['/v1/usage', '/logs']) f.post(url, { config: { meta: { feature: 'usage', auth: 'key', tokenDetail: true, shape: 'usage' } } }, usage);

  const summary = async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    const parsed = UsageBody.safeParse(req.body ?? {});
    if (!parsed.success) return fail(reply, 400, zodMessage(parsed.error));
    const [from, to] = window(parsed.data);
    const rows = stmt(db, 'SELECT feature, SUM(credits_milli) AS c, COUNT(*) AS n FROM usage_log WHERE key_id = ? AND timestamp >= ? AND timestamp <= ? GROUP BY feature ORDER BY feature').all(req.cas.principal!.keyId, from, to) as { feature: string; c: number; n: number }[];
    const by = rows.map((r) => ({ feature: r.feature, credits: fromMilli(r.c), requests: r.n }));
    return { status: 'success', summary: { total_credits: fromMilli(rows.reduce((s, r) => s + r.c, 0)), total_requests: rows.reduce((s, r) => s + r.n, 0), by_feature: by } };
  };
  for (const url of ['/v1/usage/summary', '/logs/summary']) f.post(url, { config: { meta: { feature: 'usage', auth: 'key', tokenDetail: true, shape: 'usage_summary' } } }, summary);

  const token = async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    const parsed = TokenBody.safeParse(req.body ?? {});
    if (!parsed.success) return fail(reply, 400, `${zodMessage(parsed.error)} (expiry_minutes is 1 to 60)`);
    const { token: t, expiresIn } = createAccessToken(db, req.cas.principal!.keyId, parsed.data.expiry_minutes ?? 60);
    return { status: 'success', access_token: t, token_type: 'api_key', expires_in: expiresIn };
  };
  for (const url of ['/v1/token', '/v1/access-token']) f.post(url, { config: { meta: { feature: 'token', auth: 'key' } } }, token);

  const verify = async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    // Two forms: the hosted API's bodiless call with the token itself in x-api-key, and the API key
    // in x-api-key with the token to check in the body.
    const self = req.cas.selfToken;
    const parsed = VerifyBody.safeParse(req.body ?? {});
    const t = self ?? (parsed.success ? parsed.data.access_token ?? parsed.data.token : undefined);
    if (!t) return fail(reply, 400, 'give the token to check in access_token, or send the access token itself in x-api-key');
    const found = findAccessToken(db, t);
    if (!found || (!self && found.keyId !== req.cas.principal!.keyId) || (self && found.keyId && (!found.key || found.key.revoked_at))) return { status: 'success', valid: false, masked_api_key: null, error: 'unknown token' };
    if (found.expired) return { status: 'success', valid: false, masked_api_key: found.key ? maskKey(found.key.prefix) : 'sandbox', error: 'token expired' };
    return { status: 'success', valid: true, masked_api_key: found.key ? maskKey(found.key.prefix) : 'sandbox', error: null };
  };
  for (const url of ['/v1/token/verify', '/v1/verify-token']) f.post(url, { config: { meta: { feature: 'token', auth: 'key', tokenSelfCheck: true, shape: 'token_verify' } } }, verify);
}

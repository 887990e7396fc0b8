/**
 * The HTTP service of SPEC.md on Fastify: request ids, authentication, rate limits and
 * billing as hooks; one route module per SPEC.md section; no stack trace ever leaves.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { randomBytes } from 'node:crypto';
import { CasError } from '../errors.js';
import { logUsage, PRICES, refund, remaining, reserve } from './billing.js';
import { fail, type App, type Principal, type RouteMeta } from './context.js';
import { findAccessToken, findKey } from './keys.js';
import { accountRoutes } from './routes/account.js';
import { parseRoutes } from './routes/parse.js';
import { gainsRoutes } from './routes/gains.js';
import { retrievalRoutes } from './routes/retrieval.js';
import { verificationRoutes } from './routes/verification.js';
import { inboundRoutes } from './routes/inbound.js';
import { inboxRoutes } from './routes/inbox.js';
import { openapiDocument } from './openapi.js';
import { pathDialect, realText, type Names } from '../schema/names.js';
import { requestFromReal, toReal } from '../schema/dialect.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function newRequestId(): string {
  const b = randomBytes(20);
  return `req_${Array.from(b, (x) => ALNUM[x % ALNUM.length]).join('')}`;
}

/** Sliding one-minute windows per key (per process). */
class RateLimiter {
  private hits = new Map<string, number[]>();
  allow(id: string, perMinute: number): boolean {
    const now = Date.now();
    const list = (this.hits.get(id) ?? []).filter((t) => now - t < 60_000);
    if (list.length >= perMinute) {
      this.hits.set(id, list);
      return false;
    }
    list.push(now);
    this.hits.set(id, list);
    return true;
  }
}

export async function buildApp(app: App): Promise<FastifyInstance> {
  const { db, config } = app;
  const f = Fastify({
    logger: false, bodyLimit: Math.ceil(config.maxUploadBytes * 1.4) + 4096, genReqId: () => newRequestId(), return503OnClosing: true, forceCloseConnections: false,
    // Real-name paths (`/v4/cdsl/parse`, `/v1/kyc/digilocker/...`, names.ts) are served by the neutral
    // routes; the request remembers which dialect it arrived in.
    rewriteUrl: (raw) => {
      const url = raw.url ?? '/';
      const q = url.indexOf('?');
      const p = q < 0 ? url : url.slice(0, q);
      const d = pathDialect(p);
      // On a shared path a client may choose its dialect with `x-cas-names: spec|real` (the cas CLI
      // always asks for spec, so it works against a `--names real` server).
      const asked = raw.headers['x-cas-names'];
      const shared = asked === 'spec' || asked === 'real' ? asked : config.names;
      (raw as { casNames?: Names }).casNames = d.names === 'shared' ? shared : d.names;
      return d.neutral === p ? url : d.neutral + (q < 0 ? '' : url.slice(q));
    },
  });
  await f.register(multipart, { limits: { fileSize: config.maxUploadBytes, files: 1, fields: 10 } });
  // Generated SDKs send `Content-Type: application/json` with no body on every call that takes no
  // parameters: an empty (or all-whitespace) JSON body is an empty object, not a malformed one.
  f.removeContentTypeParser('application/json');
  f.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (!text.trim()) return done(null, {});
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(Object.assign(new SyntaxError('malformed JSON body'), { statusCode: 400 }), undefined);
    }
  });
  const limiter = new RateLimiter();

  f.addHook('onRequest', async (req, reply) => {
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && /^req_[A-Za-z0-9]+$/.test(sent) && sent.length <= 64 ? sent : newRequestId();
    req.cas = { id, start: process.hrtime.bigint(), charged: 0, always: false, names: (req.raw as { casNames?: Names }).casNames ?? config.names };
    reply.header('X-Request-ID', id);
  });

  f.addHook('preHandler', async (req, reply) => {
    const meta = req.routeOptions.config.meta as RouteMeta | undefined;
    if (!meta || meta.auth === 'none') return;
    const raw = req.headers['x-api-key'];
    const secret = typeof raw === 'string' ? raw.trim() : '';
    if (!secret) return fail(reply, 401, 'missing API key: send it in the x-api-key header');
    let principal: Principal;
    if (secret === config.sandboxKey) {
      principal = { sandbox: true, viaToken: false, key: null, keyId: 0 };
    } else if (secret.startsWith('at_') && meta.tokenSelfCheck) {
      // The hosted API's bodiless token check sends the token itself in x-api-key; the handler
      // answers valid/invalid for it (an expired or unknown token is an answer, not a 401).
      req.cas.selfToken = secret;
      return;
    } else if (secret.startsWith('at_')) {
      const t = findAccessToken(db, secret);
      if (meta.tokenDetail) return reply.code(403).send({ detail: 'access tokens cannot read usage logs; call this endpoint with the API key' });
      if (!t || t.expired || (t.keyId && (!t.key || t.key.revoked_at))) return fail(reply, 401, t?.expired ? 'the access token has expired; create a new one with POST /v1/token' : 'invalid access token');
      if (meta.auth !== 'v4') return fail(reply, 403, meta.feature === 'token' ? 'access tokens cannot create other tokens; use the API key' : 'access tokens are accepted on /v4/* endpoints only; use the API key');
      principal = { sandbox: t.keyId === 0, viaToken: true, key: t.key, keyId: t.keyId };
    } else {
      const key = findKey(db, secret);
      if (!key || key.revoked_at) return fail(reply, 403, 'invalid API key');
      principal = { sandbox: false, viaToken: false, key, keyId: key.id };
    }
    req.cas.principal = principal;
    const rate = principal.sandbox ? config.sandboxRate : principal.key?.rate_per_min ?? null;
    if (rate && !limiter.allow(principal.sandbox ? 'sandbox' : String(principal.keyId), rate)) {
      return fail(reply, 403, `quota exceeded: at most ${rate} requests per minute for this key`);
    }
    const price = PRICES[meta.feature];
    if (price && !principal.sandbox && principal.key) {
      if (!reserve(db, principal.key, price.credits)) {
        return fail(reply, 402, `insufficient credits: this request costs ${price.credits}, ${remaining(db, principal.keyId) ?? 0} remain`);
      }
      req.cas.charged = price.credits;
      req.cas.always = price.always;
    }
  });

  // Real values are accepted in requests in either dialect; 2xx bodies answer in the request's dialect.
  f.addHook('preValidation', async (req) => {
    const meta = req.routeOptions.config.meta as RouteMeta | undefined;
    if (meta?.request && req.body !== undefined) req.body = requestFromReal(meta.request, req.body);
  });
  f.addHook('preSerialization', async (req, reply, payload) => {
    if (req.cas?.names !== 'real') return payload;
    const meta = req.routeOptions?.config?.meta as RouteMeta | undefined;
    let out = meta?.shape && reply.statusCode < 300 ? toReal(meta.shape, payload, req.body) : payload;
    // Messages (success and error) name institutions as the real dialect does.
    if (out && typeof out === 'object' && typeof (out as { msg?: unknown }).msg === 'string') out = { ...out, msg: realText((out as { msg: string }).msg) };
    return out;
  });

  f.addHook('onSend', async (req, reply, payload) => {
    const s = req.cas;
    const meta = req.routeOptions?.config?.meta as RouteMeta | undefined;
    if (!s?.principal || !meta) return payload;
    const ok = s.success ?? (reply.statusCode >= 200 && reply.statusCode < 300);
    if (s.charged && !ok && !s.always && s.principal.key) {
      refund(db, s.principal.key, s.charged);
      s.charged = 0;
    }
    // The credit headers belong to billed features; free account calls skip the extra query.
    if (PRICES[meta.feature]) {
      reply.header('X-Credits-Used', String(s.charged));
      const rem = s.principal.sandbox ? null : remaining(db, s.principal.keyId);
      reply.header('X-Credits-Remaining', rem === null ? 'unlimited' : String(rem));
    }
    logUsage(db, { keyId: s.principal.keyId, requestId: s.id, feature: meta.feature, path: req.originalUrl.split('?')[0], status: reply.statusCode, credits: s.charged });
    return payload;
  });

  f.addHook('onResponse', async (req, reply) => {
    const ms = req.cas ? Number(process.hrtime.bigint() - req.cas.start) / 1e6 : 0;
    process.stderr.write(`${JSON.stringify({ t: new Date().toISOString(), id: req.cas?.id, method: req.method, path: req.originalUrl.split('?')[0], status: reply.statusCode, ms: Math.round(ms * 10) / 10 })}\n`);
  });

  f.setNotFoundHandler((req, reply) => fail(reply, 404, `no such endpoint: ${req.method} ${req.originalUrl.split('?')[0]}`));
  f.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof CasError) return fail(reply, err.exitCode === 4 ? 403 : 400, err.message);
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return fail(reply, 400, 'malformed JSON body');
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.code === 'FST_REQ_FILE_TOO_LARGE') return fail(reply, 413, `the upload is larger than the limit of ${config.maxUploadBytes} bytes`);
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return fail(reply, 415, 'send application/json or multipart/form-data');
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return fail(reply, err.statusCode, err.message.split('\n')[0]);
    return fail(reply, 500, 'internal error; retry later');
  });

  f.get('/openapi.json', async () => openapiDocument(config.names));
  f.get('/health', async () => ({ status: 'success' }));
  accountRoutes(f, app);
  parseRoutes(f, app);
  gainsRoutes(f, app);
  retrievalRoutes(f, app);
  verificationRoutes(f, app);
  inboundRoutes(f, app);
  inboxRoutes(f, app);
  app.files.routes(f);
  return f;
}

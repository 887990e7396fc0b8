/**
 * The HTTP service of SPEC.md on Fastify: request ids and the names dialect, one plugin for
 * authentication and billing, one route plugin per SPEC.md section whose routes declare their
 * request and response schemas (zod), one error handler, and no stack trace ever leaves.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { z } from 'zod';
import { CasError } from '../../errors.js';
import { storeUnavailable } from '../store/sql.js';
import { zodMessage } from '../../schema/zod-message.js';
import { ApiError, fail, type App, type RouteMeta } from '../context.js';
import { authBilling } from './auth.js';
import { accountRoutes } from '../account/routes.js';
import { parseRoutes } from '../parse/routes.js';
import { gainsRoutes } from '../gains/routes.js';
import { portfolioRoutes } from '../portfolio/routes.js';
import { retrievalRoutes } from '../retrieval/routes.js';
import { verificationRoutes } from '../verification/routes.js';
import { lockerRoutes } from '../locker/routes.js';
import { inboundRoutes } from '../inbound/routes.js';
import { inboxRoutes } from '../inbox/routes.js';
import { fileRoutes } from '../files/routes.js';
import { metaRoutes } from './meta.js';
import { pathDialect, realText, type Names } from '../../schema/names.js';
import { requestFromReal, toReal } from '../../schema/dialect.js';
import type { RouteDoc } from './openapi-doc.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function newRequestId(): string {
  const b = randomBytes(20);
  return `req_${Array.from(b, (x) => ALNUM[x % ALNUM.length]).join('')}`;
}

/** Multipart's limits (app.ts registers them), as the 400 names them. */
const MULTIPART = { files: 1, fields: 10, parts: 12, headerPairs: 20 };
const MULTIPART_LIMITS: Record<string, string> = {
  FST_PARTS_LIMIT: `more than ${MULTIPART.parts} parts`,
  FST_FILES_LIMIT: `more than ${MULTIPART.files} file`,
  FST_FIELDS_LIMIT: `more than ${MULTIPART.fields} fields`,
};

/**
 * A multipart body's boundary must be 1 to 70 characters of RFC 2046's alphabet (longer ones made the
 * multipart parser fail with a 500): refused with 400 before the body is read.
 */
function multipartBoundary(contentType: string | undefined): void {
  if (!contentType || !/^\s*multipart\//i.test(contentType)) return;
  const m = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const b = m ? (m[1] ?? m[2]) : '';
  if (!b) throw new ApiError(400, 'malformed multipart body: the Content-Type has no boundary');
  if (b.length > 70 || !/^[0-9A-Za-z'()+_,\-./:=? ]*[0-9A-Za-z'()+_,\-./:=?]$/.test(b))
    throw new ApiError(400, 'malformed multipart body: the boundary must be 1 to 70 characters (RFC 2046)');
}

/** The route plugins, one per SPEC.md section, in registration order. */
export const SECTIONS = [
  accountRoutes,
  parseRoutes,
  gainsRoutes,
  portfolioRoutes,
  retrievalRoutes,
  verificationRoutes,
  lockerRoutes,
  inboundRoutes,
  inboxRoutes,
  fileRoutes,
  metaRoutes,
];

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered (HEAD twins left out), with its schemas: the OpenAPI document's source. */
    casRoutes: RouteDoc[];
  }
}

/** Headers every answer carries: statements, tokens and secrets are never sniffed, never cached. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;

/** The largest request head Node's parser accepts (its default): larger is answered 431. */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * An answer written straight to the socket, for errors Node's HTTP parser raises before any request
 * exists (Fastify never sees them): SPEC's error shape and the security headers all the same.
 */
export function rawAnswer(status: number, msg: string): string {
  const body = JSON.stringify({ status: 'failed', msg });
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    `X-Request-ID: ${newRequestId()}`,
    ...Object.entries(SECURITY_HEADERS).map(([k, v]) => `${k}: ${v}`),
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** Node's `clientError`: a request its HTTP parser refused (or one that timed out) answered in SPEC's shape, then closed. */
function clientError(err: NodeJS.ErrnoException & { reason?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let msg = 'malformed HTTP request';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') [status, msg] = [408, 'the request was not received in time'];
  else if (err.code === 'HPE_HEADER_OVERFLOW')
    [status, msg] = [431, `the request headers are larger than the limit of ${MAX_HEADER_BYTES} bytes`];
  else if (typeof err.reason === 'string' && /^[\w .,'-]{1,80}$/.test(err.reason)) msg = `malformed HTTP request: ${err.reason}`;
  // A response already begun on this connection cannot be followed by another.
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !pending?.headersSent) socket.end(rawAnswer(status, msg));
  socket.destroy();
}

/** The body's first seconds, in which its rate is not yet judged (a client's TLS, proxies, a first buffer). */
const RATE_GRACE_MS = 5000;

/**
 * The body deadline: a request whose body has not all arrived within `bodyTimeoutMs`, or arrives
 * slower than `bodyMinRate` bytes per second on average after its first seconds, is answered 408
 * in SPEC's shape and its connection closed (which frees its upload slot and refunds any
 * reservation). Bytes are counted on the socket, so watching takes nothing from the body's readers.
 */
function watchBody(req: FastifyRequest, reply: FastifyReply, timeoutMs: number, minRate: number): void {
  const raw = req.raw;
  const socket = raw.socket;
  const sized = Number(raw.headers['content-length'] ?? 0) > 0 || raw.headers['transfer-encoding'] !== undefined;
  if (raw.complete || !sized || !socket) return;
  const t0 = Date.now();
  const start = socket.bytesRead;
  const timer = setInterval(
    () => {
      if (raw.complete || socket.destroyed) return clearInterval(timer);
      const ms = Date.now() - t0;
      const slow = minRate > 0 && ms >= RATE_GRACE_MS && socket.bytesRead - start < (minRate * ms) / 1000;
      if (ms < timeoutMs && !slow) return;
      clearInterval(timer);
      // An answer already given (a refusal sent before the body was read): only the connection goes.
      if (reply.sent || reply.raw.headersSent) return void socket.destroy();
      // `Connection: close` ends the socket once the answer is written (the client reads it first).
      reply.raw.once('finish', () => setTimeout(() => socket.destroy(), 2000).unref());
      fail(
        reply.header('Connection', 'close'),
        408,
        ms >= timeoutMs
          ? `the request body did not arrive within ${timeoutMs / 1000} s`
          : `the request body is arriving slower than ${minRate} bytes per second`,
      );
    },
    Math.min(1000, timeoutMs / 4),
  );
  timer.unref();
}

export async function buildApp(app: App): Promise<FastifyInstance> {
  const { config } = app;
  const f = Fastify({
    logger: false,
    bodyLimit: Math.ceil(config.maxUploadBytes * 1.4) + 4096,
    genReqId: () => newRequestId(),
    // A stopping server's own 503 (onRequest below) is in SPEC's shape; Fastify's is not.
    return503OnClosing: false,
    forceCloseConnections: false,
    clientErrorHandler: clientError,
    // Node's own whole-request limit, behind the body deadline (watchBody): a body still arriving
    // after an answer was already given is cut off here (answered by clientError when it can be).
    requestTimeout: config.bodyTimeoutMs + 10_000,
    // A URL Fastify cannot decode (`/%zz`) or a path parameter past its length: the client's, in SPEC's shape.
    frameworkErrors: (err, _req, reply) => {
      reply.headers({ ...SECURITY_HEADERS, 'X-Request-ID': newRequestId() });
      return fail(reply, 400, `malformed request: ${err.message.split('\n')[0]}`);
    },
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
  // Requests are validated by the zod schemas the routes declare; a failure is one message naming
  // the member (`zodMessage`), answered by the error handler below in SPEC's error shape.
  f.setValidatorCompiler(({ schema, httpPart }) => (data) => {
    const r = (schema as z.ZodType).safeParse(data);
    return r.success
      ? { value: r.data }
      : { error: new ApiError(400, zodMessage(r.error, httpPart === 'querystring' ? 'query' : (httpPart ?? 'body'))) };
  });
  // Response schemas document the answer (OpenAPI); the body is written as the handler built it,
  // after the real-name dialect (preSerialization) and with the documented extensions it carries.
  f.setSerializerCompiler(() => (data) => JSON.stringify(data));
  f.decorate('casRoutes', [] as RouteDoc[]);
  f.addHook('onRoute', (r) => {
    if (r.method === 'HEAD' || (Array.isArray(r.method) && r.method.includes('HEAD'))) return;
    f.casRoutes.push({
      method: String(r.method).toLowerCase() as RouteDoc['method'],
      url: r.url,
      schema: r.schema as RouteDoc['schema'],
      meta: r.config?.meta as RouteMeta | undefined,
      doc: r.config?.doc,
    });
  });

  await f.register(multipart, { limits: { fileSize: config.maxUploadBytes, ...MULTIPART } });
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

  f.addHook('onRequest', async (req, reply) => {
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && /^req_[A-Za-z0-9]+$/.test(sent) && sent.length <= 64 ? sent : newRequestId();
    req.cas = {
      id,
      start: process.hrtime.bigint(),
      charged: 0,
      always: false,
      names: (req.raw as { casNames?: Names }).casNames ?? config.names,
    };
    reply.header('X-Request-ID', id);
    // Answers carry statements, tokens and secrets: never sniffed, never cached.
    reply.headers(SECURITY_HEADERS);
    watchBody(req, reply, config.bodyTimeoutMs, config.bodyMinRate);
    // A stopping server takes no new request (one arriving on a kept-alive connection meanwhile).
    if (app.closing) return fail(reply.header('Retry-After', '2'), 503, 'the server is stopping; retry shortly');
  });

  await f.register(authBilling(app));

  // A call without a body is an empty one; real values are accepted in requests in either dialect.
  f.addHook('preValidation', async (req) => {
    const meta = req.routeOptions.config.meta;
    multipartBoundary(req.headers['content-type']);
    if (req.body === undefined && req.routeOptions.schema?.body) req.body = {};
    if (meta?.request && req.body !== undefined) req.body = requestFromReal(meta.request, req.body);
  });
  // 2xx bodies answer in the request's dialect.
  f.addHook('preSerialization', async (req, reply, payload) => {
    if (req.cas?.names !== 'real') return payload;
    const meta = req.routeOptions?.config?.meta;
    let out = meta?.shape && reply.statusCode < 300 ? toReal(meta.shape, payload, req.body) : payload;
    // Messages (success and error) name institutions as the real dialect does.
    if (out && typeof out === 'object' && typeof (out as { msg?: unknown }).msg === 'string')
      out = { ...out, msg: realText((out as { msg: string }).msg) };
    return out;
  });

  // While stopping, every answer closes its connection, so an idle keep-alive socket (a load
  // balancer's, Node's agent) does not keep the process waiting for the client to let go.
  f.addHook('onSend', async (_req, reply, payload) => {
    if (app.closing) reply.header('connection', 'close');
    // Every answer, whatever produced it (the framework's own included), carries the security headers.
    if (!reply.hasHeader('X-Content-Type-Options')) reply.headers(SECURITY_HEADERS);
    return payload;
  });

  f.addHook('onResponse', async (req, reply) => {
    const ms = req.cas ? Number(process.hrtime.bigint() - req.cas.start) / 1e6 : 0;
    process.stderr.write(
      `${JSON.stringify({ t: new Date().toISOString(), id: req.cas?.id, method: req.method, path: req.originalUrl.split('?')[0], status: reply.statusCode, ms: Math.round(ms * 10) / 10 })}\n`,
    );
  });

  f.setNotFoundHandler((req, reply) => fail(reply, 404, `no such endpoint: ${req.method} ${req.originalUrl.split('?')[0]}`));
  f.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ApiError) return err.body ? reply.code(err.statusCode).send(err.body) : fail(reply, err.statusCode, err.message);
    if (err instanceof CasError) return fail(reply, err.exitCode === 4 ? 403 : 400, err.message);
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      return fail(reply, 400, 'malformed JSON body');
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.code === 'FST_REQ_FILE_TOO_LARGE')
      return fail(reply, 413, `the upload is larger than the limit of ${config.maxUploadBytes} bytes`);
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return fail(reply, 415, 'send application/json or multipart/form-data');
    // Multipart limits (parts, files, fields, part headers) are the client's: 400 naming the limit.
    if (err.code === 'FST_PARTS_LIMIT' || err.code === 'FST_FILES_LIMIT' || err.code === 'FST_FIELDS_LIMIT')
      return fail(reply, 400, `malformed multipart body: ${MULTIPART_LIMITS[err.code]}`);
    // A multipart body that cannot be read (no boundary, cut short, malformed parts) is the client's.
    if (
      err.code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' ||
      err.code === 'FST_MULTIPART_INVALID_CONTENT_TYPE' ||
      /^Multipart: |Unexpected end of (form|multipart)|Malformed part header|Boundary not found/i.test(err.message)
    )
      return fail(reply, 400, 'malformed multipart body');
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return fail(reply, err.statusCode, err.message.split('\n')[0]);
    if (storeUnavailable(err)) return fail(reply.header('Retry-After', '2'), 503, 'the service store cannot be reached; retry shortly');
    return fail(reply, 500, 'internal error; retry later');
  });

  for (const section of SECTIONS) await f.register(section, { app });
  return f;
}

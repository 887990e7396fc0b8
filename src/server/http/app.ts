/**
 * The HTTP service of SPEC.md on Fastify: request ids and the names dialect, one plugin for
 * authentication and billing, one route plugin per SPEC.md section whose routes declare their
 * request and response schemas (zod), one error handler, and no stack trace ever leaves.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { accessLine, loggerOptions } from './log.js';
import multipart from '@fastify/multipart';
import type { z } from 'zod';
import { zodMessage } from '../../schema/zod-message.js';
import { ApiError, fail, type App, type RouteDecl } from '../context.js';
import { authBilling } from './auth.js';
import { pathDialect, realText, type Names } from '../../schema/names.js';
import { requestFromReal, toReal } from '../../schema/dialect.js';
import { ROUTES, SECTIONS } from './sections.js';
import { newRequestId, SECURITY_HEADERS } from './headers.js';
import { clientError, MULTIPART, multipartBoundary, watchBody } from './limits.js';
import { errorHandler, notFound } from './errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route declared (HEAD twins left out), with its schemas: the OpenAPI document's source. */
    casRoutes: readonly RouteDecl[];
  }
}

export async function buildApp(app: App): Promise<FastifyInstance> {
  const { config } = app;
  const f = Fastify({
    // pino, printing the server's own lines as before (http/log.ts); no per-request lines of Fastify's.
    logger: loggerOptions(),
    logController: new LogController({ disableRequestLogging: true }),
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
  // The first hooks of every answer: from here on the request is being answered, whatever sent it
  // (the body deadline must not begin a second answer while this one's hooks still run).
  const answering = (req: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (err: null, p: unknown) => void): void => {
    if (req.cas) req.cas.answering = true;
    done(null, payload);
  };
  f.addHook('preSerialization', answering);
  f.addHook('onSend', answering);
  // Response schemas document the answer (OpenAPI); the body is written as the handler built it,
  // after the real-name dialect (preSerialization) and with the documented extensions it carries.
  f.setSerializerCompiler(() => (data) => JSON.stringify(data));
  f.decorate('casRoutes', ROUTES);
  // What is served is what is declared (and documented): a route registered without a declaration is a bug.
  const declared = new Set(ROUTES.map((r) => `${r.method.toUpperCase()} ${r.url}`));
  f.addHook('onRoute', (r) => {
    for (const m of [r.method].flat())
      if (m !== 'HEAD' && !declared.has(`${m} ${r.url}`))
        throw new Error(`${m} ${r.url} is registered but not declared in its section's routes (http/sections.ts)`);
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

  f.addHook('onResponse', async (req, reply) => accessLine(f.log, req, reply.statusCode));

  f.setNotFoundHandler(notFound);
  f.setErrorHandler(errorHandler(config));

  for (const section of SECTIONS) await f.register(section.plugin, { app });
  return f;
}

/**
 * The HTTP service of SPEC.md on Fastify: request ids and the names dialect, one plugin for
 * authentication and billing, one route plugin per SPEC.md section whose routes declare their
 * request and response schemas (zod), one error handler, and no stack trace ever leaves.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { loggerOptions } from './log.js';
import multipart from '@fastify/multipart';
import type { z } from 'zod';
import { zodMessage } from '../../schema/zod-message.js';
import { ApiError, fail, type App, type RouteDecl } from '../context.js';
import { authBilling } from './auth.js';
import { ROUTES, SECTIONS } from './sections.js';
import { newRequestId, SECURITY_HEADERS } from './headers.js';
import { clientError, MULTIPART } from './limits.js';
import { errors } from './errors.js';
import { accessLog, answerHeaders, dialect, requestIds, rewriteUrl } from './plugins.js';

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
    rewriteUrl: rewriteUrl(config.names),
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

  // The app's own hooks, as named plugins, in this order (http/plugins.ts, auth.ts, errors.ts).
  await f.register(requestIds, { app });
  await f.register(authBilling(app));
  await f.register(dialect);
  await f.register(answerHeaders, { app });
  await f.register(accessLog);
  await f.register(errors, { config });

  for (const section of SECTIONS) await f.register(section.plugin, { app });
  return f;
}

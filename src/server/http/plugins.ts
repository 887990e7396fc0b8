/**
 * The app's own hooks as named plugins (fastify-plugin: not encapsulated, so they apply to the
 * sections registered after them), in the order http/app.ts registers them: request ids, then
 * (after auth and billing) the names dialect, the answer's headers and the access log.
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fail, type App } from '../context.js';
import { pathDialect, realText, type Names } from '../../schema/names.js';
import { requestFromReal, toReal } from '../../schema/dialect.js';
import { newRequestId, SECURITY_HEADERS } from './headers.js';
import { multipartBoundary, watchBody } from './limits.js';
import { accessLine } from './log.js';

const FASTIFY = '5.x';

/**
 * Each request's state (`req.cas`: id, start, dialect), its `X-Request-ID` and security headers, the
 * body deadline, and no new request while stopping. Its first hooks mark every answer as begun, so
 * the body deadline never begins a second one while this one's hooks still run.
 */
export const requestIds = fp<{ app: App }>(
  async (f, { app }) => {
    const { config } = app;
    const answering = (req: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (err: null, p: unknown) => void): void => {
      if (req.cas) req.cas.answering = true;
      done(null, payload);
    };
    f.addHook('preSerialization', answering);
    f.addHook('onSend', answering);
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
  },
  { name: 'cas-request-ids', fastify: FASTIFY },
);

/** The names dialect: requests accepted in either, 2xx bodies and messages answered in the request's. */
export const dialect = fp(
  async (f) => {
    // A call without a body is an empty one; real values are accepted in requests in either dialect.
    f.addHook('preValidation', async (req) => {
      const meta = req.routeOptions.config.meta;
      multipartBoundary(req.headers['content-type']);
      if (req.body === undefined && req.routeOptions.schema?.body) req.body = {};
      if (meta?.request && req.body !== undefined) req.body = requestFromReal(meta.request, req.body);
    });
    f.addHook('preSerialization', async (req, reply, payload) => {
      if (req.cas?.names !== 'real') return payload;
      const meta = req.routeOptions?.config?.meta;
      let out = meta?.shape && reply.statusCode < 300 ? toReal(meta.shape, payload, req.body) : payload;
      // Messages (success and error) name institutions as the real dialect does.
      if (out && typeof out === 'object' && typeof (out as { msg?: unknown }).msg === 'string')
        out = { ...out, msg: realText((out as { msg: string }).msg) };
      return out;
    });
  },
  { name: 'cas-dialect', fastify: FASTIFY },
);

/** Real-name paths (`/v4/cdsl/parse`, ...) to the neutral routes, remembering the request's dialect (Fastify's `rewriteUrl`). */
export function rewriteUrl(names: Names) {
  return (raw: { url?: string; headers: Record<string, string | string[] | undefined> }): string => {
    const url = raw.url ?? '/';
    const q = url.indexOf('?');
    const p = q < 0 ? url : url.slice(0, q);
    const d = pathDialect(p);
    // On a shared path a client may choose its dialect with `x-cas-names: spec|real` (the cas CLI
    // always asks for spec, so it works against a `--names real` server).
    const asked = raw.headers['x-cas-names'];
    const shared = asked === 'spec' || asked === 'real' ? asked : names;
    (raw as { casNames?: Names }).casNames = d.names === 'shared' ? shared : d.names;
    return d.neutral === p ? url : d.neutral + (q < 0 ? '' : url.slice(q));
  };
}

/** Every answer's headers, whatever produced it (the framework's own included); while stopping, `Connection: close`. */
export const answerHeaders = fp<{ app: App }>(
  async (f, { app }) => {
    // While stopping, every answer closes its connection, so an idle keep-alive socket (a load
    // balancer's, Node's agent) does not keep the process waiting for the client to let go.
    f.addHook('onSend', async (_req, reply, payload) => {
      if (app.closing) reply.header('connection', 'close');
      if (!reply.hasHeader('X-Content-Type-Options')) reply.headers(SECURITY_HEADERS);
      return payload;
    });
  },
  { name: 'cas-answer-headers', fastify: FASTIFY },
);

/** One access line per answer (http/log.ts). */
export const accessLog = fp(
  async (f) => {
    f.addHook('onResponse', async (req, reply) => accessLine(f.log, req, reply.statusCode));
  },
  { name: 'cas-access-log', fastify: FASTIFY },
);

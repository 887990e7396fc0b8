/**
 * The one error handler: whatever a hook, a handler or Fastify throws is answered in SPEC's error
 * shape `{status: "failed", msg}` with the status it means (the client's 4xx named, a store that
 * cannot be reached 503), and no stack trace ever leaves.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { CasError } from '../../errors.js';
import { storeUnavailable } from '../store/sql.js';
import { ApiError, fail, type ServerConfig } from '../context.js';
import { MULTIPART_LIMITS } from './limits.js';

/** An unknown path or method: 404 naming it. */
export const notFound = (req: FastifyRequest, reply: FastifyReply): FastifyReply =>
  fail(reply, 404, `no such endpoint: ${req.method} ${req.originalUrl.split('?')[0]}`);

/** The error handler of an app serving `config`. */
export function errorHandler(config: ServerConfig) {
  return (err: Error & { statusCode?: number; code?: string }, _req: FastifyRequest, reply: FastifyReply): FastifyReply => {
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
  };
}

/** The error handler and the 404 as a named plugin (not encapsulated: they serve the whole app). */
export const errors = fp<{ config: ServerConfig }>(
  async (f, { config }) => {
    f.setNotFoundHandler(notFound);
    f.setErrorHandler(errorHandler(config));
  },
  { name: 'cas-errors', fastify: '5.x' },
);

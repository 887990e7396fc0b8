/**
 * The request limits enforced before or beside Fastify: multipart's limits and boundary, Node's
 * HTTP parser refusals (answered in SPEC's shape straight on the socket), and the body deadline.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, fail } from '../context.js';
import { newRequestId, SECURITY_HEADERS } from './headers.js';

/** Multipart's limits (app.ts registers them), as the 400 names them. */
export const MULTIPART = { files: 1, fields: 10, parts: 12, headerPairs: 20 };
export const MULTIPART_LIMITS: Record<string, string> = {
  FST_PARTS_LIMIT: `more than ${MULTIPART.parts} parts`,
  FST_FILES_LIMIT: `more than ${MULTIPART.files} file`,
  FST_FIELDS_LIMIT: `more than ${MULTIPART.fields} fields`,
};

/**
 * A multipart body's boundary must be 1 to 70 characters of RFC 2046's alphabet (longer ones made the
 * multipart parser fail with a 500): refused with 400 before the body is read.
 */
export function multipartBoundary(contentType: string | undefined): void {
  if (!contentType || !/^\s*multipart\//i.test(contentType)) return;
  const m = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const b = m ? (m[1] ?? m[2]) : '';
  if (!b) throw new ApiError(400, 'malformed multipart body: the Content-Type has no boundary');
  if (b.length > 70 || !/^[0-9A-Za-z'()+_,\-./:=? ]*[0-9A-Za-z'()+_,\-./:=?]$/.test(b))
    throw new ApiError(400, 'malformed multipart body: the boundary must be 1 to 70 characters (RFC 2046)');
}

/** The largest request head Node's parser accepts (its default): larger is answered 431. */
export const MAX_HEADER_BYTES = 16 * 1024;

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
export function clientError(err: NodeJS.ErrnoException & { reason?: string }, socket: Duplex): void {
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
 * The rate is judged from the moment the server starts reading the body (the stream's `resume`):
 * while the server itself is not reading (its checks still waiting on a busy store, a multipart
 * body that the handler reads after the credit is reserved), a client held back by TCP is not slow.
 */
export function watchBody(req: FastifyRequest, reply: FastifyReply, timeoutMs: number, minRate: number): void {
  const raw = req.raw;
  const socket = raw.socket;
  const sized = Number(raw.headers['content-length'] ?? 0) > 0 || raw.headers['transfer-encoding'] !== undefined;
  if (raw.complete || !sized || !socket) return;
  const t0 = Date.now();
  let reading: { t0: number; start: number } | null = null;
  raw.once('resume', () => (reading = { t0: Date.now(), start: socket.bytesRead }));
  const timer = setInterval(
    () => {
      if (raw.complete || socket.destroyed) return clearInterval(timer);
      const now = Date.now();
      const ms = now - t0;
      const r = reading as { t0: number; start: number } | null;
      const slow = minRate > 0 && r !== null && now - r.t0 >= RATE_GRACE_MS && socket.bytesRead - r.start < (minRate * (now - r.t0)) / 1000;
      if (ms < timeoutMs && !slow) return;
      clearInterval(timer);
      // An answer already given (a refusal sent before the body was read): only the connection goes.
      if (reply.sent || reply.raw.headersSent) return void socket.destroy();
      // An answer on its way (its hooks still writing the usage log on a busy store) is the request's
      // answer: its status stays its own, and the connection goes once it is written.
      if (req.cas?.answering) return void reply.raw.once('finish', () => socket.destroy());
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

/**
 * The server's log: Fastify's own logger (pino), printing the lines `cas serve` has always printed on
 * stderr: one JSON access line per answer (`{t, id, method, path, status, ms}`) and plain-text
 * `cas serve: ...` lines. pino writes every record to `stream` below, which prints the records the
 * server logs itself (marked) in that shape and leaves out the framework's own (its listening line,
 * its warnings), as the server did before it used pino. Keys, tokens, passwords and PANs in a
 * logged object are redacted.
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

const MARK = 'cas';

/** Every path at which a logged object may carry a secret or a PAN (pino redaction). */
const REDACT = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.api_key',
  '*.key',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.password',
  '*.otp',
  '*.pan',
];

/** Prints a pino record as the server's line (a marked message as its text, a marked object as JSON). */
function print(line: string, write: (s: string) => void): void {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  if (r[MARK] !== 1) return;
  delete r[MARK];
  delete r.level;
  delete r.reqId;
  write(typeof r.msg === 'string' ? `${r.msg}\n` : `${JSON.stringify(r)}\n`);
}

/** Fastify's `logger` option. */
export function loggerOptions(write: (s: string) => void = (s) => process.stderr.write(s)) {
  return {
    level: 'info',
    base: null,
    timestamp: false,
    redact: { paths: REDACT, censor: '[redacted]' },
    stream: { write: (line: string) => print(line, write) },
  };
}

/** A `cas serve: ...` line (or another of the server's plain lines), through the request's logger. */
export function serverLine(log: FastifyBaseLogger, text: string): void {
  log.warn({ [MARK]: 1 }, text);
}

/** The access line of an answer: time, request id, method, path, status and milliseconds. */
export function accessLine(log: FastifyBaseLogger, req: FastifyRequest, status: number): void {
  const ms = req.cas ? Number(process.hrtime.bigint() - req.cas.start) / 1e6 : 0;
  log.info({
    [MARK]: 1,
    t: new Date().toISOString(),
    id: req.cas?.id,
    method: req.method,
    path: req.originalUrl.split('?')[0],
    status,
    ms: Math.round(ms * 10) / 10,
  });
}

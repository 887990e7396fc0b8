/**
 * The server's log (src/server/http/log.ts): Fastify's own logger (pino) printing the lines `cas serve`
 * prints: the access line as JSON in its fixed key order, `cas serve:` lines as plain text, nothing
 * of the framework's own records, and secrets or PANs in a logged object redacted.
 */
import Fastify, { LogController } from 'fastify';
import { describe, expect, it } from 'vitest';
import { accessLine, loggerOptions, serverLine } from '../../src/server/http/log.js';

describe('the server log through pino', () => {
  it('prints the access line and the plain lines as before, leaves the framework out, redacts secrets', async () => {
    const lines: string[] = [];
    const f = Fastify({ logger: loggerOptions((s) => lines.push(s)), logController: new LogController({ disableRequestLogging: true }) });
    f.get('/x', async (req) => {
      req.cas = { id: 'req_abc', start: process.hrtime.bigint(), charged: 0, always: false, names: 'spec' };
      serverLine(req.log, 'cas serve: a plain line');
      return { ok: true };
    });
    f.addHook('onResponse', async (req, reply) => accessLine(f.log, req, reply.statusCode));
    await f.listen({ host: '127.0.0.1', port: 0 });
    const port = (f.server.address() as { port: number }).port;
    expect((await fetch(`http://127.0.0.1:${port}/x?q=1`)).status).toBe(200);
    // A marked object carrying secrets (as a future log call might): redacted, whatever the nesting.
    f.log.info({ cas: 1, body: { pan: 'ABCDE1234F', password: 'pw', api_key: 'cas_live_x', token: 'at_y' } });
    f.log.warn('not one of the server lines'); // the framework's kind of record: left out
    await f.close();

    expect(lines[0]).toBe('cas serve: a plain line\n');
    const access = JSON.parse(lines[1]);
    expect(Object.keys(access)).toEqual(['t', 'id', 'method', 'path', 'status', 'ms']);
    expect(access).toMatchObject({ id: 'req_abc', method: 'GET', path: '/x', status: 200 });
    expect(lines[2]).toBe('{"body":{"pan":"[redacted]","password":"[redacted]","api_key":"[redacted]","token":"[redacted]"}}\n');
    // No "Server listening at", no Fastify warnings, nothing else.
    expect(lines).toHaveLength(3);
  });
});

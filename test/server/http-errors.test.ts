/**
 * Every answer `cas serve` sends is in SPEC's error shape with the security headers (issue 32.2,
 * 32.3), including those raised by Node's HTTP parser before any request exists (431 for large
 * headers; 400 for a duplicate Content-Length, Content-Length with Transfer-Encoding, a garbage
 * request line) and by the framework (a URL it cannot decode, 404, 413, 415); multipart bodies with
 * an over-long boundary (253 characters or more was a 500) or past the parts, files or fields limits
 * are the client's 400. Requests are written on raw sockets (node:net) so nothing is tidied up first.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, serve, type Served } from '../helpers/server.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Write `request` as is and read the answer until the server closes (or 5 s after the last byte). */
function raw(url: string, request: string | Buffer): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), '127.0.0.1');
    let buf = Buffer.alloc(0);
    let idle: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(idle);
      s.destroy();
      const text = buf.toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no answer: ${JSON.stringify(text)}`));
      const [line, ...rest] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const h of rest) headers[h.slice(0, h.indexOf(':')).toLowerCase()] = h.slice(h.indexOf(':') + 1).trim();
      let body: any = text.slice(split + 4);
      try {
        body = JSON.parse(body);
      } catch {
        /* not JSON */
      }
      resolve({ status: Number(line.split(' ')[1]), headers, body });
    };
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      clearTimeout(idle);
      idle = setTimeout(finish, 5000);
    });
    s.on('close', finish);
    s.on('error', () => undefined);
    s.write(request);
  });
}

function specShape(a: RawAnswer, status: number, msg: RegExp): void {
  expect(a.status, JSON.stringify(a)).toBe(status);
  expect(a.body).toEqual({ status: 'failed', msg: expect.stringMatching(msg) });
  expect(a.headers['x-content-type-options']).toBe('nosniff');
  expect(a.headers['cache-control']).toBe('no-store');
  expect(a.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9]+$/);
  expect(a.headers['content-type']).toMatch(/^application\/json/);
}

let s: Served;
let key: string;
beforeAll(async () => {
  s = await serve(undefined, [], { CAS_MAX_UPLOAD_BYTES: '4096' });
  key = await newKey(s.dataDir, ['--credits', '10']);
});
afterAll(async () => {
  await s?.stop();
});

describe("errors raised by Node's HTTP parser and the framework (32.3)", () => {
  it('431 for headers past the limit', async () => {
    specShape(
      await raw(s.url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      431,
      /headers are larger than the limit/,
    );
  });
  it('400 for a duplicate Content-Length', async () => {
    specShape(
      await raw(s.url, 'POST /v1/credits HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'),
      400,
      /^malformed HTTP request: .*Content-Length/,
    );
  });
  it('400 for Content-Length with Transfer-Encoding', async () => {
    specShape(
      await raw(s.url, 'POST /v1/credits HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
      400,
      /^malformed HTTP request: .*Transfer-Encoding/,
    );
  });
  it('400 for a garbage request line', async () => {
    specShape(await raw(s.url, 'HELLO THERE\r\n\r\n'), 400, /^malformed HTTP request/);
  });
  it('400 for a URL the framework cannot decode', async () => {
    specShape(await raw(s.url, 'GET /%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 400, /^malformed request: .*not a valid url/);
  });
  it('404 for an unknown path or method', async () => {
    specShape(await raw(s.url, 'GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404, /^no such endpoint: GET \/nowhere/);
    specShape(await raw(s.url, 'DELETE /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404, /^no such endpoint: DELETE/);
  });
  it('413 for a body past the limit and 415 for a type the API does not take', async () => {
    const big = JSON.stringify({ pdf_file: 'A'.repeat(20_000) });
    specShape(
      await raw(
        s.url,
        `POST /v4/smart/parse HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\nConnection: close\r\n\r\n${big}`,
      ),
      413,
      /larger than the limit of 4096 bytes/,
    );
    specShape(
      await raw(
        s.url,
        `POST /v4/smart/parse HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/xml\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab`,
      ),
      415,
      /application\/json or multipart/,
    );
  });
});

/** A multipart request with the PDF part and `fields` extra fields, as written by hand. */
function multipart(path: string, boundary: string, opts: { fields?: number; files?: number; partHeader?: string } = {}): string {
  let body = '';
  for (let i = 0; i < (opts.fields ?? 0); i++) body += `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`;
  for (let i = 0; i < (opts.files ?? 1); i++)
    body += `--${boundary}\r\nContent-Disposition: form-data; name="pdf_file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n${opts.partHeader ?? ''}\r\n%PDF-1.4 not really\r\n`;
  body += `--${boundary}--\r\n`;
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

describe('multipart limits (32.2)', () => {
  const PATHS = ['/v4/smart/parse', '/v4/contract_note/parse', '/v4/smart/gains', '/v4/depository_a/parse'];
  it('a boundary of 253 characters (and of 71) is a 400 naming RFC 2046 on every upload endpoint', async () => {
    for (const p of PATHS)
      for (const n of [253, 1000, 71]) {
        const a = await raw(s.url, multipart(p, 'b'.repeat(n)));
        expect(a.status, `${p} boundary ${n}`).toBe(400);
        specShape(a, 400, /boundary must be 1 to 70 characters \(RFC 2046\)/);
      }
  });
  it('a boundary of 70 characters is read (the PDF is then judged)', async () => {
    const a = await raw(s.url, multipart('/v4/smart/parse', 'b'.repeat(70)));
    expect(a.status).toBe(400);
    expect(a.body.msg).not.toMatch(/boundary|multipart/);
  });
  it('past the files, fields or parts limits, or a huge part header: 400, never 500', async () => {
    specShape(await raw(s.url, multipart('/v4/smart/parse', 'xyz', { files: 2 })), 400, /malformed multipart body: more than 1 file/);
    specShape(await raw(s.url, multipart('/v4/smart/parse', 'xyz', { fields: 11 })), 400, /malformed multipart body: more than 10 fields/);
    const hugeHeader = await raw(s.url, multipart('/v4/smart/parse', 'xyz', { partHeader: `X-Pad: ${'p'.repeat(90_000)}\r\n` }));
    expect(hugeHeader.status).toBeLessThan(500);
    expect([400, 413]).toContain(hugeHeader.status);
    expect(hugeHeader.body.status).toBe('failed');
    const manyHeaders = await raw(
      s.url,
      multipart('/v4/smart/parse', 'xyz', { partHeader: Array.from({ length: 40 }, (_, i) => `X-H${i}: v\r\n`).join('') }),
    );
    expect(manyHeaders.status).toBeLessThan(500);
    expect(manyHeaders.body.status).toBe('failed');
    expect(s.log()).not.toMatch(/"status":500/);
  });
});

/**
 * The OpenAPI document is generated from the routes the server registers: it lists every one of
 * them (compared with the route table of an app built by `buildApp` on a real database, and with
 * what a real `cas serve` answers at GET /openapi.json), each with its request schemas (where it
 * takes a request) and response schemas; and every endpoint SPEC.md names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/server/http/app.js';
import { defaultConfig } from '../../src/server/index.js';
import { openStore } from '../../src/server/db.js';
import { FileStore } from '../../src/server/store/files.js';
import { openapiDocument } from '../../src/server/openapi.js';
import { pathDialect } from '../../src/schema/names.js';
import { tmpDir } from '../helpers/cas.js';
import { serve, type Served } from '../helpers/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SPEC = path.resolve(ROOT, '../shared/SPEC.md');

type Op = {
  operationId: string;
  security: unknown[];
  parameters?: { name: string; in: string; schema: object }[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
};
type Doc = { openapi: string; paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, unknown> } };

/** `METHOD /path` of every route in Fastify's route tree (HEAD twins of GET routes left out). */
function routeTable(tree: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    stack.push(m[2]);
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD')) out.push(`${method} ${stack.join('')}`);
  }
  return out.sort();
}

/** The document's operations on SPEC.md's (neutral) paths, in Fastify's form (`:param`). */
const neutralOps = (doc: Doc): string[] =>
  Object.entries(doc.paths)
    .filter(([p]) => pathDialect(p).names !== 'real')
    .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`))
    .sort();

let registered: string[];
let served: Served;
let servedReal: Served;
let doc: Doc;

beforeAll(async () => {
  const dataDir = tmpDir('cas-openapi-');
  const db = await openStore(path.join(dataDir, 'cas.db'));
  // A real app on a real store; no request is served, so no parse pool is started.
  const app = await buildApp({
    db,
    instanceId: 'openapi-test',
    pool: null as never,
    files: await FileStore.open(db, path.join(dataDir, 'files')),
    config: defaultConfig({ dataDir }),
    providers: { fetch: null, mailback: null },
  });
  await app.ready();
  registered = routeTable(app.printRoutes({ commonPrefix: false }));
  await app.close();
  await db.close();
  [served, servedReal] = await Promise.all([serve(), serve(undefined, ['--names', 'real'])]);
  doc = (await (await fetch(`${served.url}/openapi.json`)).json()) as Doc;
}, 60_000);

afterAll(async () => {
  await Promise.all([served?.stop(), servedReal?.stop()]);
});

describe('the OpenAPI document', () => {
  it('lists every route the server registers, and nothing else, on SPEC.md paths', () => {
    expect(registered.length).toBeGreaterThan(35);
    expect(neutralOps(doc)).toEqual(registered);
  });

  it('lists each real-name path beside the route that serves it', () => {
    const real = Object.entries(doc.paths).filter(([p]) => pathDialect(p).names === 'real');
    expect(real.length).toBeGreaterThan(10);
    for (const [p, ops] of real)
      for (const m of Object.keys(ops))
        expect(registered, `${m} ${p}`).toContain(`${m.toUpperCase()} ${pathDialect(p).neutral.replace(/\{(\w+)\}/g, ':$1')}`);
    expect(doc.paths['/v4/cdsl/parse'].post.operationId).toBe('cdslParse');
  });

  it('gives each operation a unique operationId, its response schemas and error responses, and its request where it takes one', () => {
    const ids = new Set<string>();
    // POST routes that read nothing from a body: the answer depends on the key, the path or a header.
    const bodiless = [
      '/v1/credits',
      '/credits',
      '/v4/inbox/status',
      '/v4/inbox/disconnect',
      '/v4/inbound-email/{inbound_email_id}/pause',
      '/v4/inbound-email/{inbound_email_id}/resume',
      '/v1/kyc/locker/result/{session_id}',
    ];
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) {
        const where = `${m} ${p}`;
        expect(ids.has(op.operationId), `${where}: operationId ${op.operationId} is unique`).toBe(false);
        ids.add(op.operationId);
        const ok = Object.entries(op.responses).filter(([s]) => Number(s) < 400);
        expect(ok.length, `${where}: a success response`).toBeGreaterThan(0);
        for (const [status, r] of ok)
          if (Number(status) < 300) expect(Object.values(r.content ?? {})[0]?.schema, `${where}: ${status} schema`).toBeTruthy();
        expect(op.responses['400']?.content?.['application/json'].schema, `${where}: the error body`).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        });
        if (op.security.length)
          expect(Object.keys(op.responses), `${where}: auth errors`).toEqual(expect.arrayContaining(['401', '402', '403']));
        for (const param of p.match(/\{\w+\}/g) ?? [])
          expect(
            op.parameters?.some((x) => x.in === 'path' && `{${x.name}}` === param),
            `${where}: path parameter ${param}`,
          ).toBe(true);
        const neutral = pathDialect(p).neutral;
        if (m === 'post' && !bodiless.includes(neutral))
          expect(op.requestBody?.content['application/json']?.schema, `${where}: request body`).toBeTruthy();
        if (/\/parse$|\/gains$/.test(p))
          expect(op.requestBody?.content['multipart/form-data']?.schema, `${where}: multipart`).toMatchObject({
            properties: expect.objectContaining({ pdf_url: expect.anything() }),
          });
      }
    }
    // Query parameters are documented where a route reads them.
    expect(doc.paths['/v4/inbound-email'].get.parameters?.map((x) => x.name)).toEqual(['status', 'limit', 'offset']);
    expect(doc.paths['/v4/inbox/cas'].post.parameters?.map((x) => `${x.in}:${x.name}`)).toEqual(['header:x-inbox-token']);
  });

  it('is what openapiDocument() builds without a server or a database, in both dialects', async () => {
    expect(await openapiDocument()).toEqual(doc);
    const real = (await (await fetch(`${servedReal.url}/openapi.json`)).json()) as Doc;
    expect(await openapiDocument('real')).toEqual(real);
    // Shared paths answer in the server's dialect: their response components are the real-name ones.
    expect(JSON.stringify(real.paths['/v4/smart/parse'].post.responses['200'])).toContain('ParsedStatementReal');
    expect(JSON.stringify(doc.paths['/v4/smart/parse'].post.responses['200'])).not.toContain('Real');
  });

  describe.skipIf(!existsSync(SPEC))(
    `names every endpoint of SPEC.md${existsSync(SPEC) ? '' : ' (skipped: ../shared/SPEC.md, the contract beside the repository, is absent)'}`,
    () => {
      it('every METHOD /path that SPEC.md lists is an operation of the document', () => {
        const text = readFileSync(SPEC, 'utf8');
        const named = new Set<string>();
        for (const m of text.matchAll(/^\| (GET|POST|DELETE|PUT|PATCH) \| (\/\S+) \|/gm)) named.add(`${m[1]} ${m[2]}`);
        for (const m of text.matchAll(/\b(GET|POST|DELETE|PUT|PATCH) (\/[\w/{}.-]+)/g)) named.add(`${m[1]} ${m[2]}`);
        expect(named.size).toBeGreaterThan(15);
        const shape = (s: string): string => s.replace(/\{\w+\}/g, '{}');
        const ours = new Set(
          Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => shape(`${m.toUpperCase()} ${p}`))),
        );
        for (const e of named) expect(ours.has(shape(e)), `${e} (SPEC.md)`).toBe(true);
      });
    },
  );
});

/** `POST /v4/smart/gains` on a real `cas serve`: the same report as `cas gains`, billed like smart parse, in /openapi.json. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { cas, fixture, manifest } from '../helpers/cas.js';
import { newKey, post, serve, type Served } from '../helpers/server.js';
import { GainsReport } from '../../src/schema/gains.js';

const entry = manifest().find((m) => m.path === 'registrar/cams-detailed.pdf')!;
const pdf = readFileSync(fixture(entry.path)).toString('base64');
let srv: Served;
let key: string;

beforeAll(async () => {
  srv = await serve();
  key = await newKey(srv.dataDir, ['--credits', '10']);
});
afterAll(async () => {
  await srv?.stop();
});

describe('POST /v4/smart/gains', () => {
  it('answers the report cas gains prints, and charges 1 credit', async () => {
    const r = await post(srv.url, '/v4/smart/gains', { key, json: { pdf_file: pdf, password: entry.password, fy: '2025-26' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const report = GainsReport.parse(r.body);
    expect(report.years.map((y) => y.fy)).toEqual(['2025-26']);
    const cli = await cas(['gains', fixture(entry.path), '--password', entry.password!, '--fy', '2025-26', '--format', 'json']);
    expect(report).toEqual(JSON.parse(cli.stdout));
    expect((await post(srv.url, '/v1/credits', { key })).body.remaining).toBe(9);
  });

  it('multipart with fy in the query; bad options and a wrong password are 400 and free', async () => {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(fixture(entry.path))], { type: 'application/pdf' }), 'cas.pdf');
    form.append('password', entry.password!);
    const r = await post(srv.url, '/v4/smart/gains?fy=2024-25', { key, body: form });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.years.map((y: { fy: string }) => y.fy)).toEqual(['2024-25']);
    const badFy = await post(srv.url, '/v4/smart/gains', { key, json: { pdf_file: pdf, password: entry.password, fy: 'soon' } });
    expect(badFy).toMatchObject({ status: 400, body: { status: 'failed', msg: expect.stringMatching(/2025-26/) } });
    const badTypes = await post(srv.url, '/v4/smart/gains', {
      key,
      json: { pdf_file: pdf, password: entry.password, scheme_types: 'INF179K01UT0,stocks' },
    });
    expect(badTypes.status).toBe(400);
    const badPw = await post(srv.url, '/v4/smart/gains', { key, json: { pdf_file: pdf, password: 'nope' } });
    expect(badPw.status).toBe(400);
    expect((await post(srv.url, '/v1/credits', { key })).body.remaining).toBe(8);
  });

  it('the sandbox key gets the gains of the sample registrar statement, free', async () => {
    const r = await post(srv.url, '/v4/smart/gains', { key: 'cas_sandbox_public_key', json: { pdf_file: 'JVBERi0=', fy: '2025-26' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const report = GainsReport.parse(r.body);
    expect(report.years.map((y) => y.fy)).toEqual(['2025-26']);
    expect(report.years[0].schemes.length).toBeGreaterThan(0);
  });

  it('is documented in /openapi.json with the GainsReport schema', async () => {
    const doc = (await (await fetch(`${srv.url}/openapi.json`)).json()) as {
      paths: Record<string, { post?: { operationId: string } }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.paths['/v4/smart/gains'].post?.operationId).toBe('smartGains');
    expect(doc.components.schemas.GainsReport).toMatchObject({ type: 'object', required: expect.arrayContaining(['years', 'issues']) });
  });
});

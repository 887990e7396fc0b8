/**
 * `POST /v4/smart/portfolio` on a real `cas serve`: several statements in one request give the
 * portfolio `cas portfolio` prints; billed per parsed file like smart parse (a file that does not
 * parse is named in left_out and free; nothing parsing, too few credits or two investors cost
 * nothing); multipart with one part per PDF; the sandbox key; the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { cas, fixture } from '../helpers/cas.js';
import { newKey, post, serve, type Served } from '../helpers/server.js';
import { Portfolio } from '../../src/schema/portfolio.js';
import { buildRegistrarStatement } from '../fixtures/registrar-data.js';
import { renderRegistrarDetailed, STYLE_A } from '../fixtures/registrar-render.js';

const PW = 'ABCPM1234K';
const FILES = ['registrar/kfintech-detailed.pdf', 'depository_a/cdsl-cas.pdf'];
const b64 = (f: string): string => readFileSync(fixture(f)).toString('base64');
let srv: Served;
let key: string;

const credits = async (k: string): Promise<number> => (await post(srv.url, '/v1/credits', { key: k })).body.remaining;

beforeAll(async () => {
  srv = await serve();
  key = await newKey(srv.dataDir, ['--credits', '10']);
});
afterAll(async () => {
  await srv?.stop();
});

describe('POST /v4/smart/portfolio', () => {
  it('answers the portfolio cas portfolio prints, and charges one credit per file', async () => {
    const r = await post(srv.url, '/v4/smart/portfolio', {
      key,
      json: { password: PW, files: FILES.map((f) => ({ pdf_file: b64(f), name: fixture(f) })) },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('x-credits-used')).toBe('2');
    const p = Portfolio.parse(r.body);
    const cli = await cas(['portfolio', '--json', '--password', PW, ...FILES.map(fixture)]);
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(p).toEqual(Portfolio.parse(JSON.parse(cli.stdout)));
    expect(await credits(key)).toBe(8);
  });

  it('a file that does not parse is named in left_out and free; the rest merges', async () => {
    const r = await post(srv.url, '/v4/smart/portfolio', {
      key,
      json: {
        files: [
          { pdf_file: b64(FILES[0]), password: PW, name: 'cas.pdf' },
          { pdf_file: b64('bad/truncated.pdf'), name: 'cut.pdf' },
        ],
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('x-credits-used')).toBe('1');
    const p = Portfolio.parse(r.body);
    expect(p.left_out).toEqual([{ file: 'cut.pdf', message: expect.any(String) }]);
    expect(p.sources.map((s) => s.file)).toEqual(['cas.pdf']);
    expect(await credits(key)).toBe(7);
  });

  it('multipart: one part per PDF, the password as a field', async () => {
    const form = new FormData();
    for (const f of FILES) form.append('file', new Blob([readFileSync(fixture(f))], { type: 'application/pdf' }), f.split('/')[1]);
    form.append('password', PW);
    const r = await post(srv.url, '/v4/smart/portfolio', { key, body: form });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const p = Portfolio.parse(r.body);
    expect(p.sources.map((s) => s.file)).toEqual(['kfintech-detailed.pdf', 'cdsl-cas.pdf']);
    expect(await credits(key)).toBe(5);
  });

  it('nothing parsing, two investors, a bad body, or too few credits: refused and free', async () => {
    const none = await post(srv.url, '/v4/smart/portfolio', { key, json: { files: [{ pdf_file: b64('bad/truncated.pdf') }] } });
    expect(none).toMatchObject({ status: 400, body: { status: 'failed', msg: expect.stringMatching(/no file parsed: files\[0\]/) } });
    const empty = await post(srv.url, '/v4/smart/portfolio', { key, json: { files: [] } });
    expect(empty).toMatchObject({ status: 400, body: { status: 'failed', msg: expect.stringMatching(/at least one file/) } });
    const both = await post(srv.url, '/v4/smart/portfolio', {
      key,
      json: { files: [{ pdf_file: 'JVBERi0=', pdf_url: 'https://example.invalid/x.pdf' }] },
    });
    expect(both.status).toBe(400);
    // A second investor's statement, from the generator (another PAN, no password).
    const st = buildRegistrarStatement({ seed: 11 });
    st.investor = { ...st.investor, name: 'Diya Rao', pan: 'BCDPR5678L' };
    for (const f of st.folios) f.pan = 'BCDPR5678L';
    const other = (await renderRegistrarDetailed(st, STYLE_A)).toString('base64');
    const files = [{ pdf_file: b64(FILES[0]), password: PW }, { pdf_file: other }];
    const mixed = await post(srv.url, '/v4/smart/portfolio', { key, json: { files } });
    expect(mixed).toMatchObject({
      status: 400,
      body: { status: 'failed', msg: expect.stringMatching(/2 investors.*allow_mixed_investors: true/) },
    });
    expect(await credits(key)).toBe(5);
    const allowed = await post(srv.url, '/v4/smart/portfolio', { key, json: { files, allow_mixed_investors: true } });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(Portfolio.parse(allowed.body).investors).toHaveLength(2);
    expect(await credits(key)).toBe(3);
    const poor = await newKey(srv.dataDir, ['--credits', '1']);
    const r = await post(srv.url, '/v4/smart/portfolio', {
      key: poor,
      json: { password: PW, files: FILES.map((f) => ({ pdf_file: b64(f) })) },
    });
    expect(r).toMatchObject({ status: 402, body: { status: 'failed', msg: expect.stringMatching(/insufficient credits: 2 files/) } });
    expect(await credits(poor)).toBe(1);
    expect(await credits(key)).toBe(3);
  });

  it('the sandbox key gets the portfolio of the sample statements, free', async () => {
    const r = await post(srv.url, '/v4/smart/portfolio', { key: 'cas_sandbox_public_key', json: { files: [{ pdf_file: 'JVBERi0=' }] } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const p = Portfolio.parse(r.body);
    expect(p.sources).toHaveLength(2);
    expect(p.totals.value).toBeGreaterThan(0);
  });

  it('is documented in /openapi.json with the Portfolio schema', async () => {
    const doc = (await (await fetch(`${srv.url}/openapi.json`)).json()) as {
      paths: Record<string, { post?: { operationId: string; requestBody?: { content: Record<string, unknown> } } }>;
      components: { schemas: Record<string, unknown> };
    };
    const op = doc.paths['/v4/smart/portfolio'].post!;
    expect(op.operationId).toBe('smartPortfolio');
    expect(Object.keys(op.requestBody!.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(doc.components.schemas.Portfolio).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['holdings', 'returns', 'timeline']),
    });
  });
});

/**
 * Hostile PDFs (issue 18, items 3-5): a huge encryption key length, 200,000 nested `q`, 1,000
 * pages of 20,000 operators, a FlateDecode bomb, and malformed files the PDF engine rejects
 * asynchronously. Through the built `cas parse` each is answered (never a hang) with exit 3
 * and one line; through a real `cas serve` each request is answered with SPEC's error shape,
 * its credit comes back, and the next valid request still parses (the worker was replaced).
 * The files are generated here (test/fuzz/hostile.ts); small limits keep the test fast.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cas, fixture, tmpDir } from '../helpers/cas.js';
import { newKey, post, serve, type Served } from '../helpers/server.js';
import { deepNesting, flateBomb, hugeKeyLength, malformed, manyOperators } from '../fuzz/hostile.js';

/**
 * 8 s: a valid file's parse (a fraction of a second idle) keeps a wide margin on a busy machine
 * (issue 33: these files pass while busy loops hold every core), and the files that reach the limit
 * (1,000 pages of 20,000 operators; the bomb, when the memory limit does not stop it first) cost 8 s
 * each. The time limit itself is proved on pdf.js below with its own 1.5 s.
 */
const LIMITS = { CAS_PARSE_TIMEOUT: '8', CAS_PARSE_MAX_MEMORY_MB: '256' };
/** A hang guard, not a speed test: the limit plus Node's start-up and a very busy machine's slack. */
const ANSWER_WITHIN_MS = 8_000 + 60_000;
const SLOW = 5 * 60_000;

const dir = tmpDir('cas-hostile-');
const files: Record<string, string> = {};

beforeAll(async () => {
  const all: [string, Buffer][] = [
    ['key-length-1e9', hugeKeyLength()],
    ['nested-q-200k', deepNesting()],
    ['pages-1000-ops-20k', manyOperators()],
    ['flate-bomb', await flateBomb()],
    ...malformed().map((m): [string, Buffer] => [`malformed-${m.name}`, m.pdf]),
  ];
  mkdirSync(path.join(dir, 'batch'));
  for (const [name, pdf] of all) {
    files[name] = path.join(dir, `${name}.pdf`);
    writeFileSync(files[name], pdf);
    writeFileSync(path.join(dir, 'batch', `${name}.pdf`), pdf);
  }
  writeFileSync(path.join(dir, 'batch', 'valid.pdf'), readFileSync(fixture('registrar/cams-detailed-plain.pdf')));
});

function oneLine(stderr: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^cas: /);
  expect(stderr).not.toMatch(/\n\s+at |Unhandled|node:internal/);
}

describe('hostile PDFs through cas parse', () => {
  for (const name of ['key-length-1e9', 'nested-q-200k', 'pages-1000-ops-20k', 'flate-bomb']) {
    it(
      `${name}: exit 3 with one line, within the budget`,
      async () => {
        const t0 = Date.now();
        const r = await cas(['parse', files[name]], { env: LIMITS, timeout: ANSWER_WITHIN_MS + 30_000 });
        const ms = Date.now() - t0;
        expect(r.exitCode).toBe(3);
        oneLine(r.stderr);
        expect(r.stderr).toMatch(/limit|damaged|not a supported|no text layer/);
        expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
      },
      SLOW,
    );
  }

  it(
    'the bomb is stopped at the memory limit and the hangs at the time limit',
    async () => {
      // No time limit to race: however slow the machine, the inflating bomb reaches the memory limit first.
      const bomb = await cas(['parse', files['flate-bomb']], { env: { ...LIMITS, CAS_PARSE_TIMEOUT: '600' }, timeout: SLOW });
      expect(bomb.stderr).toMatch(/more memory than the limit of 256 MB/);
      // pdf.js spins on the nesting (PDFium reads it): the time limit is proved on pdf.js.
      const spin = await cas(['parse', files['nested-q-200k']], { env: { ...LIMITS, CAS_PARSE_TIMEOUT: '1.5', CAS_PDF_ENGINE: 'pdfjs' } });
      expect(spin.stderr).toMatch(/longer than the limit of 1.5 s/);
    },
    SLOW,
  );

  it(
    'malformed files: exit 3, one line each, no stack trace',
    async () => {
      for (const name of Object.keys(files).filter((n) => n.startsWith('malformed-'))) {
        const r = await cas(['parse', files[name]], { env: LIMITS });
        expect(r.exitCode, name).toBe(3);
        oneLine(r.stderr);
      }
    },
    SLOW,
  );

  it(
    'a batch (--jobs 2) answers every file, parses the valid one, and exits 3',
    async () => {
      const t0 = Date.now();
      const r = await cas(['parse', path.join(dir, 'batch'), '--jobs', '2', '--json'], { env: LIMITS, timeout: SLOW - 30_000 });
      expect(r.exitCode).toBe(3);
      expect(Date.now() - t0).toBeLessThan(SLOW - 30_000);
      const docs = r.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { investor?: unknown });
      expect(docs).toHaveLength(1);
      expect(docs[0].investor).toBeTruthy();
      const summary = r.stderr.trim().split('\n').at(-1)!;
      expect(summary).toMatch(new RegExp(`^1 of ${Object.keys(files).length + 1} files parsed; failed: `));
      // The spinning files are stopped by the pool (which limit fires first for the bomb depends on the
      // machine's load); the key length and the page count are refused by src/pdf before they can spin.
      expect(summary).toMatch(/flate-bomb\.pdf \((Timeout|ResourceLimit)\)/);
      // pdf.js spins on the nesting (stopped by the time limit); the default engine, PDFium, reads it: not a statement.
      expect(summary).toMatch(/nested-q-200k\.pdf \((Timeout|ResourceLimit|UnsupportedDocument)\)/);
      expect(summary).toMatch(/key-length-1e9\.pdf \((DamagedPdf|Timeout)\)/);
      expect(summary).toMatch(/pages-1000-ops-20k\.pdf \((TooLarge|Timeout)\)/);
      expect(r.stderr).not.toMatch(/\n\s+at |Unhandled/);
    },
    SLOW,
  );

  it('limits from the environment are checked', async () => {
    const r = await cas(['parse', fixture('registrar/cams-detailed-plain.pdf')], { env: { CAS_PARSE_TIMEOUT: 'soon' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/CAS_PARSE_TIMEOUT must be a number/);
  });
});

describe('hostile PDFs through cas serve', () => {
  let srv: Served;
  let key: string;
  beforeAll(async () => {
    const data = tmpDir('cas-hostile-srv-');
    key = await newKey(data, ['--credits', '100']);
    srv = await serve(data, [], { ...LIMITS, CAS_PARSE_WORKERS: '1' });
  }, SLOW);
  afterAll(async () => {
    await srv?.stop();
  });
  const credits = async (): Promise<number> => (await post(srv.url, '/v1/credits', { key })).body.remaining as number;
  const parse = (pdf: Buffer): ReturnType<typeof post> =>
    post(srv.url, '/v4/smart/parse', { key, json: { pdf_file: pdf.toString('base64') } });

  it(
    'each hostile request is answered with the error shape, refunded, and the next valid one parses',
    async () => {
      const valid = readFileSync(fixture('registrar/cams-detailed-plain.pdf'));
      for (const name of Object.keys(files)) {
        const before = await credits();
        const t0 = Date.now();
        const r = await parse(readFileSync(files[name]));
        expect(Date.now() - t0, name).toBeLessThan(ANSWER_WITHIN_MS);
        expect(r.status, name).toBeGreaterThanOrEqual(400);
        expect(r.body.status, name).toBe('failed');
        expect(typeof r.body.msg).toBe('string');
        expect(r.body.msg).not.toMatch(/\n\s+at /);
        // The refund is committed before the failed answer leaves (issue 33.2): its header and a
        // balance read the moment the answer arrives both show the credit back, with no waiting.
        expect(r.headers.get('x-credits-remaining'), `${name}: X-Credits-Remaining`).toBe(String(before));
        expect(await credits(), `${name}: credit refunded`).toBe(before);
        // The worker was replaced and the next valid request parses. On a machine busy enough that
        // the small statement itself outlasts the parse limit (a busy-loop run at load 20 did), its
        // answer is that limit's, refunded: the client sends it again, as a user would.
        let ok = await parse(valid);
        for (let i = 0; i < 3 && ok.status === 400 && /took longer than the limit/.test(ok.body?.msg ?? ''); i++) {
          expect(await credits(), `${name}: the timed-out valid request is refunded`).toBe(before);
          ok = await parse(valid);
        }
        expect(ok.status, `${name}: next valid request: ${JSON.stringify(ok.body)}`).toBe(200);
        expect(ok.body.investor).toBeTruthy();
        expect(await credits()).toBe(before - 1);
      }
      expect(srv.log()).not.toMatch(/Unhandled|\n\s+at /);
    },
    2 * SLOW,
  );
});

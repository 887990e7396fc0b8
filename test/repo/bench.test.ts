/**
 * `npm run bench` in a tiny mode (one 1-page statement, one run, cold + warm sections): it finishes,
 * says which engine each setting ran, and writes results.json with the figures the README names.
 * The figures themselves are the bench's business, not this test's: only their shape is checked.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, tmpDir } from '../helpers/cas.js';
import { needs } from '../helpers/tools.js';

const bench = (args: string[], extra: Record<string, string> = {}) => {
  const env = { ...cleanEnv(), ...extra };
  delete env.CAS_BENCH_PEER;
  return execa(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['bench/run.ts', ...args], {
    cwd: ROOT,
    env,
    extendEnv: false,
    reject: false,
  });
};

describe('npm run bench', () => {
  it('runs a tiny bench and writes results.json with both engines, ratios and RSS', async () => {
    const out = tmpDir('cas-bench-');
    const r = await bench(['--quick', '--sizes', '1', '--runs', '1', '--warm-pages', '1', '--only', 'cold,warm', '--out', out]);
    expect(r.stderr).not.toMatch(/bench: (?!statements|cold parse|warm parse|done)/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/CAS_PDF_ENGINE=pdfium +ran (pdfium|pdfjs)/);
    expect(r.stdout).toContain('not measured (set CAS_BENCH_PEER)');

    const res = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
    for (const e of ['pdfium', 'pdfjs']) expect(['pdfium', 'pdfjs']).toContain(res.engines.ran[e]);
    expect(res.engines.ran.pdfjs).toBe('pdfjs');
    expect(res.peer).toBe('not measured (set CAS_BENCH_PEER)');
    expect(res.cold).toHaveLength(1);
    const [c] = res.cold;
    expect(c.pages).toBe(1);
    expect(c.transactions).toBeGreaterThan(0);
    for (const e of ['pdfium', 'pdfjs']) {
      expect(c[e].ms).toBeGreaterThan(0);
      expect(c[e].all_ms).toHaveLength(1);
      expect(c[e].ran).toBe(res.engines.ran[e]);
      if (c[e].rss_mb !== null) expect(c[e].rss_mb).toBeGreaterThan(20);
      expect(res.warm[e].ms_per_page).toBeGreaterThan(0);
      expect(res.warm[e].rss_mb).toBeGreaterThan(20);
      expect(res.warm[e].ran).toBe(res.engines.ran[e]);
    }
    expect(c.ratios.pdfium_vs_pdfjs).toBeCloseTo(c.pdfium.ms / c.pdfjs.ms, 6);
    expect(c.peer).toBe('not measured (set CAS_BENCH_PEER)');
    // The warm speed-up is the median of the rounds' ratios (two rounds with --quick: their mean).
    const rounds = res.warm.round_speedups as number[];
    expect(rounds).toHaveLength(2);
    for (const x of rounds) expect(x).toBeGreaterThan(0);
    expect(res.warm.speedup).toBeCloseTo((rounds[0] + rounds[1]) / 2, 6);
  }, 60_000);

  it('the PostgreSQL section says it is skipped, and why, when PostgreSQL is not installed', async () => {
    const out = tmpDir('cas-bench-');
    const r = await bench(['--quick', '--only', 'postgres', '--out', out], { CAS_TEST_PG_BIN: '' });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^ {2}PostgreSQL +skipped: no PostgreSQL server binaries .*postgresql$/m);
    const res = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
    expect(res.postgres.skipped).toMatch(/Debian package postgresql/);
  }, 60_000);

  const postgres = needs('postgres');
  it.skipIf(postgres.skip)(
    `reports /v1/credits and parse throughput on SQLite, PostgreSQL and two PostgreSQL instances${postgres.note}`,
    async () => {
      const out = tmpDir('cas-bench-');
      const r = await bench(['--quick', '--only', 'postgres', '--out', out]);
      expect(r.stderr).not.toMatch(/bench: (?!statements|cas serve on|done)/);
      expect(r.exitCode).toBe(0);
      for (const what of ['/v1/credits', 'parse'])
        for (const line of ['SQLite, 1 instance', 'PostgreSQL, 1 instance', 'PostgreSQL, 2 instances'])
          expect(r.stdout).toContain(`${what}, ${line}`);
      expect(r.stdout).toMatch(
        /\/v1\/credits, PostgreSQL, 2 instances +\d+ req\/s \(\d+ \+ \d+\), p99 \d+ ms, [\d.]+ \+ [\d.]+ CPU ms\/request; [\d.]+x one instance, [\d.]+x SQLite/,
      );
      const res = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
      const pg = res.postgres;
      for (const set of [pg.sqlite, pg.pg1, pg.pg2])
        for (const k of ['credits', 'parse']) {
          expect(set[k].rps).toBeGreaterThan(0);
          expect(set[k].non2xx + set[k].errors).toBe(0);
          expect(set[k].cpu_ms_per_request.cas).toBeGreaterThan(0);
        }
      expect(pg.pg2.instances).toBe(2);
      expect(pg.pg2.credits.rps).toBeCloseTo(pg.pg2.credits.per_instance[0] + pg.pg2.credits.per_instance[1], 6);
      expect(pg.ratios.parse_pg2_vs_pg1).toBeCloseTo(pg.pg2.parse.rps / pg.pg1.parse.rps, 6);
      expect(pg.ratios.credits_pg1_vs_sqlite).toBeCloseTo(pg.pg1.credits.rps / pg.sqlite.credits.rps, 6);
    },
    180_000,
  );
});

/**
 * `npm run bench` in a tiny mode (one 1-page statement, one run, cold + warm sections): it finishes,
 * says which engine each setting ran, and writes results.json with the figures the README names.
 * The figures themselves are the bench's business, not this test's: only their shape is checked.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, tmpDir } from './helpers.js';

describe('npm run bench', () => {
  it('runs a tiny bench and writes results.json with both engines, ratios and RSS', async () => {
    const out = tmpDir('cas-bench-');
    const env = cleanEnv();
    delete env.CAS_BENCH_PEER;
    const r = await execa(
      path.join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['bench/run.ts', '--quick', '--sizes', '1', '--runs', '1', '--warm-pages', '1', '--only', 'cold,warm', '--out', out],
      { cwd: ROOT, env, extendEnv: false, reject: false },
    );
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
    expect(res.warm.speedup).toBeCloseTo(res.warm.pdfjs.ms / res.warm.pdfium.ms, 6);
  }, 60_000);
});

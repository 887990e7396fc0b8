/**
 * Fuzz (issue 18): 3,000 mutated PDFs from every fixture family (encrypted ones with their
 * passwords), 2,400 through the parse core's worker pool and 600 through the built `cas parse`
 * in batches of 100, alternately with --jobs 2 (workers) and --jobs 1 (each small file in the CLI's
 * own thread, under its watchdog), then 30 each in a `cas parse FILE` process of its own. Each is answered within 2 s with a result or a typed error: no hangs,
 * no crashes, no unhandled rejections, no `Unexpected`. `npm run fuzz -- --n 20000` runs more.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_MAP } from '../../src/core/errors.js';
import { fuzz } from '../fuzz/run.js';

describe('fuzz', () => {
  it('3,000 mutants: every one answered in time with a result or a typed error', async () => {
    const s = await fuzz({ n: 2400, cli: 600, seed: 1, jobs: 2, budgetMs: 2000 });
    console.log(s.line);
    expect(s.problems).toEqual([]);
    expect(s.library + s.cli).toBeGreaterThanOrEqual(3000);
    expect(s.cliInThread).toBe(300);
    // 30 more, each in a `cas parse FILE` process of its own (the one-document tuning).
    expect(s.single).toBe(30);
    expect(s.singleOk).toBeGreaterThan(0);
    expect(s.sources).toBeGreaterThanOrEqual(15);
    expect({ hangs: s.hangs, crashes: s.crashes, unhandledRejections: s.unhandledRejections, unexpected: s.unexpected }).toEqual({
      hangs: 0,
      crashes: 0,
      unhandledRejections: 0,
      unexpected: 0,
    });
    for (const code of Object.keys(s.outcomes)) if (code !== 'ok') expect(ERROR_MAP, code).toHaveProperty(code);
    // The mutants reach every kind of answer, not only one failure.
    expect(s.outcomes.ok).toBeGreaterThan(100);
    expect(Object.keys(s.outcomes).length).toBeGreaterThanOrEqual(5);
  }, 600_000);
});

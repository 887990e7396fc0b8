/**
 * The layout property suite (issue 16) as vitest tests: each family x renderer, each parse equal to
 * its expected JSON in every field: LAYOUT_SEEDS seeds for pdfkit (default 100) and
 * LAYOUT_SEEDS_CHROMIUM for Chromium (default 30, or LAYOUT_SEEDS when that is set). A Chromium print
 * costs several pdfkit renders, and with 100 Chromium seeds per family the fresh-clone CI run took
 * about 33 minutes, over CI's 30; the 1,000-seed runs are `npm run test:layouts`. The
 * families are split over four test files (GROUPS) so that two test workers share them; the
 * vitest sequencer (vitest.config.ts) starts these long files first. A failing seed names itself
 * and keeps its PDF under test-output/layouts/ (see harness.ts). More seeds, or one:
 * `npm run test:layouts -- --seeds 1000`, `npm run test:layouts -- --family ID --renderer R --seed K`.
 */
import { describe, expect, it } from 'vitest';
import { describeFailure, loadFamilies, RENDERERS, runFamily } from './harness.js';
import { needs } from '../helpers/tools.js';

/** Which test file runs which families (every family in exactly one; test/layouts/layouts.test.ts checks it). */
export const GROUPS: Record<string, string[]> = {
  registrar: ['registrar-detailed', 'registrar-summary'],
  depository: ['depository-a', 'depository-b'],
  'contract-notes-a': ['contract-note-broker-a', 'contract-note-broker-b'],
  'contract-notes-b': ['contract-note-broker-c', 'contract-note-broker-d', 'contract-note-generic'],
};

/**
 * Seeds that failed a 1,000-seed run once (`npm run test:layouts -- --seeds 1000`), run in every
 * `npm test` beside seeds 1..N, so the layout each one found stays read: a scrip summary too wide
 * for its page (273, 555), a summary average at an exact half (894), a gain of -0.0019% (488,
 * 834), charges as columns whose first header line follows a scrip summary's total (100, 133, 208).
 */
export const REGRESSION_SEEDS: Record<string, Partial<Record<(typeof RENDERERS)[number], number[]>>> = {
  'contract-note-broker-a': { pdfkit: [894], chromium: [894] },
  'contract-note-broker-b': { pdfkit: [555, 894], chromium: [894] },
  'contract-note-broker-c': { pdfkit: [555, 894], chromium: [894] },
  'contract-note-broker-d': { pdfkit: [273, 555, 894], chromium: [894] },
  'contract-note-generic': { pdfkit: [894], chromium: [100, 133, 208, 894] },
  'depository-a': { pdfkit: [488, 834], chromium: [488, 834] },
};

const SEEDS = {
  pdfkit: Number(process.env.LAYOUT_SEEDS ?? 100),
  chromium: Number(process.env.LAYOUT_SEEDS_CHROMIUM ?? process.env.LAYOUT_SEEDS ?? 30),
};

/** The tests of one group's families, both renderers. */
export async function layoutSuite(group: keyof typeof GROUPS): Promise<void> {
  const ids = GROUPS[group]!;
  const families = (await loadFamilies()).filter((f) => ids.includes(f.id));
  const chromium = needs('chromium');
  describe(`layout property suite: ${group}`, () => {
    it('has every family of its group', () => {
      expect(families.map((f) => f.id).sort()).toEqual([...ids].sort());
    });
    for (const family of families) {
      for (const renderer of RENDERERS) {
        const skip = renderer === 'chromium' && chromium.skip;
        const n = SEEDS[renderer];
        it.skipIf(skip)(
          `${family.id} / ${renderer}: ${n} seeds and the pinned ones parse to their expected JSON${skip ? chromium.note : ''}`,
          async () => {
            const pinned = (REGRESSION_SEEDS[family.id]?.[renderer] ?? []).filter((k) => k > n);
            const seeds = [...Array.from({ length: n }, (_, i) => i + 1), ...pinned];
            const results = await runFamily(family, renderer, { seeds });
            expect(results).toHaveLength(seeds.length);
            const failed = results.filter((r) => !r.ok);
            expect(failed.map(describeFailure).join('\n\n'), `${failed.length} of ${seeds.length} seeds failed`).toBe('');
          },
          30 * 60_000,
        );
      }
    }
  });
}

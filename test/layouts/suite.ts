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
          `${family.id} / ${renderer}: ${n} seeds parse to their expected JSON${skip ? chromium.note : ''}`,
          async () => {
            const seeds = Array.from({ length: n }, (_, i) => i + 1);
            const results = await runFamily(family, renderer, { seeds });
            expect(results).toHaveLength(n);
            const failed = results.filter((r) => !r.ok);
            expect(failed.map(describeFailure).join('\n\n'), `${failed.length} of ${n} seeds failed`).toBe('');
          },
          30 * 60_000,
        );
      }
    }
  });
}

/**
 * The layout property suite (issue 16): each family x renderer, each parse equal to its expected JSON
 * in every field: LAYOUT_SEEDS seeds per renderer (default 100; LAYOUT_SEEDS_CHROMIUM overrides it
 * for Chromium, whose print costs several pdfkit renders). A failing seed names itself and keeps its
 * PDF under test-output/layouts/ (see test/layouts/harness.ts). More seeds, or one:
 * `npm run test:layouts -- --seeds 1000`, `npm run test:layouts -- --family ID --renderer R --seed K`.
 */
import { describe, expect, it } from 'vitest';
import { describeFailure, loadFamilies, RENDERERS, runFamily } from './layouts/harness.js';
import { needs } from './tools.js';

const SEEDS = {
  pdfkit: Number(process.env.LAYOUT_SEEDS ?? 100),
  chromium: Number(process.env.LAYOUT_SEEDS_CHROMIUM ?? process.env.LAYOUT_SEEDS ?? 100),
};
const families = await loadFamilies();
const chromium = needs('chromium');

describe('layout property suite', () => {
  it('has a family for every statement kind and broker layout', () => {
    const ids = families.map((f) => f.id);
    for (const want of ['registrar-detailed', 'registrar-summary', 'depository-a', 'depository-b']) expect(ids).toContain(want);
    expect(ids.filter((id) => id.startsWith('contract-note')).length).toBeGreaterThanOrEqual(5);
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

/**
 * The layout property suite (issue 16), registrar families; the other families run in
 * layouts-depository, layouts-contract-notes-a and -b (test/layouts/suite.ts says how and why).
 */
import { describe, expect, it } from 'vitest';
import { loadFamilies } from './harness.js';
import { GROUPS, layoutSuite } from './suite.js';

describe('layout families', () => {
  it('has a family for every statement kind and broker layout, each in one test file', async () => {
    const ids = (await loadFamilies()).map((f) => f.id);
    for (const want of ['registrar-detailed', 'registrar-summary', 'depository-a', 'depository-b']) expect(ids).toContain(want);
    expect(ids.filter((id) => id.startsWith('contract-note')).length).toBeGreaterThanOrEqual(5);
    expect(Object.values(GROUPS).flat().sort()).toEqual([...ids].sort());
  });
});

await layoutSuite('registrar');

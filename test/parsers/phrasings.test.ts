/**
 * The transaction phrasing tables (src/parsers/phrasings): every printed example of every phrasing
 * classifies to that phrasing's type, through that phrasing (no earlier one shadows it), and every
 * SPEC transaction type is reachable from the registrar's wording.
 */
import { describe, expect, it } from 'vitest';
import { TransactionType } from '../../src/schema/index.js';
import { classifyRegistrar, findPhrasing, REGISTRAR_PHRASINGS, type Phrasing } from '../../src/parsers/phrasings/index.js';

const UNITS: Record<Phrasing['units'], (number | null)[]> = { in: [12.345], out: [-12.345], zero: [0], none: [null], any: [null] };

describe('registrar phrasings', () => {
  const cases = REGISTRAR_PHRASINGS.flatMap((p, i) =>
    p.examples.flatMap((text) =>
      UNITS[p.units].map((units) => ({ i, p, text, units, label: `#${i} ${p.type} <- '${text}' (units ${units})` })),
    ),
  );

  it('every phrasing has an example, every pattern compiles', () => {
    for (const p of REGISTRAR_PHRASINGS) {
      expect(p.examples.length, p.pattern).toBeGreaterThan(0);
      expect(() => new RegExp(p.pattern)).not.toThrow();
    }
  });

  it.each(cases)('$label', ({ p, text, units }) => {
    expect(findPhrasing(REGISTRAR_PHRASINGS, text, units, p.registrar ?? null)).toBe(p);
    expect(classifyRegistrar(text, units, p.registrar ?? null)).toBe(p.type);
  });

  it('every SPEC transaction type is reachable from the registrars wording', () => {
    expect(new Set(REGISTRAR_PHRASINGS.map((p) => p.type))).toEqual(new Set(TransactionType.options));
  });

  it('a registrar-only phrasing applies to that registrar and to an unknown one, not to the other', () => {
    expect(classifyRegistrar('Sys. Investment (1/12)', 100, 'KFINTECH')).toBe('PURCHASE_SIP');
    expect(classifyRegistrar('Sys. Investment (1/12)', 100, 'KFin')).toBe('PURCHASE_SIP');
    expect(classifyRegistrar('Sys. Investment (1/12)', 100, null)).toBe('PURCHASE_SIP');
    expect(classifyRegistrar('Sys. Investment (1/12)', 100, 'CAMS')).toBe('PURCHASE');
  });

  it('the direction of the units decides between the two sides of a phrasing', () => {
    expect(classifyRegistrar('Switch over In', 5, null)).toBe('SWITCH_IN');
    expect(classifyRegistrar('Switch over Out', -5, null)).toBe('SWITCH_OUT');
    expect(classifyRegistrar('Purchase - STT (Merger)', 5, null)).toBe('SWITCH_IN_MERGER');
    expect(classifyRegistrar('Purchase - STT (Merger)', null, null)).toBe('STT_TAX');
    expect(classifyRegistrar('Demat Transfer In', 5, null)).toBe('SWITCH_IN');
  });
});

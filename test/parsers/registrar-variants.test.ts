/**
 * Registrar variants of genuine statements (issue 31), each drawn by the generator with one trait
 * changed and compared with the expected JSON built from the same data: KFintech's own transaction
 * wordings, `(formerly ...)` / `(Formerly known as ...)` tails inline or on the next line, a
 * registrar word or advisor code glued to the scheme name, and summary scheme cells wrapped over
 * several lines with the folio and numbers beside the first, middle or last of them.
 */
import { describe, expect, it } from 'vitest';
import { openPdf } from '../../src/pdf/open.js';
import { parseRegistrar } from '../../src/parsers/registrar/index.js';
import { Ledger, toExpected, type RStatement } from '../fixtures/registrar-data.js';
import {
  detailedPdf,
  plainDetailedLook,
  plainSummaryLook,
  summaryPdf,
  type DetailedLook,
  type SummaryLook,
} from '../fixtures/registrar-layout.js';
import { drawStyle } from '../fixtures/lib/layout.js';

function variantStatement(): RStatement {
  const pan = 'ABCPV1234Q';
  const a = new Ledger(10, 400);
  a.buy('2025-04-10', 2500, 41.25, 'Sys. Investment (1/12)', 'PURCHASE_SIP');
  a.buy('2025-05-10', 2500, 42.5, 'Sys. Investment (2/12)', 'PURCHASE_SIP');
  a.buy('2025-05-20', 5000, 42.75, 'SIP Purchase - via Distributor', 'PURCHASE_SIP');
  a.buy('2025-06-02', 12000, 43.1, 'Switch over In', 'SWITCH_IN', false);
  a.unitsOnly('2025-06-20', 25.5, 'Demat Transfer In', 'SWITCH_IN');
  a.sell('2025-07-15', 30, 44.2, 'Switch over Out', 'SWITCH_OUT');
  a.buy('2025-08-01', 8000, 44.9, 'Purchase - STT (Merger)', 'SWITCH_IN_MERGER', false);
  a.sell('2025-09-01', 10, 45.3, 'Sys. Withdrawal (1/12)', 'REDEMPTION');
  const s1 = a.finish({
    code: '128ELSSDG',
    name: 'Quant ELSS Tax Saver Fund - Regular Plan - Growth Option',
    formerly: 'Quant Tax Plan',
    isin: 'INF966L01AB1',
    type: 'Equity',
    advisor: 'ARN-0155',
    registrar: 'KFINTECH',
    nominees: [],
    isDemat: false,
    navEnd: 45.5,
  });
  const b = new Ledger(100, 1000);
  b.buy('2025-05-02', 2500, 12.5, 'Systematic Investment (1/60)', 'PURCHASE_SIP');
  const s2 = b.finish({
    code: 'B92Z',
    name: 'Quant Banking and PSU Debt Fund - Direct Plan - Growth',
    formerly: 'Quant Treasury Optimizer Plan',
    isin: 'INF966L01CD3',
    type: 'Debt',
    advisor: 'INA000012345',
    registrar: 'KFINTECH',
    nominees: [],
    isDemat: false,
    navEnd: 12.75,
  });
  const c = new Ledger(0, 0);
  c.buy('2025-06-15', 10000, 20.2, 'Purchase', 'PURCHASE');
  const s3 = c.finish({
    code: 'N22D',
    name: 'Navi Nifty 50 Index Fund - Direct Plan - Growth',
    isin: 'INF959L01EF5',
    type: 'Equity',
    advisor: 'DIRECT',
    registrar: 'CAMS',
    nominees: [],
    isDemat: false,
    navEnd: 21,
  });
  return {
    investor: {
      name: 'Neel Prakash Desai',
      email: 'neel.desai@example.in',
      addressLines: ['House 7, Palm Grove Lane', 'Pune 411038'],
      mobile: '+919800011122',
      pan,
    },
    period: { from: '2025-04-01', to: '2026-03-31' },
    folios: [
      { folio: '5012345678', amc: 'Quant MF', pan, kyc: 'OK', pankyc: 'OK', holders: ['Neel Prakash Desai'], schemes: [s1, s2] },
      { folio: '7712345 / 12', amc: 'Navi MF', pan, kyc: 'OK', pankyc: 'OK', holders: ['Neel Prakash Desai'], schemes: [s3] },
    ],
  };
}

const parse = async (pdf: Buffer) => parseRegistrar(await openPdf(new Uint8Array(pdf)));

describe('registrar detailed variants', () => {
  it.each([
    ['registrar_b', 'formerly inline', {}],
    ['registrar_b', '(Formerly known as ...) on the next line', { formerlyOwnLine: true, formerlyWords: 'Formerly known as' }],
    ['registrar_a', 'registrar word and advisor code glued to the name', { registrarGlued: true, advisorGlued: true }],
    [
      'registrar_b',
      'everything at once',
      { registrarGlued: true, advisorGlued: true, formerlyOwnLine: true, formerlyWords: 'Formerly known as' },
    ],
  ] as ['registrar_a' | 'registrar_b', string, Partial<DetailedLook>][])('%s: %s', async (registrar, _n, change) => {
    const st = variantStatement();
    const { data, warnings } = await parse(await detailedPdf(st, drawStyle(0), { ...plainDetailedLook(registrar), ...change }));
    expect(data).toEqual(toExpected(st, 'detailed'));
    expect(warnings).toEqual([]);
    const types = data.mutual_funds[0].schemes[0].transactions.filter((t) => t.units !== null).map((t) => [t.description, t.type]);
    expect(types).toContainEqual(['Sys. Investment (1/12)', 'PURCHASE_SIP']);
    expect(types).toContainEqual(['Switch over Out', 'SWITCH_OUT']);
    expect(types).toContainEqual(['Demat Transfer In', 'SWITCH_IN']);
  });
});

describe('registrar summary variants', () => {
  it.each([
    ['wrapped names, numbers on the first line', {}, { wrap: 3, numbersOnLastLine: false }],
    ['wrapped names, numbers on the last line', {}, { wrap: 3, numbersOnLastLine: true }],
    ['wrapped names centred on folio and numbers, centred header', { middle: true, centeredHeader: true }, { wrap: 2 }],
    [
      'wrapped names with a glued registrar and a (Formerly known as ...) tail',
      { registrarGlued: true, formerlyWords: 'Formerly known as' },
      { wrap: 3 },
    ],
    ['centred, no codes, no ISIN column', { middle: true, codes: false, isinColumn: false }, { wrap: 4 }],
  ] as [string, Partial<SummaryLook>, Record<string, unknown>][])('%s', async (_n, change, style) => {
    const st = variantStatement();
    const look = { ...plainSummaryLook('registrar_b'), ...change };
    const { data } = await parse(await summaryPdf(st, { ...drawStyle(0), ...style }, look));
    expect(data).toEqual(
      toExpected(st, 'summary', { summaryCodes: look.codes, summaryNoIsin: !look.isinColumn, summaryNoCost: !look.costColumn }),
    );
  });
});

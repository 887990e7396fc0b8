import { describe, expect, it } from 'vitest';
import { openPdf } from '../../src/pdf/open.js';
import { parseRegistrar } from '../../src/parsers/registrar/index.js';
import { schemeType } from '../../src/parsers/common.js';
import { classifyRegistrar } from '../../src/parsers/phrasings/index.js';
import { ParsedStatement, TransactionType } from '../../src/schema/index.js';
import { buildRegistrarStatement, toExpected } from '../fixtures/registrar-data.js';
import { renderRegistrarDetailed, renderRegistrarSummary, STYLE_A, STYLE_B, type RegistrarStyle } from '../fixtures/registrar-render.js';
import {
  detailedPdf,
  plainDetailedLook,
  plainSummaryLook,
  summaryPdf,
  traitStatement,
  type DetailedLook,
  type SummaryLook,
} from '../fixtures/registrar-layout.js';
import { drawStyle } from '../fixtures/lib/layout.js';
import { withEmbeddedFont } from '../fixtures/lib/pdf.js';
import { expectedJson, fixture, manifest } from '../helpers/cas.js';

describe('registrar goldens', () => {
  const entries = manifest().filter((m) => m.kind === 'registrar');
  it('covers at least the registrar fixtures of the manifest', () => expect(entries.length).toBeGreaterThanOrEqual(7));
  it.each(entries.map((m) => [m.path, m] as const))('%s equals its expected JSON exactly', async (_p, m) => {
    const doc = await openPdf(fixture(m.path), { password: m.password ?? undefined });
    const { data, warnings } = parseRegistrar(doc);
    expect(data).toEqual(expectedJson(m.expected));
    expect(ParsedStatement.safeParse(data).success).toBe(true);
    expect(warnings).toEqual([]);
  });
});

describe('registrar robustness: one real-world trait changed at a time', () => {
  const st = buildRegistrarStatement();
  const expected = toExpected(st, 'detailed');
  const variants: [string, Partial<RegistrarStyle>, ((e: typeof expected) => void)?][] = [
    ['older "Price" column label', { priceLabel: 'Price' }],
    ['"Unit Balance" on one header row', { stackedBalance: false }],
    ['header only on page 1', { repeatHeader: false }],
    ['no table header anywhere', { omitHeader: true }],
    ['folio line parts packed together', { folioSpread: false }],
    ['registrar on its own line', { registrarOwnLine: true }],
    ['footer split over two lines', { footerOneLine: false }],
    ['name before email in the investor block (older look)', { emailFirst: false }],
    ['negatives with a minus sign', { negatives: 'minus' }],
    ['Indian digit grouping', { grouping: 'indian' }],
    ['scheme lines wrapping onto three lines', { wrapWidth: 200 }],
    ['folio line printed once per folio', { repeatFolioLine: false }],
    ['page breaks everywhere (inside scheme blocks and tables)', { pageBottom: 300 }],
    ['opening balance right-aligned', { openingRight: true }],
    ['numeric columns shifted', { columnShift: 14 }],
    ['no portfolio summary, no side text', { portfolioSummary: false, sideText: false }],
    [
      'advisor missing everywhere',
      { dropAdvisor: true },
      (e) => e.mutual_funds.forEach((f) => f.schemes.forEach((s) => (s.additional_info.advisor = null))),
    ],
  ];
  it.each(variants)('%s', async (_name, change, fix) => {
    const pdf = await renderRegistrarDetailed(st, { ...STYLE_A, ...change });
    const { data, warnings } = parseRegistrar(await openPdf(new Uint8Array(pdf)));
    const want = structuredClone(expected);
    fix?.(want);
    expect(data).toEqual(want);
    expect(warnings).toEqual([]);
  });

  it.each([
    ['registrar_a', STYLE_A],
    ['registrar_b', STYLE_B],
  ] as const)('%s layout in an embedded, subset TrueType font (real widths and kerning) parses the same', async (_n, style) => {
    const pdf = await withEmbeddedFont(() => renderRegistrarDetailed(st, { ...style, pageBottom: 420 }));
    expect(pdf.includes(Buffer.from('/FontFile2'))).toBe(true);
    const { data, warnings } = parseRegistrar(await openPdf(new Uint8Array(pdf)));
    expect(data).toEqual(expected);
    expect(warnings).toEqual([]);
  });

  it('registrar_b older look (name first, email and mobile after the address) parses the same', async () => {
    const pdf = await renderRegistrarDetailed(st, { ...STYLE_B, emailFirst: false });
    const { data, warnings } = parseRegistrar(await openPdf(new Uint8Array(pdf)));
    expect(data).toEqual(expected);
    expect(warnings).toEqual([]);
  });

  it('summary in the older look (scheme cells without the RTA code) parses, rta_code null', async () => {
    const pdf = await renderRegistrarSummary(st, undefined, { codes: false });
    const { data, warnings } = parseRegistrar(await openPdf(new Uint8Array(pdf)));
    expect(data).toEqual(toExpected(st, 'summary'));
    expect(warnings).toEqual([]);
  });

  it('registrar_b layout with every trait flipped at once', async () => {
    const pdf = await renderRegistrarDetailed(st, { ...STYLE_B, omitHeader: true, wrapWidth: 250, pageBottom: 350 });
    const { data } = parseRegistrar(await openPdf(new Uint8Array(pdf)));
    expect(data).toEqual(expected);
  });

  it('self-checks report a units mismatch as a warning naming folio and scheme, and still parse', async () => {
    const broken = buildRegistrarStatement();
    broken.folios[0].schemes[0].close = broken.folios[0].schemes[0].close + 1;
    const pdf = await renderRegistrarDetailed(broken, STYLE_A);
    const { data, warnings } = parseRegistrar(await openPdf(new Uint8Array(pdf)));
    expect(data.mutual_funds).toHaveLength(7);
    expect(warnings.map((w) => w.code)).toContain('UnitsMismatch');
    expect(warnings.find((w) => w.code === 'UnitsMismatch')?.message).toMatch(
      /folio 1234567 \/ 89, scheme 'HDFC Flexi Cap Fund - Direct Plan - Growth Option'/,
    );
  });

  it('a large statement (several hundred transactions over many pages) parses exactly', async () => {
    const big = buildRegistrarStatement({ sipMonths: 60, repeat: 3 });
    const pdf = await renderRegistrarDetailed(big, STYLE_A);
    const { data } = parseRegistrar(await openPdf(new Uint8Array(pdf)));
    expect(data).toEqual(toExpected(big, 'detailed'));
    expect(data.mutual_funds.flatMap((f) => f.schemes.flatMap((s) => s.transactions)).length).toBeGreaterThan(500);
  });
});

describe('transaction classification', () => {
  const cases: [TransactionType, string, number | null][] = [
    ['PURCHASE', 'Purchase', 10.5],
    ['PURCHASE', 'Additional Purchase - via Internet', 3.2],
    ['PURCHASE_SIP', 'Systematic Investment (48/55)', 516.901],
    ['PURCHASE_SIP', 'SIP Purchase Instalment No - 7', 12.1],
    ['PURCHASE_SIP', 'Purchase SIP', 3.3],
    ['REDEMPTION', 'Redemption', -100],
    ['REDEMPTION', 'Redemption - ELECTRONIC PAYMENT', -2.5],
    ['SWITCH_IN', 'Switch In - From Axis Midcap Fund Direct Growth', 40],
    ['SWITCH_IN', 'Switch-In from HDFC Liquid Fund', 12],
    ['SWITCH_IN_MERGER', 'Switch-In - Merger from Axis Midcap Fund', 18],
    ['SWITCH_IN_MERGER', 'Units allotted on Merger from L&T Midcap Fund', 140.2],
    ['SWITCH_OUT', 'Switch Out - To Axis Liquid Fund Direct Growth', -10],
    ['SWITCH_OUT', 'Switch-Out to ICICI Prudential Liquid Fund', -5.2],
    ['SWITCH_OUT', '*Switch Out - To Quant Liquid Fund', -3],
    ['SWITCH_OUT_MERGER', 'Switch-Out - Merger to Axis Small Cap Fund', -500],
    ['SWITCH_OUT_MERGER', 'Units redeemed on Merger to HSBC Midcap Fund', -12],
    ['DIVIDEND_PAYOUT', 'IDCW Paid @ Rs.2.00 per unit', null],
    ['DIVIDEND_PAYOUT', 'Dividend Payout @ Rs 0.15 per unit', null],
    ['DIVIDEND_REINVEST', 'IDCW Reinvestment @ Rs.0.50 per unit', 7.7],
    ['DIVIDEND_REINVEST', 'Div. Reinvested @ Rs.1.25 per unit', 3.1],
    ['SEGREGATION', 'Units allotted - Segregated Portfolio 1', 1523.456],
    ['SEGREGATION', 'Segregation of units - Vodafone Idea portfolio', 12],
    ['STAMP_DUTY_TAX', '*** Stamp Duty ***', null],
    ['STAMP_DUTY_TAX', 'Stamp Duty on purchase', null],
    ['TDS_TAX', '*** TDS on above ***', null],
    ['TDS_TAX', 'TDS deducted on IDCW', null],
    ['STT_TAX', '*** STT Paid ***', null],
    ['STT_TAX', 'STT deducted on redemption', null],
    ['MISC', '*** Address Updated from KRA Data ***', null],
    ['MISC', '*** Registration of Nominee ***', null],
    ['MISC', '***Change of Bank Mandate***', null],
    ['DIVIDEND_PAYOUT', 'Dividend Payout', null],
    ['REVERSAL', 'Purchase Reversal - Payment not received', -12.3],
    ['REVERSAL', '*** Rejection - Insufficient Balance ***', -5],
    ['UNKNOWN', 'Transmission - Nil Units', 0],
    ['UNKNOWN', 'Consolidation of folios', 0],
  ];
  it('covers every type of the enum', () => {
    expect(new Set(cases.map((c) => c[0]))).toEqual(new Set(TransactionType.options));
  });
  it.each(cases)('%s <- %s', (type, desc, units) => {
    expect(classifyRegistrar(desc, units)).toBe(type);
  });
  it('scheme types', () => {
    expect(schemeType('HDFC Flexi Cap Fund - Direct Plan - Growth Option')).toBe('Equity');
    expect(schemeType('Aditya Birla Sun Life Banking & PSU Debt Fund')).toBe('Debt');
    expect(schemeType('HDFC Balanced Advantage Fund - IDCW Option')).toBe('Hybrid');
    expect(schemeType('Mirae Asset NYSE FANG+ ETF Fund of Fund')).toBe('Other');
  });
});

describe('registrar content traits of genuine statements (issue 24)', () => {
  const parse = async (pdf: Buffer) => parseRegistrar(await openPdf(new Uint8Array(pdf)));
  const detailed = async (change: Partial<DetailedLook>, registrar: 'registrar_a' | 'registrar_b', noIsin = false) => {
    const st = traitStatement(noIsin);
    const r = await parse(await detailedPdf(st, drawStyle(0), { ...plainDetailedLook(registrar), ...change }));
    return { st, ...r };
  };

  it('registrar_a: Stamp Duty / STT Paid rows keep type and text, *Switch Out is SWITCH_OUT, informational rows are MISC with no amount, `... MF` headings are fund houses', async () => {
    const { st, data, warnings } = await detailed({}, 'registrar_a');
    expect(data).toEqual(toExpected(st, 'detailed'));
    expect(warnings).toEqual([]);
    const txns = data.mutual_funds[0].schemes[0].transactions;
    expect(txns.find((t) => t.description === '*** Stamp Duty ***')?.type).toBe('STAMP_DUTY_TAX');
    expect(txns.find((t) => t.description === '*** STT Paid ***')?.type).toBe('STT_TAX');
    expect(txns.find((t) => t.description.startsWith('*Switch Out'))?.type).toBe('SWITCH_OUT');
    expect(txns.filter((t) => t.type === 'MISC').map((t) => [t.description, t.amount, t.units])).toEqual([
      ['***Address Updated***', null, null],
      ['***Change of Bank Mandate***', null, null],
    ]);
    expect(data.mutual_funds.map((f) => f.amc)).toEqual(['Quant MF', 'Navi MF']);
  });

  it('`KYC: OK  PAN: NOT OK` on its own line under the folio line goes to the folio, not to the holders', async () => {
    const { st, data } = await detailed({ kycOwnLine: true, jointLabels: true }, 'registrar_a');
    expect(data).toEqual(toExpected(st, 'detailed'));
    expect(data.mutual_funds[0].additional_info).toEqual({ pan: 'ABCPT1234Q', kyc: 'OK', pankyc: 'NOT OK' });
    expect(data.mutual_funds[0].linked_holders.map((h) => h.name)).toEqual(['Neel Prakash Desai', 'Meera Desai']);
  });

  it('an older statement with no ISIN on any scheme line: isin null and one warning, not one per scheme', async () => {
    const { st, data, warnings } = await detailed({}, 'registrar_a', true);
    expect(data).toEqual(toExpected(st, 'detailed'));
    expect(warnings.map((w) => w.code)).toEqual(['MissingIsin']);
  });

  it('registrar_b: the bare date line after each stamp-duty row drops nothing; Purchase SIP / Systematic Investment are PURCHASE_SIP; payouts are DIVIDEND_PAYOUT', async () => {
    const { st, data, warnings } = await detailed({ bareDateAfterStamp: true, registrarOwnLine: true }, 'registrar_b');
    expect(data).toEqual(toExpected(st, 'detailed'));
    expect(warnings).toEqual([]);
    const types = data.mutual_funds[0].schemes[0].transactions.map((t) => t.type);
    expect(types.filter((t) => t === 'PURCHASE_SIP')).toHaveLength(2);
    expect(types.filter((t) => t === 'DIVIDEND_PAYOUT')).toHaveLength(2);
  });

  it.each([
    ['registrar_a with ISIN column and RTA codes', plainSummaryLook('registrar_a')],
    ['registrar_b with no ISIN column', { ...plainSummaryLook('registrar_b'), isinColumn: false }],
    ['registrar_b with no ISIN column and no RTA codes', { ...plainSummaryLook('registrar_b'), isinColumn: false, codes: false }],
    [
      'registrar_a as real files: no ISIN or cost column, `n/n` folios, `Nav Value`, rows split over two baselines beside `#`',
      {
        ...plainSummaryLook('registrar_a'),
        isinColumn: false,
        costColumn: false,
        folioTight: true,
        priceLabel: 'Nav Value',
        splitRows: true,
      },
    ],
  ] as [string, SummaryLook][])('summary: %s', async (_n, look) => {
    const st = traitStatement();
    const { data, warnings } = await parse(await summaryPdf(st, drawStyle(0), look));
    const want = toExpected(st, 'summary', { summaryCodes: look.codes, summaryNoIsin: !look.isinColumn, summaryNoCost: !look.costColumn });
    if (look.folioTight) for (const f of want.mutual_funds) f.folio_number = f.folio_number.replace(' / ', '/');
    expect(data).toEqual(want);
    expect(warnings.map((w) => w.code)).toEqual(look.isinColumn ? [] : ['MissingIsin']);
  });
});

describe('numbers printed into each other', () => {
  it('splits numbers glued at a sign mark, and leaves digits glued to digits alone', async () => {
    const { splitGluedNumbers } = await import('../../src/parsers/common/table/index.js');
    const w = (text: string, x0 = 100) => ({ text, x0, x1: x0 + text.length * 5 });
    expect(splitGluedNumbers([w('Redemption'), w('(2,04,446.60)(501.714)', 300)]).map((x) => x.text)).toEqual([
      'Redemption',
      '(2,04,446.60)',
      '(501.714)',
    ]);
    expect(splitGluedNumbers([w('1,234.56(12.345)')]).map((x) => x.text)).toEqual(['1,234.56', '(12.345)']);
    expect(splitGluedNumbers([w('(5.00)-1.25')]).map((x) => x.text)).toEqual(['(5.00)', '-1.25']);
    expect(splitGluedNumbers([w('-12,83,019.40-1,867.028')]).map((x) => x.text)).toEqual(['-12,83,019.40', '-1,867.028']);
    expect(splitGluedNumbers([w('01-01-2024'), w('12-5.00')]).map((x) => x.text)).toEqual(['01-01-2024', '12-5.00']);
    expect(splitGluedNumbers([w('5,000.00123.456'), w('(Advisor:'), w('Plan(Growth)')]).map((x) => x.text)).toEqual([
      '5,000.00123.456',
      '(Advisor:',
      'Plan(Growth)',
    ]);
    const parts = splitGluedNumbers([w('(1.00)(2.00)', 0)]);
    expect(parts[0].x1).toBeCloseTo(parts[1].x0);
  });
});

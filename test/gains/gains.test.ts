/**
 * Unit tests of the gains rules (src/gains), each with a hand-worked example: the arithmetic is
 * written out next to the numbers it checks.
 */
import { describe, expect, it } from 'vitest';
import {
  addCalendarMonths,
  classifyScheme,
  computeGains,
  equityLtcgExemption,
  fyOf,
  normaliseFy,
  parseFmvFile,
  parseSchemeTypes,
  treatment,
} from '../../src/gains/index.js';
import { gainsCsv112A, gainsCsvOther } from '../../src/cli/render-gains.js';
import { GainsReport, type GainRow, type ParsedStatement, type SchemeType, type TransactionType } from '../../src/schema/index.js';

type T = [date: string, type: TransactionType, amount: number | null, units: number | null, nav: number | null];
interface S {
  name: string;
  isin: string;
  type?: SchemeType;
  open?: number;
  txns: T[];
  folio?: string;
}

/** A Parsed statement with the given schemes (only what the gains read is meaningful). */
function statement(...schemes: S[]): ParsedStatement {
  const folios = new Map<string, S[]>();
  for (const s of schemes) folios.set(s.folio ?? '1001', [...(folios.get(s.folio ?? '1001') ?? []), s]);
  return {
    meta: { cas_type: 'REGISTRAR_A_REGISTRAR_B', statement_period: { from: '2015-01-01', to: '2026-03-31' }, generated_at: null },
    investor: { name: 'Test Investor', pan: null, email: null, address: null, pincode: null, mobile: null, cas_id: null },
    summary: {
      total_value: 0,
      accounts: {
        demat: { count: 0, total_value: 0 },
        mutual_funds: { count: folios.size, total_value: 0 },
        insurance: { count: 0, total_value: 0 },
        nps: { count: 0, total_value: 0 },
      },
    },
    demat_accounts: [],
    mutual_funds: [...folios].map(([folio, ss]) => ({
      folio_number: folio,
      amc: 'Test AMC',
      registrar: 'CAMS',
      value: 0,
      linked_holders: [],
      additional_info: { pan: null, pankyc: null, kyc: null },
      schemes: ss.map((s) => ({
        isin: s.isin,
        name: s.name,
        type: s.type ?? 'Other',
        units: 0,
        nav: null,
        value: 0,
        cost: null,
        gain: { absolute: null, percentage: null },
        nominees: [],
        additional_info: { advisor: null, rta_code: null, amfi: null, is_demat: false, open_units: s.open ?? 0, close_units: 0 },
        transactions: s.txns.map(([date, type, amount, units, nav]) => ({
          date,
          description: type,
          type,
          amount,
          units,
          nav,
          balance: null,
          dividend_rate: null,
          additional_info: {
            credit: null,
            debit: null,
            stamp_duty: null,
            price: null,
            income_distribution: null,
            capital_withdrawal: null,
            order_no: null,
          },
        })),
      })),
    })),
    insurance: { life_insurance_policies: [] },
    nps: [],
  };
}

const EQ = { name: 'Test Flexi Cap Fund - Direct Growth', isin: 'INF000E01AA1' };
const DEBT = { name: 'Test Corporate Bond Fund - Direct Growth', isin: 'INF000D01AA2' };
const rows = (r: GainsReport): GainRow[] => r.years.flatMap((y) => y.schemes.flatMap((s) => s.rows));
const pick = (r: GainRow): Partial<GainRow> => ({
  units: r.units,
  acquisition_date: r.acquisition_date,
  cost: r.cost,
  transfer_value: r.transfer_value,
  gain: r.gain,
  term: r.term,
  tax_class: r.tax_class,
});

describe('dates and years', () => {
  it('financial years run April to March; months clamp to the month end', () => {
    expect(fyOf('2025-03-31')).toBe('2024-25');
    expect(fyOf('2025-04-01')).toBe('2025-26');
    expect(normaliseFy('FY2025-26')).toBe('2025-26');
    expect(normaliseFy('2025-2026')).toBe('2025-26');
    expect(normaliseFy('2025-27')).toBeNull();
    // 29 Feb 2024 + 12 months: there is no 29 Feb 2025, so 28 Feb 2025.
    expect(addCalendarMonths('2024-02-29', 12)).toBe('2025-02-28');
    expect(addCalendarMonths('2023-01-31', 25)).toBe('2025-02-28');
  });

  it('the s.112A exemption is 1,00,000 up to FY 2023-24 and 1,25,000 from FY 2024-25', () => {
    expect(equityLtcgExemption('2023-24')).toBe(100000);
    expect(equityLtcgExemption('2024-25')).toBe(125000);
  });
});

describe('FIFO', () => {
  it("a partial redemption spans three purchase lots; stamp duty is in each lot's cost; STT recorded beside the sale", () => {
    const r = computeGains([
      statement({
        ...EQ,
        txns: [
          ['2024-01-10', 'PURCHASE', 1000, 100, 10],
          ['2024-01-10', 'STAMP_DUTY_TAX', 0.05, null, null],
          ['2024-02-10', 'PURCHASE_SIP', 1100, 100, 11],
          ['2024-02-10', 'STAMP_DUTY_TAX', 0.06, null, null],
          ['2024-03-11', 'PURCHASE_SIP', 1200, 100, 12],
          ['2024-03-11', 'STAMP_DUTY_TAX', 0.06, null, null],
          ['2025-03-03', 'REDEMPTION', -3500, -250, 14],
          ['2025-03-03', 'STT_TAX', 0.04, null, null],
          ['2025-04-07', 'REDEMPTION', -750, -50, 15],
        ],
      }),
    ]);
    expect(rows(r).map(pick)).toEqual([
      // Lot 1: 100 of 250 units sold. Cost 1000.00 + 0.05 stamp = 1000.05. Value 3500.00 x 100/250 = 1400.00.
      // Held 10 Jan 2024 -> 3 Mar 2025, more than 12 months: long; sold on or after 23 Jul 2024: 12.5%. Gain 1400.00 - 1000.05 = 399.95.
      {
        units: 100,
        acquisition_date: '2024-01-10',
        cost: 1000.05,
        transfer_value: 1400,
        gain: 399.95,
        term: 'long',
        tax_class: 'equity_ltcg_12_5',
      },
      // Lot 2: 100 of the remaining 150 units. Cost 1100.00 + 0.06 = 1100.06. Value (3500.00 - 1400.00) x 100/150 = 1400.00.
      // 10 Feb 2024 + 12 months = 10 Feb 2025 < 3 Mar 2025: long. Gain 1400.00 - 1100.06 = 299.94.
      {
        units: 100,
        acquisition_date: '2024-02-10',
        cost: 1100.06,
        transfer_value: 1400,
        gain: 299.94,
        term: 'long',
        tax_class: 'equity_ltcg_12_5',
      },
      // Lot 3: the last 50 units of its 100. Cost (1200.00 + 0.06) x 50/100 = 600.03. Value: what is left, 3500 - 2800 = 700.00.
      // 11 Mar 2024 + 12 months = 11 Mar 2025 > 3 Mar 2025: short, s.111A at 20%. Gain 700.00 - 600.03 = 99.97.
      {
        units: 50,
        acquisition_date: '2024-03-11',
        cost: 600.03,
        transfer_value: 700,
        gain: 99.97,
        term: 'short',
        tax_class: 'equity_stcg_20',
      },
      // The second redemption takes lot 3's other 50 units: cost is the remainder 1200.06 - 600.03 = 600.03; value 750.00; gain 149.97; long now.
      {
        units: 50,
        acquisition_date: '2024-03-11',
        cost: 600.03,
        transfer_value: 750,
        gain: 149.97,
        term: 'long',
        tax_class: 'equity_ltcg_12_5',
      },
    ]);
    // STT 0.04 shared by units: 0.04 x 100/250 = 0.016 -> 0.02; (0.04 - 0.02) x 100/150 = 0.013 -> 0.01; the last 0.01.
    expect(rows(r).map((x) => x.stt)).toEqual([0.02, 0.01, 0.01, 0]);
    expect(rows(r).map((x) => x.stamp_duty)).toEqual([0.05, 0.06, 0.03, 0.03]);
    // Totals per year and class. FY 2024-25: value 1400 + 1400 + 700 = 3500; cost 1000.05 + 1100.06 + 600.03 = 2700.14;
    // LTCG 399.95 + 299.94 = 699.89; STCG 99.97. FY 2025-26: LTCG 149.97.
    expect(r.years.map((y) => [y.fy, y.totals])).toEqual([
      ['2024-25', [{ asset_class: 'equity', transfer_value: 3500, cost: 2700.14, stcg: 99.97, ltcg: 699.89, incomplete_rows: 0 }]],
      ['2025-26', [{ asset_class: 'equity', transfer_value: 750, cost: 600.03, stcg: 0, ltcg: 149.97, incomplete_rows: 0 }]],
    ]);
    expect(GainsReport.safeParse(r).success).toBe(true);
  });

  it('a switch out then in: the switch-out is a transfer, the switch-in a new lot of the other scheme', () => {
    const liquid = { name: 'Test Liquid Fund - Direct Growth', isin: 'INF000D01LQ3' };
    const r = computeGains([
      statement(
        {
          ...EQ,
          txns: [
            ['2024-06-01', 'PURCHASE', 1000, 100, 10],
            ['2024-06-01', 'STAMP_DUTY_TAX', 0.05, null, null],
            ['2025-05-05', 'SWITCH_OUT', -1200, -100, 12],
          ],
        },
        {
          ...liquid,
          txns: [
            ['2025-05-05', 'SWITCH_IN', 1200, 1, 1200],
            ['2025-08-01', 'REDEMPTION', -1210, -1, 1210],
          ],
        },
      ),
    ]);
    expect(rows(r).map(pick)).toEqual([
      // Switch-out: 100 units at 12 = 1200.00; cost 1000.00 + 0.05 = 1000.05; gain 199.95.
      // 1 Jun 2024 + 12 months = 1 Jun 2025, not before 5 May 2025: short, 20% (after 23 Jul 2024).
      {
        units: 100,
        acquisition_date: '2024-06-01',
        cost: 1000.05,
        transfer_value: 1200,
        gain: 199.95,
        term: 'short',
        tax_class: 'equity_stcg_20',
      },
      // Switch-in: a purchase of the liquid fund on 5 May 2025 at 1200.00. Redeemed for 1210.00: gain 10.00;
      // debt acquired on or after 1 Apr 2023: s.50AA short term.
      {
        units: 1,
        acquisition_date: '2025-05-05',
        cost: 1200,
        transfer_value: 1210,
        gain: 10,
        term: 'short',
        tax_class: 'deemed_stcg_50aa',
      },
    ]);
  });

  it('a reversal cancels the purchase it reverses (and its stamp duty), and is no transfer', () => {
    const r = computeGains([
      statement({
        ...EQ,
        txns: [
          ['2025-01-05', 'PURCHASE', 500, 50, 10],
          ['2025-01-05', 'STAMP_DUTY_TAX', 0.03, null, null],
          ['2025-01-06', 'PURCHASE', 1000, 100, 10],
          ['2025-01-06', 'STAMP_DUTY_TAX', 0.05, null, null],
          ['2025-01-12', 'REVERSAL', -500, -50, 10],
          ['2025-06-02', 'REDEMPTION', -1100, -100, 11],
        ],
      }),
    ]);
    // The 50 units of 5 Jan are reversed: the redemption of 100 units takes the 6 Jan lot only,
    // cost 1000.00 + 0.05 = 1000.05, value 1100.00, gain 99.95, short (20%). One row, not a row for the reversal.
    expect(rows(r).map(pick)).toEqual([
      {
        units: 100,
        acquisition_date: '2025-01-06',
        cost: 1000.05,
        transfer_value: 1100,
        gain: 99.95,
        term: 'short',
        tax_class: 'equity_stcg_20',
      },
    ]);
    expect(r.issues).toEqual([]);
  });

  it('a purchase taken back as a "redemption" with a stamp-duty refund, and re-booked the same day, leaves no row', () => {
    const r = computeGains([
      statement({
        ...EQ,
        txns: [
          ['2022-05-19', 'PURCHASE_SIP', 2999.85, 60, 49.9975],
          ['2022-05-19', 'STAMP_DUTY_TAX', 0.15, null, null],
          ['2022-09-06', 'REDEMPTION', -2999.85, -58.29, 51.4646],
          ['2022-09-06', 'STAMP_DUTY_TAX', -0.15, null, null],
          ['2022-09-06', 'PURCHASE_SIP', 2999.85, 58.29, 51.4646],
          ['2022-09-06', 'STAMP_DUTY_TAX', 0.15, null, null],
          ['2023-09-07', 'REDEMPTION', -3600, -60, 60],
        ],
      }),
    ]);
    // The -58.29 units with a refunded stamp duty take back the purchase of the same units the same day:
    // both leave. The only transfer, 60 units on 7 Sep 2023, takes the lot of 19 May 2022:
    // cost 2999.85 + 0.15 = 3000.00, value 3600.00, gain 600.00; held > 12 months, sold before 23 Jul 2024: 10%.
    expect(rows(r).map(pick)).toEqual([
      { units: 60, acquisition_date: '2022-05-19', cost: 3000, transfer_value: 3600, gain: 600, term: 'long', tax_class: 'equity_ltcg_10' },
    ]);
    expect(r.issues).toEqual([]);
  });

  it('a merger of schemes is no transfer: the new units keep the old cost and date (s.47(xix), s.49(2AD), s.2(42A))', () => {
    const target = { name: 'Test Large Cap Fund - Direct Growth', isin: 'INF000E01BB2' };
    const r = computeGains([
      statement(
        {
          ...EQ,
          txns: [
            ['2023-01-10', 'PURCHASE', 1000, 100, 10],
            ['2023-01-10', 'STAMP_DUTY_TAX', 0.05, null, null],
            ['2024-06-14', 'SWITCH_OUT_MERGER', -1500, -100, 15],
          ],
        },
        {
          ...target,
          txns: [
            ['2024-06-14', 'SWITCH_IN_MERGER', 1500, 75, 20],
            ['2024-09-02', 'REDEMPTION', -1650, -75, 22],
          ],
        },
      ),
    ]);
    const [out, sale] = rows(r);
    // The merger row: 100 old units, 1500.00 - 1000.05 = 499.95, flagged and left out of the totals.
    expect(out).toMatchObject({ units: 100, gain: 499.95, flags: ['merger'] });
    // The 75 new units carry the lot of 10 Jan 2023 (cost 1000.00 + 0.05 = 1000.05). Sold 2 Sep 2024 for 75 x 22 = 1650.00:
    // gain 1650.00 - 1000.05 = 649.95, held since 10 Jan 2023 (> 12 months): long, 12.5%.
    expect(pick(sale)).toEqual({
      units: 75,
      acquisition_date: '2023-01-10',
      cost: 1000.05,
      transfer_value: 1650,
      gain: 649.95,
      term: 'long',
      tax_class: 'equity_ltcg_12_5',
    });
    expect(sale.flags).toEqual([]);
    expect(r.years[0].totals).toEqual([
      { asset_class: 'equity', transfer_value: 1650, cost: 1000.05, stcg: 0, ltcg: 649.95, incomplete_rows: 1 },
    ]);
  });

  it('units from the opening balance have no date or cost: flagged, never guessed', () => {
    const r = computeGains([
      statement({
        ...EQ,
        open: 10,
        txns: [
          ['2025-02-01', 'PURCHASE', 100, 10, 10],
          ['2025-06-02', 'REDEMPTION', -240, -20, 12],
        ],
      }),
    ]);
    // 20 units: the 10 opening units first (unknown cost), then 10 of 1 Feb 2025: value 240 x 10/20 = 120.00, cost 100.00, gain 20.00.
    expect(rows(r).map((x) => [x.units, x.acquisition_date, x.cost, x.transfer_value, x.gain, x.flags])).toEqual([
      [10, null, null, 120, null, ['opening_balance']],
      [10, '2025-02-01', 100, 120, 20, []],
    ]);
    expect(r.years[0].totals[0]).toMatchObject({ stcg: 20, incomplete_rows: 1 });
    expect(r.issues[0].message).toMatch(/opening balance/);
  });
});

describe('grandfathering (s.112A(2), s.55(2)(ac)): equity units acquired before 1 Feb 2018', () => {
  // 100 units bought 1 Jun 2017 for 5000.00 (NAV 50), sold 2 Sep 2024.
  const sold = (value: number): ParsedStatement =>
    statement({
      ...EQ,
      txns: [
        ['2017-06-01', 'PURCHASE', 5000, 100, 50],
        ['2024-09-02', 'REDEMPTION', -value, -100, value / 100],
      ],
    });
  const fmv = (nav: number): Map<string, number> => new Map([[EQ.isin, nav]]);
  const one = (st: ParsedStatement, nav?: number): GainRow => rows(computeGains([st], nav === undefined ? {} : { fmv: fmv(nav) }))[0];

  it('FMV above cost, below the sale value: cost = FMV', () => {
    // Sale 9000.00; FMV 100 x 60 = 6000.00. max(5000, min(6000, 9000)) = 6000; gain 9000 - 6000 = 3000.00, 12.5%.
    expect(one(sold(9000), 60)).toMatchObject({
      fmv_nav: 60,
      fmv: 6000,
      grandfathered_cost: 6000,
      cost: 6000,
      gain: 3000,
      acquisition_cost: 5000,
      tax_class: 'equity_ltcg_12_5',
    });
  });
  it('FMV above the sale value: cost = sale value, no gain', () => {
    // FMV 100 x 100 = 10000.00. max(5000, min(10000, 9000)) = 9000; gain 0.
    expect(one(sold(9000), 100)).toMatchObject({ fmv: 10000, grandfathered_cost: 9000, gain: 0 });
  });
  it('FMV below cost: the actual cost stays', () => {
    // FMV 100 x 40 = 4000.00. max(5000, min(4000, 9000)) = 5000; gain 4000.00.
    expect(one(sold(9000), 40)).toMatchObject({ fmv: 4000, grandfathered_cost: 5000, gain: 4000 });
  });
  it('sale below cost with FMV above both: the loss is on the actual cost', () => {
    // Sale 4500.00, FMV 6000.00. max(5000, min(6000, 4500)) = 5000; gain 4500 - 5000 = -500.00.
    expect(one(sold(4500), 60)).toMatchObject({ fmv: 6000, grandfathered_cost: 5000, gain: -500 });
  });
  it('no NAV of 31 Jan 2018: the row is flagged and its gain left unknown', () => {
    const r = computeGains([sold(9000)]);
    expect(rows(r)[0]).toMatchObject({ cost: null, gain: null, flags: ['fmv_missing'] });
    expect(r.years[0].totals[0].incomplete_rows).toBe(1);
    expect(r.issues.some((i) => /--fmv/.test(i.message))).toBe(true);
  });
  it('reads the NAV of 31 Jan 2018 from the NAV history download; Schedule 112A shows BE and the FMV columns', () => {
    const file = [
      'Scheme Code;Scheme Name;ISIN Div Payout/ISIN Growth;ISIN Div Reinvestment;Net Asset Value;Repurchase Price;Sale Price;Date',
      '',
      'Open Ended Schemes(Equity Scheme - Flexi Cap Fund)',
      '',
      'Test Mutual Fund',
      '',
      `100001;Test Flexi Cap Fund - Direct Growth;${EQ.isin};;59.8;;;30-Jan-2018`,
      `100001;Test Flexi Cap Fund - Direct Growth;${EQ.isin};;60;;;31-Jan-2018`,
    ].join('\r\n');
    const navs = parseFmvFile(file);
    expect(navs.get(EQ.isin)).toBe(60);
    const r = computeGains([sold(9000)], { fmv: navs });
    const line = gainsCsv112A(r).trim().split('\n')[1].split(',');
    // 1a BE (before 1 Feb 2018), 1b AE (on/after 23 Jul 2024), units 100, price 90.0000, value 9000.00, col 7 = 6000.00,
    // col 8 actual cost 5000.00, col 9 = min(6000, 9000) = 6000.00, col 10 NAV 60, col 11 6000.00, col 12 0.00, col 13 6000.00, col 14 3000.00.
    expect(line).toEqual([
      'BE',
      'AE',
      EQ.isin,
      EQ.name,
      '100',
      '90.0000',
      '9000.00',
      '6000.00',
      '5000.00',
      '6000.00',
      '60',
      '6000.00',
      '0.00',
      '6000.00',
      '3000.00',
    ]);
  });
});

describe('the 23 July 2024 change (Finance (No. 2) Act 2024)', () => {
  it('equity sales on each side of 23 July 2024', () => {
    const r = computeGains([
      statement({
        ...EQ,
        txns: [
          ['2023-01-02', 'PURCHASE', 1000, 100, 10],
          ['2023-01-02', 'STAMP_DUTY_TAX', 0.05, null, null],
          ['2024-03-01', 'PURCHASE', 2000, 100, 20],
          ['2024-07-22', 'REDEMPTION', -1500, -100, 15],
          ['2024-07-23', 'REDEMPTION', -2500, -100, 25],
        ],
      }),
    ]);
    expect(rows(r).map(pick)).toEqual([
      // 22 Jul 2024, lot of 2 Jan 2023 (held > 12 months): LTCG under the old rate 10%. 1500.00 - 1000.05 = 499.95.
      {
        units: 100,
        acquisition_date: '2023-01-02',
        cost: 1000.05,
        transfer_value: 1500,
        gain: 499.95,
        term: 'long',
        tax_class: 'equity_ltcg_10',
      },
      // 23 Jul 2024, lot of 1 Mar 2024 (held < 12 months): STCG under the new rate 20%. 2500.00 - 2000.00 = 500.00.
      {
        units: 100,
        acquisition_date: '2024-03-01',
        cost: 2000,
        transfer_value: 2500,
        gain: 500,
        term: 'short',
        tax_class: 'equity_stcg_20',
      },
    ]);
    expect(rows(r).map((x) => x.rate)).toEqual([0.1, 0.2]);
    // The same dates the other way round: STCG before is 15%, LTCG after is 12.5%.
    expect(treatment('equity', '2024-03-01', '2024-07-22')).toMatchObject({ term: 'short', tax_class: 'equity_stcg_15', rate: 0.15 });
    expect(treatment('equity', '2023-01-02', '2024-07-23')).toMatchObject({ term: 'long', tax_class: 'equity_ltcg_12_5', rate: 0.125 });
    // Exactly 12 months is not "more than" 12 months: 2 Jan 2023 -> 2 Jan 2024 is short.
    expect(treatment('equity', '2023-01-02', '2024-01-02').term).toBe('short');
    expect(treatment('equity', '2023-01-02', '2024-01-03').term).toBe('long');
  });
});

describe('debt units (s.50AA; s.2(42A) 36 -> 24 months)', () => {
  it('a debt lot bought before and one bought after 1 April 2023', () => {
    const r = computeGains([
      statement({
        ...DEBT,
        txns: [
          ['2023-03-31', 'PURCHASE', 1000, 100, 10],
          ['2023-04-01', 'PURCHASE', 1000, 100, 10],
          ['2025-04-01', 'REDEMPTION', -1200, -100, 12],
          ['2026-05-04', 'REDEMPTION', -1300, -100, 13],
        ],
      }),
    ]);
    expect(rows(r).map(pick)).toEqual([
      // Bought 31 Mar 2023 (before s.50AA), sold 1 Apr 2025 (after 23 Jul 2024: 24 months). 31 Mar 2023 + 24 months = 31 Mar 2025 < 1 Apr 2025: long, 12.5%.
      // Gain 1200.00 - 1000.00 = 200.00.
      { units: 100, acquisition_date: '2023-03-31', cost: 1000, transfer_value: 1200, gain: 200, term: 'long', tax_class: 'ltcg_12_5' },
      // Bought 1 Apr 2023: s.50AA, short term although held 3 years. Gain 1300.00 - 1000.00 = 300.00 at slab rates.
      {
        units: 100,
        acquisition_date: '2023-04-01',
        cost: 1000,
        transfer_value: 1300,
        gain: 300,
        term: 'short',
        tax_class: 'deemed_stcg_50aa',
      },
    ]);
  });

  it('older debt units by the holding period in force on the transfer date', () => {
    // Before 23 Jul 2024: 36 months. 4 Jan 2021 + 36 months = 4 Jan 2024.
    expect(treatment('debt', '2021-01-04', '2024-01-04')).toMatchObject({ term: 'short', tax_class: 'stcg_slab', rate: null });
    expect(treatment('debt', '2021-01-04', '2024-01-05')).toMatchObject({
      term: 'long',
      tax_class: 'ltcg_20_indexed',
      rate: 0.2,
      flags: ['indexation_not_computed'],
    });
    // On or after 23 Jul 2024: 24 months. 1 Sep 2022 + 24 months = 1 Sep 2024.
    expect(treatment('debt', '2022-09-01', '2024-09-01')).toMatchObject({ term: 'short', tax_class: 'stcg_slab' });
    expect(treatment('debt', '2022-09-01', '2024-09-02')).toMatchObject({ term: 'long', tax_class: 'ltcg_12_5', rate: 0.125 });
    // Other (gold, FoF) acquired after 1 Apr 2023: s.50AA until 31 Mar 2025, then the 24-month rule.
    expect(treatment('other', '2023-05-02', '2025-03-31').tax_class).toBe('deemed_stcg_50aa');
    expect(treatment('other', '2023-05-02', '2025-05-03')).toMatchObject({ term: 'long', tax_class: 'ltcg_12_5' });
    expect(treatment('unknown', '2023-05-02', '2025-05-03')).toMatchObject({ term: null, tax_class: 'unknown', flags: ['class_unknown'] });
  });
});

describe('classification', () => {
  it('by name words, then the statement type; the override file wins; unknown is reported', () => {
    expect(classifyScheme('Axis ELSS Tax Saver Fund - Direct Growth', null, null).asset_class).toBe('equity');
    expect(classifyScheme('Mirae Asset Aggressive Hybrid Fund', 'Hybrid', null).asset_class).toBe('equity');
    expect(classifyScheme('Kotak Equity Arbitrage Fund', null, null).asset_class).toBe('equity');
    expect(classifyScheme('Axis Liquid Fund - Direct Growth', 'Equity', null).asset_class).toBe('debt');
    expect(classifyScheme('Aditya Birla Sun Life Banking & PSU Debt Fund', null, null).asset_class).toBe('debt');
    expect(classifyScheme('Mirae Asset NYSE FANG+ ETF Fund of Fund', null, null).asset_class).toBe('other');
    expect(classifyScheme('Nippon India Gold Savings Fund', null, null).asset_class).toBe('other');
    const bal = classifyScheme('HDFC Balanced Advantage Fund - IDCW', 'Hybrid', null);
    expect(bal).toMatchObject({ asset_class: 'other', source: 'name' });
    expect(bal.note).toMatch(/--scheme-types/);
    // Sector and theme words are equity (after the debt words: 'Banking & PSU' stays debt).
    expect(classifyScheme('Test Banking & Financial Services Fund - Growth', null, null).asset_class).toBe('equity');
    expect(classifyScheme('Test Top 100 Fund - Growth', null, null).asset_class).toBe('equity');
    expect(classifyScheme('Test Opaque Plan', 'Debt', null)).toMatchObject({ asset_class: 'debt', source: 'statement' });
    expect(classifyScheme('Test Opaque Plan', 'Other', null)).toMatchObject({ asset_class: 'unknown', source: 'none' });
    const overrides = parseSchemeTypes('ISIN,type\nINF179K01VZ3,equity\n# comment\n');
    expect(classifyScheme('HDFC Balanced Advantage Fund', 'Hybrid', 'INF179K01VZ3', overrides)).toMatchObject({
      asset_class: 'equity',
      source: 'override',
    });
    expect(() => parseSchemeTypes('INF179K01VZ3,shares')).toThrow(/equity\|debt\|other/);
  });

  it('an unknown class: the gain is computed, the term and tax class are not, and the scheme is reported', () => {
    const r = computeGains([
      statement({
        name: 'Test Opaque Plan',
        isin: 'INF000X01AA9',
        type: 'Other',
        txns: [
          ['2024-04-02', 'PURCHASE', 1000, 100, 10],
          ['2025-06-02', 'REDEMPTION', -1100, -100, 11],
        ],
      }),
    ]);
    expect(rows(r)[0]).toMatchObject({ asset_class: 'unknown', gain: 100, term: null, tax_class: 'unknown', flags: ['class_unknown'] });
    expect(r.issues[0].message).toMatch(/unknown/);
    // The row goes to the second CSV with its flags; none to Schedule 112A.
    expect(gainsCsv112A(r).trim().split('\n')).toHaveLength(1);
    expect(gainsCsvOther(r)).toMatch(/class_unknown/);
  });

  it('--fy keeps one financial year', () => {
    const st = statement({
      ...EQ,
      txns: [
        ['2023-04-03', 'PURCHASE', 1000, 100, 10],
        ['2024-05-02', 'REDEMPTION', -550, -50, 11],
        ['2025-05-02', 'REDEMPTION', -600, -50, 12],
      ],
    });
    expect(computeGains([st], { fy: '2025-26' }).years.map((y) => y.fy)).toEqual(['2025-26']);
    expect(() => computeGains([st], { fy: 'next year' })).toThrow(/2025-26/);
  });
});

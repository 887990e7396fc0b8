/**
 * XIRR (src/portfolio/xirr.ts) and the rules that decide the number (src/portfolio/rules.ts), each
 * worked by hand in the comments: a rate r solves sum(cf_i / (1 + r)^(days_i / 365)) = 0. The
 * solver is checked against a published spreadsheet example and against bisection, an independent
 * method, on every case; cases with no rate answer null and the reason, never 0 or NaN.
 */
import { describe, expect, it } from 'vitest';
import { computePortfolio, MixedInvestorsError, newton, timed, xirr, type Flow } from '../../src/portfolio/index.js';
import type { ParsedStatement, Scheme, Transaction, TransactionType } from '../../src/schema/index.js';
import { Portfolio } from '../../src/schema/portfolio.js';

/** Present value of the flows at rate r: the quantity XIRR makes zero. */
const npv = (flows: Flow[], r: number): number => timed(flows).reduce((a, { t, cf }) => a + cf / Math.pow(1 + r, t), 0);

/** Bisection written here, apart from the solver: the sign change of npv between -99% and 1000%. */
function bisection(flows: Flow[]): number {
  let [lo, hi] = [-0.99, 10];
  expect(Math.sign(npv(flows, lo))).not.toBe(Math.sign(npv(flows, hi)));
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (Math.sign(npv(flows, mid)) === Math.sign(npv(flows, lo))) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

describe('the XIRR solver', () => {
  it('one year, 10%: 1000 in on 2023-01-01, 1100 back on 2024-01-01', () => {
    // 365 days = 1 year; 1100 / (1 + r)^1 = 1000  =>  r = 1100 / 1000 - 1 = 0.1.
    const r = xirr([
      { date: '2023-01-01', amount: -1000 },
      { date: '2024-01-01', amount: 1100 },
    ]);
    expect(r.reason).toBeNull();
    expect(r.rate).toBeCloseTo(0.1, 12);
  });

  it('two years, 10%: 1000 in on 2021-01-01, 1210 back on 2023-01-01', () => {
    // 730 days = 2 years; 1210 / (1 + r)^2 = 1000  =>  (1 + r)^2 = 1.21  =>  r = 0.1.
    expect(
      xirr([
        { date: '2021-01-01', amount: -1000 },
        { date: '2023-01-01', amount: 1210 },
      ]).rate,
    ).toBeCloseTo(0.1, 12);
  });

  it('a leap year counts 366 days over 365: 1000 in on 2024-01-01, 1100 back on 2025-01-01', () => {
    // 366 days = 366/365 years; (1 + r)^(366/365) = 1.1  =>  r = 1.1^(365/366) - 1 = 0.09972...
    const r = xirr([
      { date: '2024-01-01', amount: -1000 },
      { date: '2025-01-01', amount: 1100 },
    ]).rate!;
    expect(r).toBeCloseTo(Math.pow(1.1, 365 / 366) - 1, 12);
    expect(r).toBeLessThan(0.1);
  });

  it("the spreadsheet vendor's published XIRR example: 0.373362535 (37.34%)", () => {
    // The example of the XIRR function's documentation: -10000 on 1 Jan 2008, then 2750, 4250, 3250
    // and 2750 back on 1 Mar 2008, 30 Oct 2008, 15 Feb 2009 and 1 Apr 2009; stated result 0.373362535.
    const flows: Flow[] = [
      { date: '2008-01-01', amount: -10000 },
      { date: '2008-03-01', amount: 2750 },
      { date: '2008-10-30', amount: 4250 },
      { date: '2009-02-15', amount: 3250 },
      { date: '2009-04-01', amount: 2750 },
    ];
    const r = xirr(flows);
    expect(r.method).toBe('newton');
    expect(r.rate).toBeCloseTo(0.373362535, 8);
    expect(bisection(flows)).toBeCloseTo(0.373362535, 8);
  });

  const cases: [string, Flow[]][] = [
    [
      'a monthly SIP of 5000 for a year, worth 64000',
      [
        ...Array.from({ length: 12 }, (_, i) => ({ date: `2024-${String(i + 1).padStart(2, '0')}-05`, amount: -5000 })),
        { date: '2025-01-05', amount: 64000 },
      ],
    ],
    [
      'a loss: 10000 in, 7000 back after 400 days',
      [
        { date: '2020-01-01', amount: -10000 },
        { date: '2021-02-04', amount: 7000 },
      ],
    ],
    [
      'money in, out and in again',
      [
        { date: '2020-01-01', amount: -10000 },
        { date: '2020-06-30', amount: 4000 },
        { date: '2021-01-15', amount: -2000 },
        { date: '2022-03-31', amount: 11000 },
      ],
    ],
    [
      '200% in a year (far from the 10% start)',
      [
        { date: '2022-01-01', amount: -100 },
        { date: '2023-01-01', amount: 300 },
      ],
    ],
    [
      '-40% in a year',
      [
        { date: '2022-01-01', amount: -100 },
        { date: '2023-01-01', amount: 60 },
      ],
    ],
  ];
  it.each(cases)('Newton and bisection agree: %s', (_name, flows) => {
    const n = xirr(flows, { method: 'newton' });
    const b = xirr(flows, { method: 'bisection' });
    expect(n.method).toBe('newton');
    expect(b.method).toBe('bisection');
    expect(n.rate).toBeCloseTo(b.rate!, 8);
    // And the test's own bisection, and the rate is a root.
    expect(n.rate).toBeCloseTo(bisection(flows), 8);
    expect(Math.abs(npv(flows, n.rate!))).toBeLessThan(1e-6);
  });

  it('where Newton leaves the domain, bisection answers', () => {
    // 100 in, 5 back a year later: f(r) = -100 + 5/(1 + r), root r = 5/100 - 1 = -0.95.
    // Newton from 10%: f(0.1) = -95.4545, f'(0.1) = -5/1.21 = -4.1322, next = 0.1 - 95.4545/4.1322 = -23.0: below -100%.
    const flows: Flow[] = [
      { date: '2022-01-01', amount: -100 },
      { date: '2023-01-01', amount: 5 },
    ];
    expect(newton(timed(flows))).toBeNull();
    const r = xirr(flows);
    expect(r.method).toBe('bisection');
    expect(r.rate).toBeCloseTo(-0.95, 9);
    expect(bisection(flows)).toBeCloseTo(-0.95, 9);
  });

  it('no solution is said, with the reason: never 0% or NaN', () => {
    const cases: [Flow[], RegExp][] = [
      [[], /no cash flows/],
      [
        [
          { date: '2022-01-01', amount: -100 },
          { date: '2023-01-01', amount: -50 },
        ],
        /every cash flow is money in/,
      ],
      [
        [
          { date: '2022-01-01', amount: 100 },
          { date: '2023-01-01', amount: 50 },
        ],
        /no money went in/,
      ],
      [
        [
          { date: '2022-01-01', amount: -100 },
          { date: '2022-01-01', amount: 120 },
        ],
        /one day/,
      ],
      // 100 in, 10^30 back after 30 days: r = (10^28)^(365/30) - 1, far above any bracket.
      [
        [
          { date: '2022-01-01', amount: -100 },
          { date: '2022-01-31', amount: 1e30 },
        ],
        /no rate between/,
      ],
    ];
    for (const [flows, reason] of cases) {
      const r = xirr(flows);
      expect(r.rate).toBeNull();
      expect(r.reason).toMatch(reason);
    }
  });
});

/** A minimal registrar statement: one folio per entry, its schemes and their rows, valued at `to`. */
function statement(o: {
  from: string | null;
  to: string;
  pan?: string;
  folios: {
    folio: string;
    amc?: string;
    schemes: { isin: string; name?: string; open?: number; units: number; value: number; rows?: Partial<Transaction>[] }[];
  }[];
}): ParsedStatement {
  const row = (t: Partial<Transaction>): Transaction => ({
    date: t.date!,
    description: t.description ?? t.type!,
    type: t.type as TransactionType,
    amount: t.amount ?? null,
    units: t.units ?? null,
    nav: t.nav ?? null,
    balance: t.balance ?? null,
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
  });
  return {
    meta: { cas_type: 'REGISTRAR_A_REGISTRAR_B', statement_period: { from: o.from, to: o.to }, generated_at: null },
    investor: { name: 'Test Investor', pan: o.pan ?? 'ABCDE1234F', email: null, address: null, pincode: null, mobile: null, cas_id: null },
    summary: {
      total_value: 0,
      accounts: {
        demat: { count: 0, total_value: 0 },
        mutual_funds: { count: 0, total_value: 0 },
        insurance: { count: 0, total_value: 0 },
        nps: { count: 0, total_value: 0 },
      },
    },
    demat_accounts: [],
    mutual_funds: o.folios.map((f) => ({
      folio_number: f.folio,
      amc: f.amc ?? 'Test AMC',
      registrar: null,
      value: f.schemes.reduce((a, s) => a + s.value, 0),
      linked_holders: [],
      schemes: f.schemes.map((s): Scheme => ({
        isin: s.isin,
        name: s.name ?? s.isin,
        type: 'Equity',
        units: s.units,
        nav: s.units ? s.value / s.units : null,
        value: s.value,
        cost: null,
        gain: { absolute: null, percentage: null },
        transactions: (s.rows ?? []).map(row),
        nominees: [],
        additional_info: {
          advisor: null,
          rta_code: null,
          amfi: null,
          is_demat: false,
          open_units: o.from === null ? null : (s.open ?? 0),
          close_units: s.units,
        },
      })),
      additional_info: { pan: null, pankyc: null, kyc: null },
    })),
    insurance: { life_insurance_policies: [] },
    nps: [],
  };
}

const one = (st: ParsedStatement) => {
  const p = computePortfolio([{ file: 'test.pdf', data: st }]);
  expect(Portfolio.safeParse(p).error?.issues ?? []).toEqual([]);
  return p;
};
const holding = (p: ReturnType<typeof one>, isin: string) => p.holdings.find((h) => h.isin === isin)!;

describe('the rules that decide the number (each worked by hand)', () => {
  it('stamp duty is paid on top of the purchase: 9999.50 invested + 0.50 stamp duty, worth 11000 a year later, is 10%', () => {
    // Flows: -(9999.50 + 0.50) = -10000 on 2023-01-01; +11000 (the value) on 2024-01-01  =>  r = 11000/10000 - 1 = 0.1.
    const p = one(
      statement({
        from: '2023-01-01',
        to: '2024-01-01',
        folios: [
          {
            folio: '1',
            schemes: [
              {
                isin: 'INF000000001',
                units: 100,
                value: 11000,
                rows: [
                  { date: '2023-01-01', type: 'PURCHASE', amount: 9999.5, units: 100, nav: 99.995, balance: 100 },
                  { date: '2023-01-01', type: 'STAMP_DUTY_TAX', amount: 0.5 },
                ],
              },
            ],
          },
        ],
      }),
    );
    const h = holding(p, 'INF000000001');
    expect(h.since_inception.xirr.rate).toBeCloseTo(0.1, 6);
    // Invested 10000 (stamp duty included); gain = 11000 - 10000 = 1000.
    expect(h.since_inception).toMatchObject({ invested: 10000, gain: 1000, payouts: 0, value: 11000 });
  });

  it('STT is kept back from a redemption: 11000 redeemed less 1.10 STT, from 10000 a year before, is 9.989%', () => {
    // Flows: -10000 on 2023-01-01; +(11000 - 1.10) = +10998.90 on 2024-01-01; nothing held after  =>  r = 10998.90/10000 - 1 = 0.09989.
    const p = one(
      statement({
        from: '2023-01-01',
        to: '2024-01-01',
        folios: [
          {
            folio: '1',
            schemes: [
              {
                isin: 'INF000000002',
                units: 0,
                value: 0,
                rows: [
                  { date: '2023-01-01', type: 'PURCHASE', amount: 10000, units: 100, nav: 100, balance: 100 },
                  { date: '2024-01-01', type: 'REDEMPTION', amount: -11000, units: -100, nav: 110, balance: 0 },
                  { date: '2024-01-01', type: 'STT_TAX', amount: 1.1 },
                ],
              },
            ],
          },
        ],
      }),
    );
    const h = holding(p, 'INF000000002');
    expect(h.since_inception.xirr.rate).toBeCloseTo(0.09989, 7);
    // Net invested = 10000 - 10998.90 = -998.90 (more came back than went in); gain = 0 + 998.90.
    expect(h.since_inception).toMatchObject({ invested: -998.9, gain: 998.9 });
  });

  it('a dividend paid out is money back (TDS kept back from it); a dividend reinvested is no cash flow', () => {
    // Payout: -10000 on 2023-01-01; +(500 - 50 TDS) + 10500 = +10950 on 2024-01-01  =>  r = 10950/10000 - 1 = 0.095.
    const payout = one(
      statement({
        from: '2023-01-01',
        to: '2024-01-01',
        folios: [
          {
            folio: '1',
            schemes: [
              {
                isin: 'INF000000003',
                units: 100,
                value: 10500,
                rows: [
                  { date: '2023-01-01', type: 'PURCHASE', amount: 10000, units: 100, nav: 100, balance: 100 },
                  { date: '2024-01-01', type: 'DIVIDEND_PAYOUT', amount: 500 },
                  { date: '2024-01-01', type: 'TDS_TAX', amount: 50 },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(holding(payout, 'INF000000003').since_inception.xirr.rate).toBeCloseTo(0.095, 7);
    // Payouts received = 500 - 50 = 450; invested 10000; gain = 10500 + 450 - 10000 = 950.
    expect(holding(payout, 'INF000000003').since_inception).toMatchObject({ invested: 10000, payouts: 450, gain: 950 });
    // Reinvested: -10000 on 2023-01-01; the 500 reinvested on 2023-07-01 buys units but moves no money;
    // +11000 (the value, reinvested units included) on 2024-01-01  =>  r = 0.1 (had the 500 been counted as money in, r would be lower).
    const reinvest = one(
      statement({
        from: '2023-01-01',
        to: '2024-01-01',
        folios: [
          {
            folio: '1',
            schemes: [
              {
                isin: 'INF000000004',
                units: 105,
                value: 11000,
                rows: [
                  { date: '2023-01-01', type: 'PURCHASE', amount: 10000, units: 100, nav: 100, balance: 100 },
                  { date: '2023-07-01', type: 'DIVIDEND_REINVEST', amount: 500, units: 5, nav: 100, balance: 105 },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(holding(reinvest, 'INF000000004').since_inception.xirr.rate).toBeCloseTo(0.1, 7);
    expect(holding(reinvest, 'INF000000004').since_inception.invested).toBe(10000);
  });

  const switchStatement = (outType: TransactionType, inType: TransactionType) =>
    statement({
      from: '2023-01-01',
      to: '2024-01-01',
      folios: [
        {
          folio: '7',
          schemes: [
            {
              isin: 'INF00000000A',
              units: 0,
              value: 0,
              rows: [
                { date: '2023-01-01', type: 'PURCHASE', amount: 10000, units: 100, nav: 100, balance: 100 },
                { date: '2023-07-02', type: outType, amount: -10500, units: -100, nav: 105, balance: 0 },
              ],
            },
            {
              isin: 'INF00000000B',
              units: 1050,
              value: 11000,
              rows: [{ date: '2023-07-02', type: inType, amount: 10500, units: 1050, nav: 10, balance: 1050 }],
            },
          ],
        },
      ],
    });
  it.each([
    ['a switch', 'SWITCH_OUT', 'SWITCH_IN'],
    ['a merger of schemes', 'SWITCH_OUT_MERGER', 'SWITCH_IN_MERGER'],
  ] as const)('%s is external at scheme level and internal at portfolio level', (_name, outType, inType) => {
    const p = one(switchStatement(outType, inType));
    // Scheme A: -10000 on 2023-01-01, +10500 (switched out) on 2023-07-02, 182 days later  =>  r = 1.05^(365/182) - 1.
    expect(holding(p, 'INF00000000A').since_inception.xirr.rate).toBeCloseTo(Math.pow(1.05, 365 / 182) - 1, 6);
    // Scheme B: -10500 (switched in) on 2023-07-02, +11000 on 2024-01-01, 183 days later  =>  r = (11000/10500)^(365/183) - 1.
    expect(holding(p, 'INF00000000B').since_inception.xirr.rate).toBeCloseTo(Math.pow(11000 / 10500, 365 / 183) - 1, 6);
    // Folio, AMC and portfolio: the legs (+10500 and -10500 on 2023-07-02) cancel:
    // -10000 on 2023-01-01, +11000 on 2024-01-01  =>  r = 0.1; invested 10000, gain 1000.
    for (const g of [p.returns.portfolio, p.returns.by_folio[0], p.returns.by_amc[0]]) {
      expect(g.since_inception.xirr.rate).toBeCloseTo(0.1, 6);
      expect(g.since_inception).toMatchObject({ invested: 10000, gain: 1000 });
    }
  });

  it('a segregated portfolio has no XIRR of its own; its value counts in the folio', () => {
    // Main scheme: -10000 on 2023-01-01, +10000 on 2024-01-01  =>  r = 0.
    // Segregated units allotted on 2023-06-01 at no cost (no flow), worth 1000 on 2024-01-01: no money in, no rate.
    // Folio: -10000 on 2023-01-01, +(10000 + 1000) on 2024-01-01  =>  r = 0.1.
    const p = one(
      statement({
        from: '2023-01-01',
        to: '2024-01-01',
        folios: [
          {
            folio: '9',
            schemes: [
              {
                isin: 'INF00000000C',
                units: 100,
                value: 10000,
                rows: [{ date: '2023-01-01', type: 'PURCHASE', amount: 10000, units: 100, nav: 100, balance: 100 }],
              },
              {
                isin: 'INF00000000D',
                units: 100,
                value: 1000,
                rows: [{ date: '2023-06-01', type: 'SEGREGATION', units: 100, balance: 100 }],
              },
            ],
          },
        ],
      }),
    );
    expect(holding(p, 'INF00000000C').since_inception.xirr.rate).toBeCloseTo(0, 7);
    const seg = holding(p, 'INF00000000D').since_inception;
    expect(seg.xirr.rate).toBeNull();
    expect(seg.xirr.reason).toMatch(/segregation/);
    expect(p.returns.by_folio[0].since_inception.xirr.rate).toBeCloseTo(0.1, 6);
  });

  it('a purchase and its reversal stay two rows and cancel', () => {
    // -10000 on 2023-01-01; -10000 and +10000 (reversed) on 2023-03-01 cancel; +11000 on 2024-01-01  =>  r = 0.1.
    const p = one(
      statement({
        from: '2023-01-01',
        to: '2024-01-01',
        folios: [
          {
            folio: '1',
            schemes: [
              {
                isin: 'INF000000005',
                units: 100,
                value: 11000,
                rows: [
                  { date: '2023-01-01', type: 'PURCHASE', amount: 10000, units: 100, nav: 100, balance: 100 },
                  { date: '2023-03-01', type: 'PURCHASE', amount: 10000, units: 90, nav: 111.11, balance: 190 },
                  { date: '2023-03-01', type: 'REVERSAL', amount: -10000, units: -90, nav: 111.11, balance: 100 },
                ],
              },
            ],
          },
        ],
      }),
    );
    const h = holding(p, 'INF000000005');
    expect(h.transactions).toHaveLength(3);
    expect(h.since_inception.xirr.rate).toBeCloseTo(0.1, 6);
  });

  it('per financial year: the value on 31 March before it, the flows in it, the value at its end', () => {
    // Statement 1 values 100 units at 10000 on 2023-03-31; statement 2 values them at 11000 on 2024-03-31.
    // FY 2023-24: -10000 on 2023-03-31, +11000 on 2024-03-31, 366 days (2024 is a leap year)  =>  r = 1.1^(365/366) - 1.
    const a = statement({
      from: '2022-04-01',
      to: '2023-03-31',
      folios: [
        {
          folio: '1',
          schemes: [
            {
              isin: 'INF000000006',
              units: 100,
              value: 10000,
              rows: [{ date: '2022-04-01', type: 'PURCHASE', amount: 9000, units: 100, nav: 90, balance: 100 }],
            },
          ],
        },
      ],
    });
    const b = statement({
      from: '2023-04-01',
      to: '2024-03-31',
      folios: [{ folio: '1', schemes: [{ isin: 'INF000000006', open: 100, units: 100, value: 11000 }] }],
    });
    const p = computePortfolio([
      { file: 'a.pdf', data: a },
      { file: 'b.pdf', data: b },
    ]);
    const h = holding(p, 'INF000000006');
    const fy = h.years.find((y) => y.fy === '2023-24')!;
    expect(fy.xirr.rate).toBeCloseTo(Math.pow(1.1, 365 / 366) - 1, 7);
    // FY 2022-23: -9000 on 2022-04-01 (nothing held on 2022-03-31), +10000 on 2023-03-31, 364 days  =>  r = (10000/9000)^(365/364) - 1.
    expect(h.years.find((y) => y.fy === '2022-23')!.xirr.rate).toBeCloseTo(Math.pow(10000 / 9000, 365 / 364) - 1, 7);
    // Since inception: -9000 on 2022-04-01, +11000 on 2024-03-31 (730 days)  =>  r = (11000/9000)^(365/730) - 1.
    expect(h.since_inception.xirr.rate).toBeCloseTo(Math.sqrt(11000 / 9000) - 1, 6);
  });

  it('a holding whose purchase is before the files, or a summary, has a value but no XIRR, and says why', () => {
    const p = computePortfolio([
      {
        file: 'late.pdf',
        data: statement({
          from: '2023-04-01',
          to: '2024-03-31',
          folios: [{ folio: '1', schemes: [{ isin: 'INF000000007', open: 50, units: 50, value: 6000 }] }],
        }),
      },
      {
        file: 'summary.pdf',
        data: statement({
          from: null,
          to: '2024-03-31',
          folios: [{ folio: '2', schemes: [{ isin: 'INF000000008', units: 10, value: 500 }] }],
        }),
      },
    ]);
    expect(holding(p, 'INF000000007').since_inception.xirr).toMatchObject({
      rate: null,
      reason: expect.stringMatching(/50 units were held on 2023-03-31/),
    });
    expect(holding(p, 'INF000000008').since_inception.xirr).toMatchObject({ rate: null, reason: expect.stringMatching(/summary/) });
    expect(p.totals.value).toBe(6500);
  });

  it('statements of two PANs are refused unless allowed', () => {
    const a = statement({ from: null, to: '2024-03-31', pan: 'ABCDE1234F', folios: [] });
    const b = statement({ from: null, to: '2024-03-31', pan: 'PQRST6789Z', folios: [] });
    expect(() =>
      computePortfolio([
        { file: 'a', data: a },
        { file: 'b', data: b },
      ]),
    ).toThrow(MixedInvestorsError);
    expect(
      computePortfolio(
        [
          { file: 'a', data: a },
          { file: 'b', data: b },
        ],
        { allowMixedInvestors: true },
      ).investors,
    ).toHaveLength(2);
  });
});

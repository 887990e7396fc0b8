/** Tables and CSVs of a gains report: Schedule 112A for equity LTCG rows, a second CSV for the rest. */
import type { GainRow, GainsReport } from '../schema/index.js';
import { GRANDFATHER_BEFORE, RATE_CHANGE_DATE } from '../gains/rules.js';
import { inr, renderNotes, renderTable, toCsv } from './output.js';

const money = (v: number | null): string => (v === null ? '' : v.toFixed(2));

/** The columns of Schedule 112A of the income-tax return (AY 2025-26 utility onward, with 1b). */
export const SCHEDULE_112A_COLUMNS = [
  'Share/Unit acquired(1a)',
  'Share/Unit transferred(1b)',
  'ISIN Code(2)',
  'Name of the Share/Unit(3)',
  'No. of Shares/Units(4)',
  'Sale-price per Share/Unit(5)',
  'Full Value of Consideration(Total Sale Value)(6) = 4 * 5',
  'Cost of acquisition without indexation(7)',
  'Cost of acquisition(8)',
  'If the long term capital asset was acquired before 01.02.2018(9)',
  'Fair Market Value per share/unit as on 31st January 2018(10)',
  'Total Fair Market Value of capital asset as per section 55(2)(ac)(11) = 4 * 10',
  'Expenditure wholly and exclusively in connection with transfer(12)',
  'Total deductions(13) = 7 + 12',
  'Balance(14) = 6 - 13',
];

const rowsOf = (r: GainsReport): GainRow[] => r.years.flatMap((y) => y.schemes.flatMap((s) => s.rows));

/** Complete equity long-term rows: the lines of Schedule 112A. */
export function is112A(row: GainRow): boolean {
  return (
    row.asset_class === 'equity' &&
    row.term === 'long' &&
    row.gain !== null &&
    row.tax_class !== 'equity_ltcg_exempt' &&
    !row.flags.includes('merger')
  );
}

/**
 * Schedule 112A: one line per matched row. Column 9 (lower of the sale value and the FMV) only for
 * units acquired before 1 February 2018; column 12 is 0: STT is not deductible (s.48 second proviso)
 * and the stamp duty is already in the cost (col 8).
 */
export function gainsCsv112A(report: GainsReport): string {
  const rows = rowsOf(report)
    .filter(is112A)
    .map((r) => {
      const before = r.acquisition_date !== null && r.acquisition_date < GRANDFATHER_BEFORE;
      const value = r.transfer_value;
      const col9 = before && r.fmv !== null ? Math.min(r.fmv, value) : null;
      return [
        before ? 'BE' : 'AE',
        r.transfer_date < RATE_CHANGE_DATE ? 'BE' : 'AE',
        r.isin ?? '',
        r.scheme,
        r.units,
        (value / r.units).toFixed(4),
        money(value),
        money(r.cost),
        money(r.acquisition_cost),
        money(col9),
        r.fmv_nav ?? '',
        money(r.fmv),
        '0.00',
        money(r.cost),
        money(r.gain),
      ];
    });
  return toCsv(SCHEDULE_112A_COLUMNS, rows);
}

export const OTHER_COLUMNS = [
  'fy',
  'folio',
  'scheme',
  'isin',
  'asset_class',
  'units',
  'acquisition_date',
  'acquisition_cost',
  'stamp_duty',
  'transfer_date',
  'transfer_type',
  'transfer_value',
  'stt',
  'fmv_nav',
  'grandfathered_cost',
  'cost',
  'gain',
  'term',
  'tax_class',
  'rate',
  'flags',
];

/** Every row that is not a Schedule 112A line (short term, debt, other, incomplete), with its flags. */
export function gainsCsvOther(report: GainsReport): string {
  const rows = rowsOf(report)
    .filter((r) => !is112A(r))
    .map((r) => [
      r.fy,
      r.folio,
      r.scheme,
      r.isin ?? '',
      r.asset_class,
      r.units,
      r.acquisition_date ?? '',
      money(r.acquisition_cost),
      money(r.stamp_duty),
      r.transfer_date,
      r.transfer_type,
      money(r.transfer_value),
      money(r.stt),
      r.fmv_nav ?? '',
      money(r.grandfathered_cost),
      money(r.cost),
      money(r.gain),
      r.term ?? '',
      r.tax_class,
      r.rate ?? '',
      r.flags.join(' '),
    ]);
  return toCsv(OTHER_COLUMNS, rows);
}

/** Per financial year: the rows by scheme, then the totals by class; then what to check. */
export function gainsTables(report: GainsReport): string {
  const parts: string[] = [];
  for (const y of report.years) {
    parts.push(
      renderTable({
        title: `Capital gains, FY ${y.fy}`,
        head: [
          'Scheme',
          'Folio',
          'Class',
          'Units',
          'Acquired',
          'Cost (₹)',
          'Transferred',
          'Value (₹)',
          'Gain (₹)',
          'Term',
          'Tax class',
          'Flags',
        ],
        numeric: [3, 5, 7, 8],
        drop: [11, 1, 2, 3, 5, 4, 9, 10],
        shrink: [0, 11],
        rows: y.schemes.flatMap((s) =>
          s.rows.map((r) => [
            s.scheme,
            s.folio,
            s.asset_class,
            inr(r.units, 3),
            r.acquisition_date ?? '?',
            inr(r.cost),
            r.transfer_date,
            inr(r.transfer_value),
            inr(r.gain),
            r.term ?? '?',
            r.tax_class,
            r.flags.join(' '),
          ]),
        ),
      }),
    );
    parts.push(
      renderTable({
        title: `Totals, FY ${y.fy} (equity LTCG exemption for the year: ₹${inr(y.equity_ltcg_exemption)})`,
        head: ['Class', 'Value (₹)', 'Cost (₹)', 'STCG (₹)', 'LTCG (₹)', 'Incomplete rows'],
        numeric: [1, 2, 3, 4, 5],
        drop: [5, 2, 1],
        rows: y.totals.map((t) => [t.asset_class, inr(t.transfer_value), inr(t.cost), inr(t.stcg), inr(t.ltcg), t.incomplete_rows]),
      }),
    );
  }
  if (!report.years.length) parts.push('No transfers (redemptions or switch-outs) in the statements for the period asked.\n');
  if (report.issues.length) {
    parts.push(
      renderNotes(
        'To check',
        report.issues.map((i) => `${i.scheme} (folio ${i.folio}): ${i.message}`),
      ),
    );
  }
  return parts.join('\n');
}

/**
 * Realised capital gains of mutual fund units (`cas gains`, `POST /v4/smart/gains`), computed
 * from a Parsed statement's scheme transactions (src/gains). Money in rupees rounded to the paisa,
 * units to the printed precision (4 decimals at most). Values that cannot be known from the
 * statement and the user's files are `null` and the row carries a flag saying why: never guessed.
 */
import { z } from 'zod';
import { IsoDate } from './common.js';

const num = z.number().finite();
const numOrNull = num.nullable();

/** Tax class of a scheme's units: equity-oriented, debt-oriented, other (hybrid, FoF, gold), or unknown. */
export const GainsAssetClass = z.enum(['equity', 'debt', 'other', 'unknown']);
export type GainsAssetClass = z.infer<typeof GainsAssetClass>;

/** Where the class came from: the scheme name's words, the statement's scheme type, or the user's override file. */
export const GainsClassSource = z.enum(['name', 'statement', 'override', 'none']);
export type GainsClassSource = z.infer<typeof GainsClassSource>;

/**
 * Tax treatment of one matched row (see src/gains/rules.ts for the sections cited):
 * - `equity_stcg_15` / `equity_stcg_20`: s.111A before / on or after 23 July 2024;
 * - `equity_ltcg_10` / `equity_ltcg_12_5`: s.112A before / on or after 23 July 2024;
 * - `equity_ltcg_exempt`: s.10(38), transfer before 1 April 2018;
 * - `stcg_slab`: short term at slab rates (debt, other);
 * - `deemed_stcg_50aa`: s.50AA, short term whatever the holding period (slab rates);
 * - `ltcg_20_indexed`: s.112 before 23 July 2024 (20% after indexation; indexation NOT computed here);
 * - `ltcg_12_5`: s.112 on or after 23 July 2024 (12.5% without indexation);
 * - `unknown`: the class or the acquisition is unknown (see flags).
 */
export const GainsTaxClass = z.enum([
  'equity_stcg_15',
  'equity_stcg_20',
  'equity_ltcg_10',
  'equity_ltcg_12_5',
  'equity_ltcg_exempt',
  'stcg_slab',
  'deemed_stcg_50aa',
  'ltcg_20_indexed',
  'ltcg_12_5',
  'unknown',
]);
export type GainsTaxClass = z.infer<typeof GainsTaxClass>;

/**
 * Why a row is incomplete:
 * - `opening_balance`: units from the statement's opening balance, with no acquisition date or cost;
 * - `fmv_missing`: equity units acquired before 1 Feb 2018 with no NAV of 31 Jan 2018 in the `--fmv` file;
 * - `class_unknown`: the scheme's class is unknown (give it in `--scheme-types`);
 * - `units_unmatched`: more units transferred than purchased (a statement that starts too late);
 * - `indexation_not_computed`: debt/other long-term gain before 23 July 2024: the indexed cost is the user's to compute;
 * - `segregated_units`: units allotted by segregation, whose cost is a share of the original scheme's cost;
 * - `merger`: a merger switch-out (s.47(xix): not a transfer; its lots carry into the switch-in), or a
 *   sale of merger units whose old scheme is not in the statements: left out of the totals.
 */
export const GainsFlag = z.enum([
  'opening_balance',
  'fmv_missing',
  'class_unknown',
  'units_unmatched',
  'indexation_not_computed',
  'segregated_units',
  'merger',
]);
export type GainsFlag = z.infer<typeof GainsFlag>;

/** One transfer matched against one purchase lot (first in, first out). */
export const GainRow = z.object({
  fy: z.string().regex(/^\d{4}-\d{2}$/),
  folio: z.string(),
  amc: z.string(),
  scheme: z.string(),
  isin: z.string().nullable(),
  asset_class: GainsAssetClass,
  units: num,
  acquisition_date: IsoDate.nullable(),
  /** Purchase amount of these units plus their share of the purchase's stamp duty. */
  acquisition_cost: numOrNull,
  /** The share of the purchase's stamp duty inside acquisition_cost. */
  stamp_duty: numOrNull,
  transfer_date: IsoDate,
  transfer_type: z.string(),
  transfer_value: num,
  /** The share of the sale's STT (recorded; not deductible for s.111A/112A). */
  stt: num,
  /** NAV of 31 January 2018 (grandfathered equity units only). */
  fmv_nav: numOrNull,
  /** units x fmv_nav. */
  fmv: numOrNull,
  /** max(actual cost, min(FMV, transfer value)) for grandfathered units. */
  grandfathered_cost: numOrNull,
  /** The cost deducted: grandfathered_cost when it applies, else acquisition_cost. */
  cost: numOrNull,
  gain: numOrNull,
  term: z.enum(['short', 'long']).nullable(),
  tax_class: GainsTaxClass,
  /** Rate of the tax class (0.2 = 20%), null for slab rates and unknown. */
  rate: numOrNull,
  flags: z.array(GainsFlag),
});
export type GainRow = z.infer<typeof GainRow>;

export const GainsTotals = z.object({
  asset_class: GainsAssetClass,
  transfer_value: num,
  cost: num,
  stcg: num,
  ltcg: num,
  /** Rows whose gain or term is unknown, and merger rows (not in the sums above). */
  incomplete_rows: z.number().int().min(0),
});
export type GainsTotals = z.infer<typeof GainsTotals>;

export const GainsScheme = z.object({
  folio: z.string(),
  amc: z.string(),
  scheme: z.string(),
  isin: z.string().nullable(),
  asset_class: GainsAssetClass,
  class_source: GainsClassSource,
  rows: z.array(GainRow),
  stcg: num,
  ltcg: num,
});
export type GainsScheme = z.infer<typeof GainsScheme>;

export const GainsYear = z.object({
  fy: z.string().regex(/^\d{4}-\d{2}$/),
  schemes: z.array(GainsScheme),
  totals: z.array(GainsTotals),
  /** s.112A exemption for the year: 1,00,000 up to FY 2023-24, 1,25,000 from FY 2024-25. */
  equity_ltcg_exemption: num,
});
export type GainsYear = z.infer<typeof GainsYear>;

export const GainsIssue = z.object({
  folio: z.string(),
  scheme: z.string(),
  isin: z.string().nullable(),
  message: z.string(),
});
export type GainsIssue = z.infer<typeof GainsIssue>;

export const GainsReport = z.object({
  years: z.array(GainsYear),
  /** Schemes whose class is unknown, units that could not be matched, rows without FMV: what the user must check. */
  issues: z.array(GainsIssue),
});
export type GainsReport = z.infer<typeof GainsReport>;

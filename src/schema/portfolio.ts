/**
 * One portfolio from many Parsed statements (`cas portfolio`, `POST /v4/smart/portfolio`): the
 * holdings merged across statements (keyed by folio or demat account and ISIN), their transactions
 * de-duplicated, the latest balance of each, the gaps the files leave, and the returns (XIRR) the
 * printed cash flows give (src/portfolio; the rules are in docs/portfolio.md). Money in rupees
 * rounded to the paisa. A figure the statements cannot give is `null` with a reason beside it:
 * never 0 or NaN.
 */
import { z } from 'zod';
import { IsoDate } from './common.js';
import { CasType, TransactionType } from './statement.js';

const num = z.number().finite();
const numOrNull = num.nullable();

/** The asset class a holding is charted under. */
export const PortfolioAssetClass = z.enum([
  'equity_funds',
  'debt_funds',
  'hybrid_funds',
  'other_funds',
  'equity_shares',
  'corporate_bonds',
  'government_securities',
  'aifs',
  'nps',
]);
export type PortfolioAssetClass = z.infer<typeof PortfolioAssetClass>;

/** An annualised return: `rate` (0.1234 = 12.34% a year), or `null` and the reason it cannot be given. */
export const Xirr = z.object({
  rate: numOrNull,
  reason: z.string().nullable(),
  /** The cash flows it was solved on (the final value included). */
  flows: z.number().int().min(0),
  from: IsoDate.nullable(),
  to: IsoDate.nullable(),
});
export type Xirr = z.infer<typeof Xirr>;

/** A return with the money beside it: net invested, value at the end, payouts received, absolute gain. */
export const PortfolioReturn = z.object({
  xirr: Xirr,
  invested: numOrNull,
  value: numOrNull,
  payouts: numOrNull,
  gain: numOrNull,
});
export type PortfolioReturn = z.infer<typeof PortfolioReturn>;

export const PortfolioYearReturn = PortfolioReturn.extend({
  fy: z.string().regex(/^\d{4}-\d{2}$/),
  /** Holdings of the year left out of its return (no valuation on the day before it or at its end, or no amounts), each with why. */
  left_out: z.array(z.object({ key: z.string(), reason: z.string() })),
});
export type PortfolioYearReturn = z.infer<typeof PortfolioYearReturn>;

/** One statement given, as the portfolio used it. */
export const PortfolioSource = z.object({
  /** Position among the statements given (0-based); holdings and transactions name their sources by it. */
  index: z.number().int().min(0),
  file: z.string().nullable(),
  cas_type: CasType,
  from: IsoDate.nullable(),
  to: IsoDate,
  pan: z.string().nullable(),
  investor: z.string(),
  /** Transactions of this statement already printed by another (dropped as duplicates). */
  duplicate_transactions: z.number().int().min(0),
});
export type PortfolioSource = z.infer<typeof PortfolioSource>;

export const PortfolioTransaction = z.object({
  date: IsoDate,
  type: TransactionType,
  description: z.string(),
  amount: numOrNull,
  units: numOrNull,
  nav: numOrNull,
  /** Units held after the row: printed, else carried from the previous row. */
  balance: numOrNull,
  /** The investor's cash flow of the row (negative: money in; positive: money out to the investor); null when none. */
  flow: numOrNull,
  /** The statements that print the row. */
  sources: z.array(z.number().int().min(0)),
});
export type PortfolioTransaction = z.infer<typeof PortfolioTransaction>;

/** Units held by a statement at a date: its opening and closing balances, and its valuation. */
export const PortfolioBalance = z.object({
  date: IsoDate,
  units: num,
  value: numOrNull,
  source: z.number().int().min(0),
});
export type PortfolioBalance = z.infer<typeof PortfolioBalance>;

/** A stretch of time the files do not cover in which the holding's units changed: transactions are missing. */
export const PortfolioGap = z.object({
  from: IsoDate.nullable(),
  to: IsoDate,
  units_before: numOrNull,
  units_after: num,
  message: z.string(),
});
export type PortfolioGap = z.infer<typeof PortfolioGap>;

export const PortfolioHolding = z.object({
  /** `mf|FOLIO|ISIN`, `demat|ACCOUNT|ISIN` or `nps|PRAN|FUND`. */
  key: z.string(),
  kind: z.enum(['mutual_fund', 'demat', 'nps']),
  /** Folio number, demat account (DP ID + client ID) or PRAN. */
  account: z.string(),
  /** The AMC of a folio; the depository participant of a demat account; the CRA of NPS. */
  provider: z.string(),
  amc: z.string().nullable(),
  isin: z.string().nullable(),
  name: z.string(),
  asset_class: PortfolioAssetClass,
  units: num,
  nav: numOrNull,
  value: num,
  /** The cost the statement prints (registrar statements), when it does. */
  cost: numOrNull,
  /** Where the balance and value come from: the latest statement that holds it. */
  source: z.object({ index: z.number().int().min(0), file: z.string().nullable(), as_of: IsoDate }),
  /** Units also held in a demat account of the portfolio (a registrar folio flagged demat): counted there, not here. */
  counted_elsewhere: z.string().nullable(),
  transactions: z.array(PortfolioTransaction),
  balances: z.array(PortfolioBalance),
  gaps: z.array(PortfolioGap),
  since_inception: PortfolioReturn,
  years: z.array(PortfolioYearReturn),
});
export type PortfolioHolding = z.infer<typeof PortfolioHolding>;

/** Returns of a group of holdings (a folio, an AMC, an asset class, the whole portfolio). */
export const PortfolioGroup = z.object({
  /** `portfolio`, a folio number, an AMC or an asset class. */
  name: z.string(),
  holdings: z.number().int().min(0),
  value: num,
  since_inception: PortfolioReturn,
  years: z.array(PortfolioYearReturn),
  /** Holdings left out of the returns (no transactions since the first purchase, or no amounts), by key. */
  left_out: z.array(z.string()),
});
export type PortfolioGroup = z.infer<typeof PortfolioGroup>;

/** Value and net invested amount at a date, from the transaction balances and the statements' valuations. */
export const PortfolioPoint = z.object({
  date: IsoDate,
  value: num,
  invested: num,
  /** Holdings with units at that date whose value is not known (no NAV printed on or before it). */
  unvalued: z.number().int().min(0),
});
export type PortfolioPoint = z.infer<typeof PortfolioPoint>;

export const PortfolioIssue = z.object({ key: z.string().nullable(), message: z.string() });
export type PortfolioIssue = z.infer<typeof PortfolioIssue>;

export const Portfolio = z.object({
  investors: z.array(z.object({ name: z.string(), pan: z.string().nullable() })),
  as_of: IsoDate,
  sources: z.array(PortfolioSource),
  /** Files given that did not parse (or are not statements): named, left out, the rest merged. */
  left_out: z.array(z.object({ file: z.string().nullable(), message: z.string() })),
  totals: z.object({
    value: num,
    holdings: z.number().int().min(0),
    by_asset_class: z.array(z.object({ asset_class: PortfolioAssetClass, value: num })),
    by_amc: z.array(z.object({ amc: z.string(), value: num })),
  }),
  holdings: z.array(PortfolioHolding),
  returns: z.object({
    portfolio: PortfolioGroup,
    by_folio: z.array(PortfolioGroup),
    by_amc: z.array(PortfolioGroup),
    by_asset_class: z.array(PortfolioGroup),
  }),
  timeline: z.array(PortfolioPoint),
  issues: z.array(PortfolioIssue),
});
export type Portfolio = z.infer<typeof Portfolio>;

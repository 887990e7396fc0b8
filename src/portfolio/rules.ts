/**
 * The rules that decide the number: which printed rows are cash flows of the investor, and with
 * which sign (money from the investor negative, money to the investor positive). docs/portfolio.md
 * states them for readers; test/portfolio/portfolio-xirr.test.ts works each one by hand.
 *
 * - Purchases, SIPs, switch-ins (merger switch-ins too): money in, `-amount`.
 * - Redemptions, switch-outs (merger too): the statements print them negative; money out, `-amount`.
 * - Reversals: printed negative (a purchase undone, its money returned): `-amount`.
 * - Stamp duty on a purchase: paid on top of the amount invested, money in: `-|amount|`.
 * - STT and TDS: kept back from a redemption or a payout, so the investor receives less: `-|amount|`.
 * - Dividend payouts (IDCW paid): money out to the investor, `+|amount|`.
 * - Dividend reinvestment: the dividend stays in the scheme as units; no cash moves: no flow.
 * - Segregation: units of a segregated portfolio allotted at no cost: no flow (its value counts).
 * - Switches and mergers are external at scheme level (each leg is a flow of its scheme) and cancel
 *   inside any group holding both legs (the folio, the AMC, the portfolio): the group's flows are
 *   summed by day, and the two legs of one switch are equal and opposite.
 */
import type { TransactionType } from '../schema/index.js';

export type FlowKind = 'invest' | 'tax' | 'payout' | 'none';

export const FLOW_KIND: Record<TransactionType, FlowKind> = {
  PURCHASE: 'invest',
  PURCHASE_SIP: 'invest',
  REDEMPTION: 'invest',
  SWITCH_IN: 'invest',
  SWITCH_IN_MERGER: 'invest',
  SWITCH_OUT: 'invest',
  SWITCH_OUT_MERGER: 'invest',
  REVERSAL: 'invest',
  STAMP_DUTY_TAX: 'tax',
  STT_TAX: 'tax',
  TDS_TAX: 'tax',
  DIVIDEND_PAYOUT: 'payout',
  DIVIDEND_REINVEST: 'none',
  SEGREGATION: 'none',
  MISC: 'none',
  UNKNOWN: 'none',
};

/** Row types that move units without money by design (no amount is expected). */
export const NO_MONEY: ReadonlySet<TransactionType> = new Set(['DIVIDEND_REINVEST', 'SEGREGATION', 'MISC', 'UNKNOWN']);

/** The investor's cash flow of a row in paise, or null when the row moves no money (or prints no amount). */
export function flowPaise(type: TransactionType, amount: number | null): number | null {
  if (amount === null) return null;
  const paise = Math.round(amount * 100);
  switch (FLOW_KIND[type]) {
    case 'invest':
      return -paise;
    case 'tax':
      return -Math.abs(paise);
    case 'payout':
      return Math.abs(paise);
    default:
      return null;
  }
}

/** Financial year of a date: `2025-26` runs from 1 April 2025 to 31 March 2026. */
export function fyOf(date: string): string {
  const y = Number(date.slice(0, 4));
  const start = Number(date.slice(5, 7)) >= 4 ? y : y - 1;
  return `${start}-${String((start + 1) % 100).padStart(2, '0')}`;
}

/** The last day before the year and its last day. */
export function fyBounds(fy: string): { before: string; last: string } {
  const y = Number(fy.slice(0, 4));
  return { before: `${y}-03-31`, last: `${y + 1}-03-31` };
}

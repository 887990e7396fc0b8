/**
 * Depository transaction wording -> SPEC transaction type, as data (issue 31 point 2). Both
 * depositories describe a movement of units in their own words: depository_a (CDSL) prints codes
 * such as `PAYOUT-CR`, `EP-DR` or `INTDEP-CR` followed by free text; depository_b (NSDL) prints
 * phrases such as `By Market Purchase` or `Cr Off Market`. A description is matched against the
 * phrasings in order, as whole words (case and punctuation ignored: `EP-DR` matches `ep dr`); the
 * first phrasing whose direction fits the row (units credited or debited) gives the type. A row
 * that matches none is typed by its direction alone (credit PURCHASE, debit REDEMPTION).
 */
import type { TransactionType } from '../../schema/index.js';

/** Which rows a phrasing applies to: units credited, units debited, or either. */
export type Direction = 'credit' | 'debit' | 'any';

export interface Phrasing {
  phrase: string;
  direction: Direction;
  type: TransactionType;
}

const p = (phrase: string, direction: Direction, type: TransactionType): Phrasing => ({ phrase, direction, type });

/** First match wins: the specific words (reversal, merger, switch, SIP) before the generic codes. */
export const DEPOSITORY_PHRASINGS: readonly Phrasing[] = [
  // Rows undoing an earlier one.
  p('REVERSAL', 'any', 'REVERSAL'),
  p('REVERSED', 'any', 'REVERSAL'),
  p('REJECTED', 'any', 'REVERSAL'),
  p('REJECTION', 'any', 'REVERSAL'),
  // Schemes and companies merged: units move from one ISIN to another.
  p('MERGER', 'credit', 'SWITCH_IN_MERGER'),
  p('MERGER', 'debit', 'SWITCH_OUT_MERGER'),
  p('AMALGAMATION', 'credit', 'SWITCH_IN_MERGER'),
  p('AMALGAMATION', 'debit', 'SWITCH_OUT_MERGER'),
  // Mutual fund units held in demat form.
  p('SWITCH IN', 'credit', 'SWITCH_IN'),
  p('SWITCH OUT', 'debit', 'SWITCH_OUT'),
  p('SIP', 'credit', 'PURCHASE_SIP'),
  p('SYSTEMATIC INVESTMENT', 'credit', 'PURCHASE_SIP'),
  p('DIVIDEND REINVEST', 'credit', 'DIVIDEND_REINVEST'),
  p('IDCW REINVEST', 'credit', 'DIVIDEND_REINVEST'),
  p('REDEMPTION', 'debit', 'REDEMPTION'),
  p('REDEEM', 'debit', 'REDEMPTION'),
  p('BUYBACK', 'debit', 'REDEMPTION'),
  p('BUY BACK', 'debit', 'REDEMPTION'),
  p('MATURITY', 'debit', 'REDEMPTION'),
  // Units that change hands without a purchase or a sale: corporate actions and account moves.
  p('BONUS', 'credit', 'MISC'),
  p('SPLIT', 'any', 'MISC'),
  p('SUB DIVISION', 'any', 'MISC'),
  p('CONSOLIDATION', 'any', 'MISC'),
  p('DEMERGER', 'credit', 'MISC'),
  p('PLEDGE', 'any', 'MISC'),
  p('UNPLEDGE', 'any', 'MISC'),
  p('FREEZE', 'any', 'MISC'),
  p('UNFREEZE', 'any', 'MISC'),
  p('LOCK IN', 'any', 'MISC'),
  p('DEMAT CR', 'credit', 'MISC'),
  p('DEMATERIALISATION', 'credit', 'MISC'),
  p('REMAT DR', 'debit', 'MISC'),
  p('REMATERIALISATION', 'debit', 'MISC'),
  // Allotments (IPO, rights, NFO): bought from the issuer.
  p('IPO', 'credit', 'PURCHASE'),
  p('INITIAL PUBLIC OFFER', 'credit', 'PURCHASE'),
  p('ALLOTMENT', 'credit', 'PURCHASE'),
  p('RIGHTS', 'credit', 'PURCHASE'),
  // Market settlements (depository_a codes, depository_b phrases).
  p('PAYOUT CR', 'credit', 'PURCHASE'),
  p('PAY OUT', 'credit', 'PURCHASE'),
  p('BY MARKET PURCHASE', 'credit', 'PURCHASE'),
  p('MARKET PURCHASE', 'credit', 'PURCHASE'),
  p('PURCHASE', 'credit', 'PURCHASE'),
  p('EP DR', 'debit', 'REDEMPTION'),
  p('EARLY PAY IN', 'debit', 'REDEMPTION'),
  p('PAY IN', 'debit', 'REDEMPTION'),
  p('CM DR', 'debit', 'REDEMPTION'),
  p('TO MARKET SALE', 'debit', 'REDEMPTION'),
  p('MARKET SALE', 'debit', 'REDEMPTION'),
  p('SALE', 'debit', 'REDEMPTION'),
  // Transfers between accounts (inter-depository, off-market): units in or out.
  p('INTDEP CR', 'credit', 'PURCHASE'),
  p('INTDEP DR', 'debit', 'REDEMPTION'),
  p('OFF MARKET', 'credit', 'PURCHASE'),
  p('OFF MARKET', 'debit', 'REDEMPTION'),
  p('TRANSFER', 'credit', 'PURCHASE'),
  p('TRANSFER', 'debit', 'REDEMPTION'),
];

/** Upper case, punctuation as spaces, one space between words, one space at each end. */
const words = (s: string): string =>
  ` ${s
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim()} `;

const PREPARED = DEPOSITORY_PHRASINGS.map((x) => ({ ...x, words: words(x.phrase) }));

/**
 * The SPEC type of a depository transaction from its description and the units it moved
 * (positive: credited, negative: debited, zero or unknown: neither).
 */
export function depositoryTransactionType(description: string, units: number | null): TransactionType {
  const d = words(description);
  const dir: Direction | null = units === null || units === 0 ? null : units > 0 ? 'credit' : 'debit';
  for (const x of PREPARED) {
    if (x.direction !== 'any' && x.direction !== dir) continue;
    if (d.includes(x.words)) return x.type;
  }
  return dir === 'credit' ? 'PURCHASE' : dir === 'debit' ? 'REDEMPTION' : 'UNKNOWN';
}

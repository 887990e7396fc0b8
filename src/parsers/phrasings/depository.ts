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
  // depository_b's `Transactions` tab follows the description with its `Instruction Details`: a
  // corporate action (`Issuer Instruction (Corporate Action)`) that no word above names moves
  // units without a purchase or a sale.
  p('CORPORATE ACTION', 'any', 'MISC'),
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

// ------------------------------------------------------------------ mutual fund folio rows

/**
 * Which way a folio row moves units: `in` (bought, switched in, reinvested) or `out` (redeemed,
 * switched out, reversed).
 */
export type Moves = 'in' | 'out';

export interface FolioPhrasing {
  phrase: string;
  moves: Moves;
  type: TransactionType;
}

const fp = (phrase: string, moves: Moves, type: TransactionType): FolioPhrasing => ({ phrase, moves, type });

/**
 * Mutual fund folio rows printed inside depository statements (depository_b's `Mutual Funds
 * Transaction Statement`, depository_a's folios `HELD WITH MF/RTA`): the registrar's wording, with
 * the units printed unsigned, so the wording also says which way they move. First match wins, as
 * whole words: reversals, mergers, redemptions and withdrawals before switches, switches before
 * systematic purchases (a systematic switch is a switch, a systematic withdrawal a redemption),
 * those before a plain purchase.
 */
export const FOLIO_PHRASINGS: readonly FolioPhrasing[] = [
  // Rows undoing a purchase: the units go back out.
  fp('REVERSAL', 'out', 'REVERSAL'),
  fp('REJECTION', 'out', 'REVERSAL'),
  fp('REJECTED', 'out', 'REVERSAL'),
  // Schemes merged: units leave one scheme for another.
  fp('SWITCH OUT MERGER', 'out', 'SWITCH_OUT_MERGER'),
  fp('MERGER SWITCH OUT', 'out', 'SWITCH_OUT_MERGER'),
  fp('MERGER OUT', 'out', 'SWITCH_OUT_MERGER'),
  fp('SWITCH IN MERGER', 'in', 'SWITCH_IN_MERGER'),
  fp('MERGER SWITCH IN', 'in', 'SWITCH_IN_MERGER'),
  fp('MERGER IN', 'in', 'SWITCH_IN_MERGER'),
  // Redemptions and withdrawals (systematic ones too).
  fp('REDEMPTION', 'out', 'REDEMPTION'),
  fp('REPURCHASE', 'out', 'REDEMPTION'),
  fp('SYSTEMATIC WITHDRAWAL', 'out', 'REDEMPTION'),
  fp('SYS WITHDRAWAL', 'out', 'REDEMPTION'),
  fp('SWP', 'out', 'REDEMPTION'),
  // Switches and transfers between schemes.
  fp('SWITCH OUT', 'out', 'SWITCH_OUT'),
  fp('SWITCH OVER OUT', 'out', 'SWITCH_OUT'),
  fp('STP OUT', 'out', 'SWITCH_OUT'),
  fp('LATERAL SHIFT OUT', 'out', 'SWITCH_OUT'),
  fp('TRANSFER OUT', 'out', 'SWITCH_OUT'),
  fp('SWITCH IN', 'in', 'SWITCH_IN'),
  fp('SWITCH OVER IN', 'in', 'SWITCH_IN'),
  fp('STP IN', 'in', 'SWITCH_IN'),
  fp('LATERAL SHIFT IN', 'in', 'SWITCH_IN'),
  fp('TRANSFER IN', 'in', 'SWITCH_IN'),
  // Income distributions reinvested as units.
  fp('DIVIDEND REINVEST', 'in', 'DIVIDEND_REINVEST'),
  fp('DIVIDEND REINVESTMENT', 'in', 'DIVIDEND_REINVEST'),
  fp('IDCW REINVEST', 'in', 'DIVIDEND_REINVEST'),
  fp('IDCW REINVESTMENT', 'in', 'DIVIDEND_REINVEST'),
  fp('DIV REINVESTED', 'in', 'DIVIDEND_REINVEST'),
  // Systematic purchases (instalments of an SIP).
  fp('SYS INVESTMENT', 'in', 'PURCHASE_SIP'),
  fp('SYSTEMATIC INVESTMENT', 'in', 'PURCHASE_SIP'),
  fp('SYSTEMATIC PURCHASE', 'in', 'PURCHASE_SIP'),
  fp('PURCHASE SYSTEMATIC', 'in', 'PURCHASE_SIP'),
  fp('SIP', 'in', 'PURCHASE_SIP'),
  // Units allotted without a purchase.
  fp('BONUS', 'in', 'MISC'),
  // Purchases (lump sum, new fund offers).
  fp('PURCHASE', 'in', 'PURCHASE'),
  fp('NFO', 'in', 'PURCHASE'),
  fp('ALLOTMENT', 'in', 'PURCHASE'),
];

const FOLIO_PREPARED = FOLIO_PHRASINGS.map((x) => ({ ...x, words: words(x.phrase) }));

/**
 * A folio row's SPEC type and the direction of its units. The units may be printed signed (a minus
 * or parentheses: out) or unsigned (the wording decides). A signed row takes the first phrasing of
 * its direction, else its direction's generic type; an unsigned row the first phrasing of either
 * direction, else none (`moves` null: UNKNOWN, the units left as printed).
 */
export function folioTransaction(description: string, printedUnits: number | null): { type: TransactionType; moves: Moves | null } {
  const d = words(description);
  if (printedUnits !== null && printedUnits < 0) {
    const hit = FOLIO_PREPARED.find((x) => x.moves === 'out' && d.includes(x.words));
    return { type: hit?.type ?? 'REDEMPTION', moves: 'out' };
  }
  const hit = FOLIO_PREPARED.find((x) => d.includes(x.words));
  return hit ? { type: hit.type, moves: hit.moves } : { type: 'UNKNOWN', moves: null };
}

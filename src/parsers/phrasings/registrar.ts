/**
 * How registrar statements (registrar_a / registrar_b) word their transactions, as data: each
 * phrasing is a pattern over the lower-cased description, the direction of its units, the SPEC
 * transaction type it means, and the registrar that prints it when only one does. The first
 * matching phrasing wins, so the more specific ones come first (a reversal before a redemption,
 * a systematic transfer before a systematic investment). `examples` are descriptions as printed;
 * test/parsers/phrasings.test.ts classifies every one of them.
 */
import type { Phrasing } from './types.js';

/**
 * Dividend wording: the word and a mark that it was paid or reinvested (a rate, payout, sweep ...).
 * Anchored: the lookaheads scan the description once from its start (unanchored, a description
 * without the word was scanned again from every position).
 */
const DIVIDEND = String.raw`^(?=.*\b(?:idcw|dividend|div)\b)(?=.*(?:@|paid|payout|pay\s*out|reinvest|declared|sweep))`;

export const REGISTRAR_PHRASINGS: readonly Phrasing[] = [
  // Dividends (income distribution): reinvested when units come in or the text says so.
  {
    pattern: `${DIVIDEND}.*reinvest`,
    units: 'any',
    type: 'DIVIDEND_REINVEST',
    examples: ['IDCW Reinvestment @ Rs.0.50 per unit', 'Div. Reinvested @ Rs.1.25 per unit'],
  },
  { pattern: DIVIDEND, units: 'in', type: 'DIVIDEND_REINVEST', examples: ['Dividend Sweep In @ Rs.0.20 per unit'] },
  {
    pattern: DIVIDEND,
    units: 'any',
    type: 'DIVIDEND_PAYOUT',
    examples: ['IDCW Paid @ Rs.2.00 per unit', 'Dividend Payout', 'Div. Declared @ Rs 0.15'],
  },

  // Rows without units: taxes by keyword, else an informational row.
  { pattern: String.raw`stamp\s*duty`, units: 'none', type: 'STAMP_DUTY_TAX', examples: ['*** Stamp Duty ***', 'Stamp Duty on purchase'] },
  { pattern: String.raw`\btds\b`, units: 'none', type: 'TDS_TAX', examples: ['*** TDS on above ***', 'TDS deducted on IDCW'] },
  {
    pattern: String.raw`\bstt\b`,
    units: 'none',
    type: 'STT_TAX',
    examples: ['*** STT Paid ***', 'STT deducted on redemption', 'Purchase - STT (Merger)'],
  },
  {
    pattern: '',
    units: 'none',
    type: 'MISC',
    examples: ['***Address Updated***', '*** Registration of Nominee ***', '***Change of Bank Mandate***', 'Demat Transfer In - Nil'],
  },

  // A row printing zero units.
  { pattern: '', units: 'zero', type: 'UNKNOWN', examples: ['Transmission - Nil Units', 'Consolidation of folios'] },

  // Units in.
  {
    pattern: 'segregat',
    units: 'in',
    type: 'SEGREGATION',
    examples: ['Units allotted - Segregated Portfolio 1', 'Segregation of units - portfolio'],
  },
  {
    pattern: String.raw`merger|amalgamat`,
    units: 'in',
    type: 'SWITCH_IN_MERGER',
    examples: ['Switch-In - Merger from Axis Midcap Fund', 'Purchase - STT (Merger)', 'Units allotted on Merger', 'Amalgamation In'],
  },
  {
    pattern: String.raw`switch[\s-]*(?:over\s*)?in\b|switch.*\bfrom\b|lateral\s*shift\s*in|\bstp\s*in\b|systematic\s*transfer.*\bin\b|transfer[\s-]*in\b`,
    units: 'in',
    type: 'SWITCH_IN',
    examples: [
      'Switch In - From Axis Midcap Fund Direct Growth',
      '*Switch In',
      'Switch over In',
      'Switch Over In - Liquid Fund',
      'Lateral Shift In',
      'STP In',
      'Systematic Transfer In',
      'Demat Transfer In',
      'Transfer-In',
    ],
  },
  {
    pattern: String.raw`^\W*sys\.?\s*invest`,
    units: 'in',
    type: 'PURCHASE_SIP',
    registrar: 'KFINTECH',
    examples: ['Sys. Investment (1/12)', 'Sys.Investment (12/12)', 'Sys Investment (3/60)'],
  },
  {
    pattern: String.raw`\bsip\b|systematic|instal`,
    units: 'in',
    type: 'PURCHASE_SIP',
    examples: [
      'Systematic Investment (1/60)',
      'Purchase SIP',
      'SIP Purchase - Instalment 4',
      'SIP Purchase Instalment No - 7',
      'SIP Purchase - via Distributor',
    ],
  },
  { pattern: '', units: 'in', type: 'PURCHASE', examples: ['Purchase', 'Additional Purchase - via Internet', 'New Purchase', 'Bonus'] },

  // Units out.
  {
    pattern: String.raw`reversal|reject|dishono|insufficient\s*balance|payment\s*not\s*received|returned|mismatch`,
    units: 'out',
    type: 'REVERSAL',
    examples: [
      'Purchase Reversal - Payment not received',
      '*** Rejection - Insufficient Balance ***',
      'Sys. Investment Reversal (4/12)',
      'Cheque Dishonoured',
    ],
  },
  {
    pattern: String.raw`merger|amalgamat`,
    units: 'out',
    type: 'SWITCH_OUT_MERGER',
    examples: ['Switch-Out - Merger to Axis Small Cap Fund', 'Merger Switch Out'],
  },
  {
    pattern: String.raw`switch[\s-]*(?:over\s*)?out\b|switch.*\bto\b|lateral\s*shift\s*out|\bstp\s*out\b|systematic\s*transfer.*\bout\b|transfer[\s-]*out\b`,
    units: 'out',
    type: 'SWITCH_OUT',
    examples: [
      'Switch Out - To Axis Liquid Fund Direct Growth',
      '*Switch Out - To Quant Liquid Fund',
      'Switch over Out',
      'Lateral Shift Out',
      'STP Out',
      'Demat Transfer Out',
    ],
  },
  {
    pattern: '',
    units: 'out',
    type: 'REDEMPTION',
    examples: ['Redemption', 'Redemption - ELECTRONIC PAYMENT', 'Sys. Withdrawal (2/12)', 'SWP'],
  },
];

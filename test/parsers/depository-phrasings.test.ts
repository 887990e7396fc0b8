import { describe, expect, it } from 'vitest';
import {
  DEPOSITORY_PHRASINGS,
  depositoryTransactionType,
  FOLIO_PHRASINGS,
  folioTransaction,
} from '../../src/parsers/phrasings/depository.js';
import { TransactionType } from '../../src/schema/index.js';

const units = { credit: [12.5], debit: [-12.5], any: [12.5, -12.5] } as const;

describe('depository transaction phrasings (data: src/parsers/phrasings/depository.ts)', () => {
  it('every phrasing names a SPEC transaction type', () => {
    for (const x of DEPOSITORY_PHRASINGS) expect(TransactionType.options).toContain(x.type);
  });

  it.each(DEPOSITORY_PHRASINGS.map((x) => [`${x.phrase} (${x.direction})`, x] as const))(
    '%s gives its type, inside a longer description and in any case',
    (_t, x) => {
      for (const u of units[x.direction]) {
        expect(depositoryTransactionType(`${x.phrase} 2026045 SETTLEMENT`, u)).toBe(x.type);
        expect(depositoryTransactionType(`Txn ${x.phrase.toLowerCase().replace(/ /g, '-')}`, u)).toBe(x.type);
      }
    },
  );

  it.each([
    ['PAYOUT-CR BSE CM SETTLEMENT 2026045', 20, 'PURCHASE'],
    ['EP-DR SALE TO CLEARING MEMBER', -15, 'REDEMPTION'],
    ['INTDEP-CR PURCHASE THROUGH STOCK EXCHANGE', 100.5, 'PURCHASE'],
    ['INTDEP-DR TRANSFER', -3, 'REDEMPTION'],
    ['By Market Purchase', 10, 'PURCHASE'],
    ['To Market Sale', -10, 'REDEMPTION'],
    ['Cr Off Market', 4, 'PURCHASE'],
    ['CA-BONUS CREDIT 1:1', 40, 'MISC'],
    ['Merger credit of units', 250.125, 'SWITCH_IN_MERGER'],
    ['Merger debit of units', -250.125, 'SWITCH_OUT_MERGER'],
    ['SIP Purchase instalment', 9.87, 'PURCHASE_SIP'],
    ['Redemption of units', -9.87, 'REDEMPTION'],
    ['Pledge created', -5, 'MISC'],
    ['Purchase Reversal', -5, 'REVERSAL'],
    // depository_b's `Transactions` tab: description, then instruction details.
    ['By Bonus Issue - Issuer Instruction (Corporate Action)', 40, 'MISC'],
    ['By Allotment - Issuer Instruction (Corporate Action)', 40, 'PURCHASE'],
    ['By Capital Reduction - Issuer Instruction (Corporate Action)', -40, 'MISC'],
    ['By Market Purchase - Clearing Member Instruction', 10, 'PURCHASE'],
    ['To Market Sale - Delivery Instruction Slip', -10, 'REDEMPTION'],
  ] as const)('%s (%d units) is %s', (d, u, type) => expect(depositoryTransactionType(d, u)).toBe(type));

  it('an unknown wording is typed by its direction; a row moving no units is UNKNOWN', () => {
    expect(depositoryTransactionType('SOMETHING NEW', 1)).toBe('PURCHASE');
    expect(depositoryTransactionType('SOMETHING NEW', -1)).toBe('REDEMPTION');
    expect(depositoryTransactionType('SOMETHING NEW', 0)).toBe('UNKNOWN');
    expect(depositoryTransactionType('SOMETHING NEW', null)).toBe('UNKNOWN');
  });

  it('a phrasing for credits does not type a debit (and whole words only)', () => {
    expect(depositoryTransactionType('BONUS', -4)).toBe('REDEMPTION');
    expect(depositoryTransactionType('UNPLEDGE', 4)).toBe('MISC');
    expect(depositoryTransactionType('SIPCOT LIMITED TRANSFER', 4)).toBe('PURCHASE');
  });
});

describe('mutual fund folio phrasings in depository statements (FOLIO_PHRASINGS)', () => {
  it('every phrasing names a SPEC transaction type', () => {
    for (const x of FOLIO_PHRASINGS) expect(TransactionType.options).toContain(x.type);
  });

  it.each(FOLIO_PHRASINGS.map((x) => [`${x.phrase} (${x.moves})`, x] as const))(
    '%s gives its type and direction with the units unsigned, inside a longer description and in any case',
    (_t, x) => {
      expect(folioTransaction(`${x.phrase} - Instalment 3/12 - via Internet`, 12.5)).toEqual({ type: x.type, moves: x.moves });
      expect(folioTransaction(`Txn ${x.phrase.toLowerCase().replace(/ /g, '-')}`, 12.5)).toEqual({ type: x.type, moves: x.moves });
      // Units printed with a minus: a phrasing for units going out keeps its type.
      if (x.moves === 'out') expect(folioTransaction(x.phrase, -12.5)).toEqual({ type: x.type, moves: 'out' });
    },
  );

  it.each([
    ['Switch In - Systematic Transfer from Liquid Fund - Instalment 4/24', 'SWITCH_IN', 'in'],
    ['Redemption - Systematic Withdrawal Plan 2/12', 'REDEMPTION', 'out'],
    ['Purchase - Systematic Plan instalment 9', 'PURCHASE_SIP', 'in'],
    ['Sys. Investment (7/60)', 'PURCHASE_SIP', 'in'],
    ['SIP Purchase - Instalment No 5', 'PURCHASE_SIP', 'in'],
    ['Additional Purchase - Online', 'PURCHASE', 'in'],
    ['Switch In through STP - From Short Duration Fund', 'SWITCH_IN', 'in'],
    ['Switch Out - To Flexi Cap Fund - Instalment 4/24', 'SWITCH_OUT', 'out'],
    ['Switch-Out (Merger) - To Large Cap Fund', 'SWITCH_OUT_MERGER', 'out'],
    ['Switch-In (Merger) - From Focused Fund', 'SWITCH_IN_MERGER', 'in'],
    ['Sys. Investment Reversal (4/12)', 'REVERSAL', 'out'],
    ['IDCW Reinvestment @ Rs.0.50 per unit', 'DIVIDEND_REINVEST', 'in'],
    ['STP Out', 'SWITCH_OUT', 'out'],
  ] as const)('%s is %s (%s)', (d, type, moves) => expect(folioTransaction(d, 10)).toEqual({ type, moves }));

  it('an unsigned row whose wording says nothing is UNKNOWN with no direction; a signed one goes by its sign', () => {
    expect(folioTransaction('Consolidation of folios', 4)).toEqual({ type: 'UNKNOWN', moves: null });
    expect(folioTransaction('Something new', -4)).toEqual({ type: 'REDEMPTION', moves: 'out' });
    expect(folioTransaction('Purchase', -4)).toEqual({ type: 'REDEMPTION', moves: 'out' });
    // Whole words only: a scheme named after a word is not that word.
    expect(folioTransaction('SIPCOT Fund Units', 4)).toEqual({ type: 'UNKNOWN', moves: null });
  });
});

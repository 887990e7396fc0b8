import { describe, expect, it } from 'vitest';
import { DEPOSITORY_PHRASINGS, depositoryTransactionType } from '../src/parsers/phrasings/depository.js';
import { TransactionType } from '../src/schema/index.js';

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

/**
 * Depository sections of issue 31 that the layout suite varies at random, pinned here one trait at
 * a time: depository_a's own transaction table, the investor block on the cover, holder lines, and
 * the self-checks (units, unread sections) that turn a bad section into a warning.
 */
import { describe, expect, it } from 'vitest';
import { openPdf } from '../src/pdf/open.js';
import { parseDepositoryA } from '../src/parsers/depository-a/index.js';
import { ParsedStatement } from '../src/schema/index.js';
import { toDepositoryExpected, type DStatement } from './fixtures/depository-data.js';
import { toPdf, type Block } from './fixtures/depository-layout.js';
import { seededStatement } from './fixtures/depository-seeded.js';
import { CANONICAL_CHOICES, canonicalStyle, cdslDoc, type DepChoices } from './fixtures/depository-statement.js';
import { drawStyle, type LayoutStyle } from './fixtures/lib/layout.js';

/** A seeded depository_a statement with transactions on several holdings. */
function statement(seed: number): DStatement {
  for (let s = seed; ; s++) {
    const st = seededStatement('depository_a', drawStyle(s));
    if (st.accounts[0].holdings.filter((h) => h.txns.length).length >= 2) return st;
  }
}

async function parse(st: DStatement, style: Partial<LayoutStyle>, choices: Partial<DepChoices>, edit?: (b: Block[]) => void) {
  const s = { ...canonicalStyle(), ...style };
  const doc = cdslDoc(st, s, { ...CANONICAL_CHOICES, canonical: false, ...choices });
  edit?.(doc.blocks);
  return parseDepositoryA(await openPdf(new Uint8Array(await toPdf(doc, s))));
}

describe("depository_a's own transaction table and first page", () => {
  it.each([
    [
      'ISIN and security open each ISIN block, rows over several lines, page breaks inside blocks',
      { pageBreak: 'tight', wrap: 3 },
      { cdslTxns: 'isin-first' },
    ],
    [
      'ISIN repeated on every row, numbers on the last line',
      { numbersOnLastLine: true, wrap: 2 },
      { cdslTxns: 'isin-first', isinEveryRow: true },
    ],
    [
      'investor block on the cover: PAN line, email and mobile on one line, pincode ending the address',
      { cover: true },
      { investorOnCover: true, panLine: true, contactOneLine: true, pinInline: true },
    ],
    ['holder lines `First Holder Name : ... PAN No. : ...`', {}, { holders: 'name-label' }],
    ['holder lines with the PAN in parentheses', {}, { holders: 'paren' }],
    ['holder lines with the PAN on the line below', {}, { holders: 'pan-below' }],
  ] as [string, Partial<LayoutStyle>, Partial<DepChoices>][])('%s', async (_t, style, choices) => {
    const st = statement(3);
    const { data, warnings } = await parse(st, style, choices);
    expect(data).toEqual(toDepositoryExpected(st, 'depository_a'));
    expect(ParsedStatement.safeParse(data).success).toBe(true);
    expect(warnings).toEqual([]);
    expect(
      data.demat_accounts[0].holdings.equities
        .concat(data.demat_accounts[0].holdings.demat_mutual_funds)
        .some((h) => h.transactions.length) ||
        data.demat_accounts.some((a) =>
          Object.values(a.holdings)
            .flat()
            .some((h) => h.transactions.length),
        ),
    ).toBe(true);
  });
});

describe('depository self-checks (issue 31)', () => {
  it('a transaction table without a readable header: a warning naming the section and page, the rest still parses', async () => {
    const st = statement(5);
    const { data, warnings } = await parse(st, {}, { cdslTxns: 'isin-first' }, (blocks) => {
      for (const b of blocks)
        if (b.t === 'table' && b.cols.some((c) => c.label === 'Credit')) {
          b.cols = b.cols.map((c, i) => ({ ...c, label: `Col${i + 1}` }));
          b.header = b.cols.map((c) => [c.label]);
        }
    });
    expect(warnings.map((w) => w.code)).toEqual(['SectionUnread']);
    expect(warnings[0].message).toMatch(/^statement of transactions on pages? \d+/);
    const want = toDepositoryExpected(st, 'depository_a');
    const holdings = (d: typeof want) =>
      d.demat_accounts.flatMap((a) =>
        Object.values(a.holdings)
          .flat()
          .map((h) => [h.isin, h.units, h.value]),
      );
    expect(holdings(data)).toEqual(holdings(want));
    expect(data.demat_accounts.flatMap((a) => Object.values(a.holdings).flat()).every((h) => h.transactions.length === 0)).toBe(true);
    expect(data.mutual_funds).toEqual(want.mutual_funds);
  });

  it('closing units that are not opening + credits - debits are reported per holding (UnitsMismatch)', async () => {
    const st = statement(7);
    const moved = st.accounts[0].holdings.find((h) => h.txns.length)!;
    // The printed balances say one thing, the holding statement another (one unit more).
    const { warnings } = await parse(st, {}, { cdslTxns: 'isin-first' }, (blocks) => {
      for (const b of blocks)
        if (b.t === 'table' && b.header.flat().includes('Frozen Bal'))
          for (const r of b.rows) if (r.cells[0]?.[0] === moved.isin) r.cells[2] = [String(moved.units + 1)];
    });
    expect(warnings.map((w) => w.code)).toContain('UnitsMismatch');
    expect(warnings.find((w) => w.code === 'UnitsMismatch')!.message).toContain(moved.isin);
  });
});

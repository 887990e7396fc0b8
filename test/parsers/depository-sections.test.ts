/**
 * Depository sections of issue 31 that the layout suite varies at random, pinned here one trait at
 * a time: depository_a's own transaction table, the investor block on the cover, holder lines, and
 * the self-checks (units, unread sections) that turn a bad section into a warning.
 */
import { describe, expect, it } from 'vitest';
import { openPdf } from '../../src/pdf/open.js';
import { parseDepositoryA } from '../../src/parsers/depository-a/index.js';
import { parseDepositoryB } from '../../src/parsers/depository-b/index.js';
import { ParsedStatement } from '../../src/schema/index.js';
import { toDepositoryExpected, type DStatement } from '../fixtures/depository-data.js';
import { toPdf, type Block } from '../fixtures/depository-layout.js';
import { seededStatement } from '../fixtures/depository-seeded.js';
import {
  applyChoices,
  applyNsdlChoices,
  CANONICAL_CHOICES,
  canonicalStyle,
  cdslDoc,
  nsdlDoc,
  type DepChoices,
} from '../fixtures/depository-statement.js';
import { drawStyle, type LayoutStyle } from '../fixtures/lib/layout.js';

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

/** A seeded statement with transactions in at least two folio schemes, one of them moving units out. */
function folioStatement(kind: 'depository_a' | 'depository_b', seed: number): DStatement {
  for (let s = seed; ; s++) {
    const st = seededStatement(kind, drawStyle(s), { masked: false, folioTxns: true });
    const moved = st.folios.filter((f) => f.txns?.length);
    if (moved.length >= 2 && moved.some((f) => f.txns!.some((t) => t.moves === 'out'))) return st;
  }
}

async function parseFolios(
  kind: 'depository_a' | 'depository_b',
  st: DStatement,
  style: Partial<LayoutStyle>,
  choices: Partial<DepChoices>,
  edit?: (b: Block[]) => void,
) {
  const s = { ...canonicalStyle(), ...style };
  const ch = { ...CANONICAL_CHOICES, canonical: false, ...choices };
  const doc = kind === 'depository_a' ? cdslDoc(st, s, ch) : nsdlDoc(st, s, ch);
  edit?.(doc.blocks);
  const pdf = await openPdf(new Uint8Array(await toPdf(doc, s)));
  return kind === 'depository_a' ? parseDepositoryA(pdf) : parseDepositoryB(pdf);
}

describe('mutual fund folio transactions inside depository statements (issue 31)', () => {
  it.each([
    [
      'depository_b',
      'one table, a row per scheme opening its block, page breaks inside blocks',
      { pageBreak: 'tight', wrap: 3 },
      { folioTxnTable: 'one' },
    ],
    [
      'depository_b',
      'a table per scheme, units going out signed, numbers on the last line',
      { numbersOnLastLine: true, wrap: 2, headerLines: 3 },
      { folioTxnTable: 'per-scheme', folioUnitsSigned: true },
    ],
    ['depository_b', 'no folio number on the ISIN line', { rupee: 'Rs.' }, { folioOnIsinLine: false }],
    [
      'depository_a',
      'after the accounts, with income distribution and capital withdrawal columns',
      { headerLines: 2 },
      { folioTxnAt: 'end', idcwColumns: true },
    ],
    [
      'depository_a',
      'under the folio details, descriptions over three lines, tight pages',
      { pageBreak: 'tight', wrap: 3, numbersOnLastLine: true },
      { folioTxnAt: 'details', folioOnIsinLine: false },
    ],
  ] as ['depository_a' | 'depository_b', string, Partial<LayoutStyle>, Partial<DepChoices>][])(
    '%s: %s',
    async (kind, _t, style, choices) => {
      const st = folioStatement(kind, 11);
      const { data, warnings } = await parseFolios(kind, st, style, choices);
      expect(warnings).toEqual([]);
      expect(data).toEqual(toDepositoryExpected(st, kind));
      expect(ParsedStatement.safeParse(data).success).toBe(true);
      const schemes = data.mutual_funds.flatMap((f) => f.schemes).filter((x) => x.transactions.length);
      expect(schemes.length).toBeGreaterThanOrEqual(2);
      // Opening + movements = closing, in the output itself.
      for (const x of schemes)
        expect(
          Math.abs(x.additional_info.open_units! + x.transactions.reduce((a, t) => a + t.units!, 0) - x.additional_info.close_units!),
        ).toBeLessThan(0.0015);
      expect(schemes.flatMap((x) => x.transactions).some((t) => t.units! < 0 && t.amount! < 0)).toBe(true);
    },
  );

  it('a closing balance that is not opening + in - out: UnitsMismatch naming the scheme, the rows still read', async () => {
    const st = folioStatement('depository_b', 21);
    const moved = st.folios.find((f) => f.txns?.length)!;
    const { data, warnings } = await parseFolios('depository_b', st, {}, {}, (blocks) => {
      for (const b of blocks)
        if (b.t === 'table' && b.cols.some((c) => c.label.startsWith('Stamp Duty')))
          for (const r of b.rows)
            if (r.cells[1]?.[0] === 'Opening Balance' && r.cells[6]?.[0])
              r.cells[6] = [String(Number(r.cells[6][0].replace(/,/g, '')) + 1)];
    });
    expect(warnings.map((w) => w.code)).toContain('UnitsMismatch');
    expect(warnings.find((w) => w.code === 'UnitsMismatch')!.message).toContain(moved.isin);
    const want = toDepositoryExpected(st, 'depository_b');
    const txns = (d: typeof want) => d.mutual_funds.flatMap((f) => f.schemes.flatMap((x) => x.transactions));
    expect(txns(data)).toEqual(txns(want));
  });

  it('a row whose wording gives no direction is UNKNOWN with its units as printed, and said so; nothing is guessed', async () => {
    const st = folioStatement('depository_b', 31);
    const f = st.folios.find((x) => x.txns?.length)!;
    f.txns![0].desc = 'Consolidation of folios';
    const { data, warnings } = await parseFolios('depository_b', st, {}, {});
    const t = data.mutual_funds.flatMap((x) => x.schemes).find((x) => x.isin === f.isin)!.transactions[0];
    expect(t.type).toBe('UNKNOWN');
    expect(t.units).toBe(f.txns![0].units);
    expect(warnings.some((w) => w.code === 'UnitsMismatch' && w.message.includes(f.isin) && /no direction/.test(w.message))).toBe(true);
  });

  it('a block for a scheme the folio table does not hold: OrphanTransactions, the rest still parses', async () => {
    const st = folioStatement('depository_b', 41);
    const f = st.folios.find((x) => x.txns?.length)!;
    const { data, warnings } = await parseFolios('depository_b', st, {}, {}, (blocks) => {
      for (const b of blocks) if (b.t === 'table') b.rows = b.rows.filter((r) => r.cells[0]?.[0] !== f.isin);
    });
    expect(warnings.find((w) => w.code === 'OrphanTransactions')?.message).toContain(f.isin);
    expect(data.mutual_funds.flatMap((x) => x.schemes).some((x) => x.isin === f.isin)).toBe(false);
  });
});

describe("depository_a's account details (issue 31)", () => {
  it.each([
    ['title-case BO labels several on a line, email and mobile on the first account only', { boTitle: true, contactOnAccount: true }],
    ['upper-case BO labels, email and mobile on the first account only', { boTitle: false, contactOnAccount: true }],
    ['title-case BO labels, email and mobile in the investor block', { boTitle: true, contactOnAccount: false }],
  ] as [string, Partial<DepChoices>][])('%s', async (_t, choices) => {
    let st = statement(3);
    for (let s = 4; !st.accounts[0].bo; s++) st = statement(s);
    const ch = { ...CANONICAL_CHOICES, canonical: false, ...choices };
    applyChoices(st, ch);
    const { data, warnings } = await parse(st, {}, ch);
    expect(warnings).toEqual([]);
    expect(data).toEqual(toDepositoryExpected(st, 'depository_a'));
    expect(data.investor.email).toBe(st.investor.email);
    expect(data.investor.mobile).toBe(st.investor.mobile);
    expect(data.demat_accounts[0].additional_info.bo_sub_status).toBe(st.accounts[0].bo!.subStatus);
  });
});

/** A seeded depository_b statement with transactions on at least two holdings, one of them a net credit. */
function nsdlStatement(seed: number): DStatement {
  for (let s = seed; ; s++) {
    const st = seededStatement('depository_b', drawStyle(s), { masked: false, folioTxns: false });
    const moved = st.accounts.flatMap((a) => a.holdings).filter((h) => h.txns.length);
    if (moved.length >= 2 && moved.some((h) => h.txns.reduce((n, t) => n + t.credit - t.debit, 0) > 0)) return st;
  }
}

describe("depository_b's `Transactions` tab (issue 31)", () => {
  const dematOf = (d: ParsedStatement) => d.demat_accounts.map((a) => ({ ids: [a.dp_id, a.client_id], holdings: a.holdings }));

  it.each([
    ['without balance columns: the opening comes from the holding statement', {}, { tabBalances: false }],
    ['with opening and closing balance columns', {}, { tabBalances: true }],
    [
      'rows over several lines, numbers on the last line, page breaks inside the table',
      { wrap: 3, numbersOnLastLine: true, pageBreak: 'tight' },
      { tabBalances: false },
    ],
  ] as [string, Partial<LayoutStyle>, Partial<DepChoices>][])(
    '%s: each holding gets its rows, typed by the wording, instruction details after the description',
    async (_t, style, choices) => {
      const st = nsdlStatement(3);
      const ch: DepChoices = { ...CANONICAL_CHOICES, canonical: false, nsdlTxns: 'tab', ...choices };
      applyNsdlChoices(st, ch);
      const { data, warnings } = await parseFolios('depository_b', st, style, ch);
      expect(ParsedStatement.safeParse(data).success).toBe(true);
      const want = toDepositoryExpected(st, 'depository_b');
      expect(dematOf(data)).toEqual(dematOf(want));
      const txns = data.demat_accounts.flatMap((a) => Object.values(a.holdings).flat()).flatMap((h) => h.transactions);
      expect(txns.length).toBeGreaterThan(1);
      expect(txns.every((t) => / - (Issuer|Clearing|Delivery|Client) /.test(t.description))).toBe(true);
      expect(txns.every((t) => (t.balance === null) === !choices.tabBalances)).toBe(true);
      expect(warnings.filter((w) => w.code === 'UnitsMismatch' || w.code === 'OrphanTransactions' || w.code === 'SectionUnread')).toEqual(
        [],
      );
    },
  );

  it("`Mutual Fund Folios (F)`: a UCC printed `NOT AVAILABLE` beside the name's second line is neither an AMC heading nor part of the name", async () => {
    const st = nsdlStatement(3);
    expect(st.folios.length).toBeGreaterThan(1);
    const ch: DepChoices = { ...CANONICAL_CHOICES, canonical: false, uccFiller: true };
    const { data } = await parseFolios('depository_b', st, { wrap: 2 }, ch);
    expect(data.mutual_funds).toEqual(toDepositoryExpected(st, 'depository_b').mutual_funds);
    expect(data.mutual_funds.some((f) => /NOT AVAILABLE/.test(f.amc) || f.schemes.some((x) => /NOT AVAILABLE/.test(x.name)))).toBe(false);
  });

  it('transactions that credit more units than the holding statement holds: UnitsMismatch naming the holding', async () => {
    const st = nsdlStatement(3);
    const ch: DepChoices = { ...CANONICAL_CHOICES, canonical: false, nsdlTxns: 'tab', tabBalances: false };
    applyNsdlChoices(st, ch);
    const h = st.accounts.flatMap((a) => a.holdings).find((x) => x.txns.reduce((n, t) => n + t.credit - t.debit, 0) > 0)!;
    h.units = 0;
    h.value = 0;
    const { warnings } = await parseFolios('depository_b', st, {}, ch);
    const w = warnings.find((x) => x.code === 'UnitsMismatch' && x.message.includes(h.isin));
    expect(w?.message).toMatch(/would open at -/);
  });
});

import { describe, expect, it } from 'vitest';
import { openPdf } from '../../src/pdf/open.js';
import { parseDepositoryA } from '../../src/parsers/depository-a/index.js';
import { parseDepositoryB } from '../../src/parsers/depository-b/index.js';
import { ParsedStatement } from '../../src/schema/index.js';
import { buildDepositoryStatement, toDepositoryExpected, type DStatement } from '../fixtures/depository-data.js';
import { DSTYLE, renderCdsl, renderNsdl, type DepositoryStyle } from '../fixtures/depository-render.js';
import { expectedJson, fixture, manifest } from '../helpers/cas.js';
import { withEmbeddedFont } from '../fixtures/lib/pdf.js';
import type { LayoutStyle } from '../fixtures/lib/layout.js';
import { toPdf } from '../fixtures/depository-layout.js';
import { CANONICAL_CHOICES, canonicalStyle, cdslDoc, nsdlDoc, type DepChoices } from '../fixtures/depository-statement.js';
import type { Line } from '../../src/pdf/model.js';
import { piecesToWords } from '../../src/pdf/lines.js';
import { assignToColumns, readGrid } from '../../src/parsers/common/table/index.js';
import { DEPOSITORY_HEADERS } from '../../src/parsers/depository/vocabulary.js';

const PARSE = { depository_a: parseDepositoryA, depository_b: parseDepositoryB } as const;
const RENDER = { depository_a: renderCdsl, depository_b: renderNsdl } as const;

describe('depository goldens', () => {
  const entries = manifest().filter((m) => m.kind === 'depository_a' || m.kind === 'depository_b');
  it('the manifest has both depositories', () => expect(entries.map((e) => e.kind).sort()).toEqual(['depository_a', 'depository_b']));
  it.each(entries.map((m) => [m.path, m] as const))('%s equals its expected JSON exactly', async (_p, m) => {
    const doc = await openPdf(fixture(m.path), { password: m.password ?? undefined });
    const { data, warnings } = PARSE[m.kind as 'depository_a'](doc);
    expect(data).toEqual(expectedJson(m.expected));
    expect(ParsedStatement.safeParse(data).success).toBe(true);
    expect(warnings).toEqual([]);
  });
});

type Variant = [string, Partial<DepositoryStyle>, ((s: DStatement) => void)?];
const VARIANTS: Variant[] = [
  ['tables continuing across pages', { pageBottom: 420 }],
  ['page breaks everywhere', { pageBottom: 300 }],
  ['security names wrapping onto three lines', { nameWrap: 80 }],
  ['ISIN on one line', { splitIsin: false }],
  ['no cover page', { cover: false }],
  ['no rupee sign at all', { rupee: '' }],
  ['no mutual fund folio section', {}, (s) => (s.folios = [])],
  ['no NPS', {}, (s) => (s.nps = [])],
  ['no insurance', {}, (s) => (s.policies = [])],
  [
    'no transactions in the period',
    {},
    (s) =>
      s.accounts.forEach((a) =>
        a.holdings.forEach((h) => {
          h.txns = [];
          h.open = h.units;
        }),
      ),
  ],
  [
    'demat accounts only',
    {},
    (s) => {
      s.folios = [];
      s.nps = [];
      s.policies = [];
    },
  ],
  [
    'a single account with a single holding kind',
    {},
    (s) => {
      s.accounts = s.accounts.slice(0, 1);
      s.accounts[0].holdings = s.accounts[0].holdings.filter((h) => h.kind === 'equities');
    },
  ],
  ['three joint holders', {}, (s) => s.accounts[1].holders.push({ name: 'KABIR MEHTA', pan: 'CDEPM9012M' })],
  ['no Devanagari overlay on the headings', { devanagari: false }],
  ['Devanagari overlay with page breaks everywhere', { devanagari: true, pageBottom: 300 }],
];

for (const kind of ['depository_a', 'depository_b'] as const) {
  describe(`${kind} robustness: one real-world trait changed at a time`, () => {
    it.each(VARIANTS)('%s', async (_name, style, change) => {
      const st = buildDepositoryStatement(kind);
      change?.(st);
      const pdf = await RENDER[kind](st, { ...DSTYLE, ...style });
      const { data, warnings } = PARSE[kind](await openPdf(new Uint8Array(pdf)));
      expect(data).toEqual(toDepositoryExpected(st, kind));
      expect(warnings).toEqual([]);
    });
  });
}

describe('depository statements in an embedded, subset TrueType font (real widths and kerning)', () => {
  it.each(['depository_a', 'depository_b'] as const)('%s parses the same', async (kind) => {
    const st = buildDepositoryStatement(kind);
    const pdf = await withEmbeddedFont(() => RENDER[kind](st, { ...DSTYLE, pageBottom: 420 }));
    expect(pdf.includes(Buffer.from('/FontFile2'))).toBe(true);
    const { data, warnings } = PARSE[kind](await openPdf(new Uint8Array(pdf)));
    expect(data).toEqual(toDepositoryExpected(st, kind));
    expect(warnings).toEqual([]);
  });
});

describe('depository self-checks', () => {
  it('a holding that does not add up to the account value is reported as a warning', async () => {
    const st = buildDepositoryStatement('depository_b');
    const pdf = await renderNsdl(st);
    const doc = await openPdf(new Uint8Array(pdf));
    // Drop one holding row from the document: the account no longer adds up to the summary.
    for (const p of doc.pages) p.lines = p.lines.filter((l) => l.pieces[0]?.text !== 'INE467B01029');
    const { warnings } = parseDepositoryB(doc);
    expect(warnings.map((w) => w.code)).toEqual(['AccountValueMismatch', 'TotalMismatch']);
    expect(warnings[0].message).toMatch(/IN300476 41234567/);
  });
});

// ---------------------------------------------------------------- real-world traits in the new layout

type Trait = [string, Partial<LayoutStyle>, Partial<DepChoices>, ((s: DStatement) => void)?];
const TRAITS: Trait[] = [
  ['the canonical look (cover, id line on page 2, summary on its own page)', {}, {}],
  [
    'headers stacked over four lines, names over four lines, numbers on the last line',
    { headerLines: 4, wrap: 4, numbersOnLastLine: true },
    {},
  ],
  ['one text operator per glyph, Courier, Indian grouping', { runs: 'glyph', font: 'Courier', grouping: 'indian' }, {}],
  ['merged number runs, western grouping, minus signs', { runs: 'merged', grouping: 'western', negatives: 'minus' }, {}],
  ['a side paragraph beside the investor block, no cover', { sideParagraph: true, cover: false }, {}],
  ['header row over a value row for folio details, no colons', { blocks: 'rows', labelColon: 'none' }, {}],
  ['very short pages: accounts and tables continue across pages', { pageBreak: 'tight' }, {}],
  ['left-aligned numbers and jittered columns', { numberAlign: 'left', jitter: 11 }, {}],
  [
    'the period as `for the month of`, a PIN line label, stacked NSDL account labels',
    {},
    { monthLine: true, pinLabel: 'PIN:', oneLineAccount: false },
  ],
  ['units on a second line, stock symbols under the ISIN', {}, { unitsWrap: true, symbol: 'under-isin' }],
  [
    'masked PANs kept as printed',
    {},
    {},
    (s) => s.accounts.forEach((a) => a.holders.forEach((h) => (h.pan = `${h.pan.slice(0, 2)}XXXXXX${h.pan.slice(8)}`))),
  ],
  ['sub-totals and blank rows', { subtotals: true, blankRows: true }, {}],
];

describe("depository real-world traits in the issuers' current layout (pdfkit)", () => {
  for (const kind of ['depository_a', 'depository_b'] as const) {
    it.each(TRAITS)(`${kind}: %s`, async (_name, style, choices, change) => {
      const st = buildDepositoryStatement(kind);
      change?.(st);
      st.investor.pan = st.accounts[0].holders[0].pan;
      const s = { ...canonicalStyle(), ...style };
      const doc = (kind === 'depository_a' ? cdslDoc : nsdlDoc)(st, s, { ...CANONICAL_CHOICES, canonical: false, ...choices });
      const { data, warnings } = PARSE[kind](await openPdf(new Uint8Array(await toPdf(doc, s))));
      expect(data).toEqual(toDepositoryExpected(st, kind));
      expect(warnings).toEqual([]);
    });
  }
});

describe('canonical depository fixtures look like genuine statements', () => {
  it.each(['depository_a', 'depository_b'] as const)(
    '%s: page 1 is a cover, the id line and the summary open page 2, accounts start on page 3',
    async (kind) => {
      const m = manifest().find((e) => e.kind === kind)!;
      const doc = await openPdf(fixture(m.path), { password: m.password ?? undefined });
      const pageText = (n: number): string => doc.pages[n - 1].lines.map((l) => l.text).join('\n');
      expect(pageText(1)).not.toMatch(/CAS ID|NSDL ID:\s*\d+\s*$/m);
      expect(pageText(2)).toMatch(kind === 'depository_a' ? /^CAS ID/m : /^NSDL ID/m);
      expect(pageText(2)).toMatch(/Demat Account[\s\S]*DP I[Dd]/);
      expect(pageText(3)).toMatch(kind === 'depository_a' ? /DP Name\s*:.*BO ID\s*:/ : /DP ID: \S+ Client ID: \d+/);
    },
  );
});

describe('table headers read as word sets', () => {
  const line = (y: number, pieces: [string, number][], size = 7): Line => {
    const ps = pieces.map(([text, x0]) => ({ text, x0, x1: x0 + text.length * size * 0.5, y, size }));
    return { y, pieces: ps, words: piecesToWords(ps), text: ps.map((p) => p.text).join('  '), page: 1 };
  };
  it('a header stacked over four lines gives one column per label, by overlap', () => {
    const lines = [
      line(10, [
        ['ISIN', 30],
        ['No.', 300],
        ['Market', 380],
        ['Value', 460],
      ]),
      line(18, [
        ['of', 300],
        ['Price', 380],
        ['in', 460],
      ]),
      line(26, [
        ['Shares', 300],
        ['`', 460],
      ]),
      line(34, [['Company', 100]]),
    ];
    const g = readGrid(lines, 0, DEPOSITORY_HEADERS)!;
    expect(g.columns.map((c) => c.role)).toEqual(['isin', 'name', 'units', 'price', 'value']);
    expect(g.next).toBe(4);
  });
  it('labels drawn so close that they share one text piece are split by the label vocabulary', () => {
    const g = readGrid(
      [
        line(10, [
          ['ISIN', 30],
          ['Security', 80],
          ['Current Bal Frozen Bal Pledge Bal Pledge Setup Bal', 220],
          ['Free Bal', 420],
          ['Value', 520],
        ]),
      ],
      0,
      DEPOSITORY_HEADERS,
    )!;
    expect(g.columns.map((c) => c.label)).toEqual([
      'ISIN',
      'Security',
      'Current Bal',
      'Frozen Bal',
      'Pledge Bal',
      'Pledge Setup Bal',
      'Free Bal',
      'Value',
    ]);
    expect(g.columns.filter((c) => c.numeric).map((c) => c.role)).toEqual(['units', 'other', 'other', 'other', 'other', 'value']);
  });
  it('numbers go to numeric columns by order when their count matches, else by overlap from the right', () => {
    const cols = [
      { label: 'Credit', role: 'credit', numeric: true, x0: 400, x1: 430 },
      { label: 'Debit', role: 'debit', numeric: true, x0: 450, x1: 475 },
      { label: 'Balance', role: 'balance', numeric: true, x0: 500, x1: 540 },
    ];
    expect([
      ...assignToColumns(
        [
          { text: '3', x0: 468, x1: 475 },
          { text: '351', x0: 525, x1: 540 },
        ],
        cols,
      ),
    ]).toEqual([
      ['balance', '351'],
      ['debit', '3'],
    ]);
    // More numbers than columns: the rightmost ones are placed, the one ending a description is not.
    expect([
      ...assignToColumns(
        [
          { text: '12', x0: 300, x1: 310 },
          { text: '5', x0: 420, x1: 430 },
          { text: '7', x0: 465, x1: 475 },
          { text: '9', x0: 530, x1: 540 },
          { text: '2', x0: 200, x1: 205 },
        ],
        cols,
        new Set(),
      ),
    ]).toEqual([
      ['balance', '9'],
      ['debit', '7'],
      ['credit', '5'],
    ]);
    // A number jittered over its neighbour's column leaves the right-aligned one after it in place.
    expect(
      Object.fromEntries(
        assignToColumns(
          [
            { text: '53', x0: 468, x1: 476 },
            { text: '12', x0: 480, x1: 487 },
            { text: '65', x0: 551, x1: 559 },
          ],
          [
            { label: 'Op. Bal', role: 'open', numeric: true, x0: 423, x1: 453 },
            { label: 'Credit', role: 'credit', numeric: true, x0: 466, x1: 487 },
            { label: 'Debit', role: 'debit', numeric: true, x0: 499, x1: 518 },
            { label: 'Cl. Bal', role: 'balance', numeric: true, x0: 530, x1: 559 },
          ],
          new Set(),
        ),
      ),
    ).toEqual({ open: '53', credit: '12', balance: '65' });
    expect([
      ...assignToColumns(
        [
          { text: '1', x0: 10, x1: 15 },
          { text: '2', x0: 20, x1: 25 },
          { text: '3', x0: 30, x1: 35 },
        ],
        cols,
      ),
    ]).toEqual([
      ['credit', '1'],
      ['debit', '2'],
      ['balance', '3'],
    ]);
  });
});

describe('depository errors name the section and page', () => {
  it('a depository_a statement with no account or folio says what it looked for and where', async () => {
    const st = buildDepositoryStatement('depository_a');
    const s = canonicalStyle();
    const doc = await openPdf(new Uint8Array(await toPdf(cdslDoc(st, s, CANONICAL_CHOICES), s)));
    for (const p of doc.pages) p.lines = p.lines.filter((l) => !/^DP Name|^MUTUAL FUND UNITS/.test(l.text));
    expect(() => parseDepositoryA(doc)).toThrow(
      /no demat account \("DP Name : \.\.\. BO ID : \.\.\."\) or mutual fund folio found after the investor block on page 2/,
    );
  });
});

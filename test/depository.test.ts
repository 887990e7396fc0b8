import { describe, expect, it } from 'vitest';
import { openPdf } from '../src/pdf/open.js';
import { parseDepositoryA } from '../src/parsers/depository-a/index.js';
import { parseDepositoryB } from '../src/parsers/depository-b/index.js';
import { ParsedStatement } from '../src/schema/index.js';
import { buildDepositoryStatement, toDepositoryExpected, type DStatement } from './fixtures/depository-data.js';
import { DSTYLE, renderCdsl, renderNsdl, type DepositoryStyle } from './fixtures/depository-render.js';
import { expectedJson, fixture, manifest } from './helpers.js';
import { withEmbeddedFont } from './fixtures/lib/pdf.js';

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
  ['no transactions in the period', {}, (s) => s.accounts.forEach((a) => a.holdings.forEach((h) => { h.txns = []; h.open = h.units; }))],
  ['demat accounts only', {}, (s) => { s.folios = []; s.nps = []; s.policies = []; }],
  ['a single account with a single holding kind', {}, (s) => { s.accounts = s.accounts.slice(0, 1); s.accounts[0].holdings = s.accounts[0].holdings.filter((h) => h.kind === 'equities'); }],
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

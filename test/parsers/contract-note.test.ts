import { describe, expect, it } from 'vitest';
import { openPdf } from '../../src/pdf/open.js';
import { parseContractNote } from '../../src/parsers/contract-note/index.js';
import { ContractNote, type BrokerType } from '../../src/schema/index.js';
import { buildNote, toContractExpected, type NoteOptions } from '../fixtures/contract-data.js';
import { renderNote, type NoteStyle } from '../fixtures/contract-render.js';
import { cas, expectedJson, fixture, manifest } from '../helpers/cas.js';
import { withEmbeddedFont } from '../fixtures/lib/pdf.js';
import { expectedFor, plan, renderPlanPdf, seededNote } from '../fixtures/contract-layout.js';
import { drawStyle, type LayoutStyle } from '../fixtures/lib/layout.js';
import { genericCharge, genericColumn } from '../../src/parsers/contract-note/layouts/generic.js';
import type { Trade } from '../../src/parsers/contract-note/trades.js';

const BROKERS: BrokerType[] = ['broker_a', 'broker_b', 'broker_c', 'broker_d', 'unknown'];

describe('contract note goldens', () => {
  const entries = manifest().filter((m) => m.kind === 'contract_note');
  it('one fixture per broker and one unknown broker', () => expect(entries).toHaveLength(5));
  it.each(entries.map((m) => [m.path, m] as const))('%s equals its expected JSON exactly', async (_p, m) => {
    const { data, warnings } = parseContractNote(await openPdf(fixture(m.path), { password: m.password ?? undefined }));
    expect(data).toEqual(expectedJson(m.expected));
    expect(ContractNote.safeParse(data).success).toBe(true);
    expect(warnings).toEqual([]);
  });
});

const VARIANTS: [string, NoteOptions, Partial<NoteStyle>][] = [
  ['multi-page trade table', { extraTrades: 70 }, { pageBottom: 560 }],
  ['trade table crossing a short page', { extraTrades: 12 }, { pageBottom: 150 }],
  ['derivatives-only note', { equity: false }, {}],
  ['equity-only note (delivery and intraday square-off)', { derivatives: false }, {}],
  ['optional charge rows left out (zero rows absent)', {}, { optionalRowsAbsent: true }],
  ['equity-only with no clearing or unused GST rows', { derivatives: false }, { optionalRowsAbsent: true }],
];

for (const b of BROKERS) {
  describe(`${b} robustness`, () => {
    it.each(VARIANTS)('%s', async (_name, opts, style) => {
      const note = buildNote(b, opts);
      const pdf = await renderNote(note, { pageBottom: 560, ...style });
      const { data, warnings } = parseContractNote(await openPdf(new Uint8Array(pdf)));
      expect(data).toEqual(toContractExpected(note));
      expect(warnings).toEqual([]);
    });
  });
}

describe('contract notes in an embedded, subset TrueType font (real widths and kerning)', () => {
  it.each(BROKERS)('%s parses the same', async (b) => {
    const note = buildNote(b, { extraTrades: 20 });
    const pdf = await withEmbeddedFont(() => renderNote(note, { pageBottom: 560 }));
    expect(pdf.includes(Buffer.from('/FontFile2'))).toBe(true);
    const { data, warnings } = parseContractNote(await openPdf(new Uint8Array(pdf)));
    expect(data).toEqual(toContractExpected(note));
    expect(warnings).toEqual([]);
  });
});

describe('broker override and self-checks', () => {
  it('--broker given overrides detection for an unknown broker when the layout matches', async () => {
    const note = buildNote('broker_a');
    note.broker = { ...note.broker, name: 'Some Sub-Broker Ltd (clearing via partner)' };
    const { data } = parseContractNote(await openPdf(new Uint8Array(await renderNote(note))), { broker: 'broker_a' });
    expect(data.broker_info.broker_type).toBe('broker_a');
    expect(data.detailed_trades).toHaveLength(7);
  });

  it('a document that contradicts the given broker is a clear error, not wrong numbers', async () => {
    const doc = await openPdf(fixture('contract_note/broker_b.pdf'), { password: 'ABCPM1234K' });
    expect(() => parseContractNote(doc, { broker: 'broker_a' })).toThrow(
      /--broker broker_a was given, but this contract note is from broker_b/,
    );
    const r = await cas(['parse', '--type', 'contract_note', '--broker', 'broker_c', fixture('contract_note/broker_b.pdf')], {
      env: { CAS_PDF_PASSWORD: 'ABCPM1234K' },
    });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
  });

  it('an unknown broker forced into a known layout it does not have is refused', async () => {
    const doc = await openPdf(fixture('contract_note/unknown.pdf'), { password: 'ABCPM1234K' });
    expect(() => parseContractNote(doc, { broker: 'broker_c' })).toThrow(/trade table of a broker_c contract note was not found/);
  });

  it('GST and net-amount mismatches are warnings', async () => {
    const doc = await openPdf(fixture('contract_note/broker_a.pdf'), { password: 'ABCPM1234K' });
    for (const p of doc.pages)
      for (const l of p.lines)
        if (/^IGST/.test(l.pieces[0]?.text ?? '')) {
          for (const piece of l.pieces.slice(1)) piece.text = '(99.99)';
          for (const w of l.words.slice(-3)) w.text = '(99.99)';
        }
    const { warnings } = parseContractNote(doc);
    expect(warnings.map((w) => w.code)).toEqual(['GstMismatch', 'NetMismatch']);
  });

  it('cas parse --type contract_note --broker runs it; --no-input without a password exits 3', async () => {
    const ok = await cas(['parse', '--type', 'contract_note', '--broker', 'broker_a', fixture('contract_note/broker_a.pdf')], {
      env: { CAS_PDF_PASSWORD: 'ABCPM1234K' },
    });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual(expectedJson('expected/contract-note-broker_a.json'));
    const no = await cas(['--no-input', 'parse', '--broker', 'broker_a', fixture('contract_note/broker_a.pdf')]);
    expect(no.exitCode).toBe(3);
    expect(no.stderr).toMatch(/password-protected/);
  });
});

describe('traits of genuine notes (seeded layouts drawn by pdfkit, expected JSON from the data)', () => {
  const parseStyled = async (broker: BrokerType, seed: number, over: Partial<LayoutStyle>) => {
    const s: LayoutStyle = { ...drawStyle(seed), ...over };
    const note = seededNote(broker, s);
    const p = plan(note, s);
    const { data } = parseContractNote(await openPdf(new Uint8Array(await renderPlanPdf(p, s))));
    return { data, note, p };
  };
  it('labels without a colon, values in spaced columns, a lower-case month (`Trade Date   01-apr-2026`)', async () => {
    const { data, p } = await parseStyled('unknown', 3, { labelColon: 'none', blocks: 'inline', synonym: 2 });
    expect(data).toEqual(expectedFor(p));
    expect(data.broker_info.broker_type).toBe('unknown');
  });
  it('header cells stacked over four lines, descriptions wrapping with `SYMBOL / ISIN` on the next line, numbers on the last line', async () => {
    for (const seed of [5, 11, 17]) {
      const { data, p } = await parseStyled('broker_a', seed, { headerLines: 4, wrap: 3, numbersOnLastLine: true });
      expect(p.cols.some((c) => c.label.length > 1)).toBe(true);
      expect(data).toEqual(expectedFor(p));
    }
  });
  it('per-exchange sub-total rows (`NSE - Sub total`) and informational rows are skipped', async () => {
    const { data, p } = await parseStyled('broker_d', 8, { subtotals: true, blankRows: true });
    expect(p.rows.some((r) => r.kind === 'sub')).toBe(true);
    expect(data).toEqual(expectedFor(p));
  });
  it('order number and order time in one text run; runs per word and per glyph', async () => {
    for (const runs of ['merged', 'word', 'glyph'] as const) {
      const { data, p } = await parseStyled('broker_b', 21, { runs });
      expect(data).toEqual(expectedFor(p));
    }
  });
  it('a back-office template without an Exchange column: segment sub-headings, `N/A` closing rates, GST rate rows, `Dr`/`Cr` amounts', async () => {
    const { data, p } = await parseStyled('unknown', 4, { negatives: 'minus', synonym: 1 });
    expect(p.cols.some((c) => c.keys.includes('exchange'))).toBe(false);
    expect(p.charges.some((r) => / (Dr|Cr)$/.test(r[r.length - 1]))).toBe(true);
    expect(data).toEqual(expectedFor(p));
    expect(data.detailed_trades.every((t) => t.exchange !== '')).toBe(true);
  });
  it('charges printed as columns (one header cell per charge, a TOTAL(NET) row), landscape', async () => {
    const { data, p } = await parseStyled('unknown', 4, { synonym: 2 });
    expect(p.chargeColumns).not.toBeNull();
    expect(data).toEqual(expectedFor(p));
  });
});

describe('generic vocabulary', () => {
  it('reads column labels of any broker, one cell naming two columns', () => {
    expect(genericColumn('buy b quantity sell s')).toEqual(['bs', 'qty']);
    expect(genericColumn('order no order time')).toEqual(['orderNo', 'orderTime']);
    expect(genericColumn('gross rate trade price per unit rs')).toEqual(['rate']);
    expect(genericColumn('closing rate per unit only for derivatives')).toEqual(['closing']);
  });
  it('reads charge rows by their words, rate rows and sub-totals left out', () => {
    expect(genericCharge('taxable value of supply exchange transaction charges rs')).toBe('exchange');
    expect(genericCharge('taxable value of supply sebi turnover fees rs')).toBe('sebi');
    expect(genericCharge('cgst rate')).toBe('ignore');
    expect(genericCharge('cgst rate 9 0000')).toBe('cgst');
    expect(genericCharge('scrip total')).toBe('ignore');
    expect(genericCharge('total brokerage')).toBe('brokerage');
    expect(genericCharge('pay in obligation')).toBe('obligation');
  });
});

describe('an ISIN ends in its check digit', () => {
  it('a security name cut at its cell (`IRCON INTERNATIONA`) is no ISIN: the wrapped lines under each trade stay its own', async () => {
    const { assemble } = await import('../../src/parsers/contract-note/trades.js');
    const { ISIN_RE } = await import('../../src/parsers/common.js');
    expect(ISIN_RE.test('INTERNATIONA')).toBe(false);
    expect(ISIN_RE.test('INE062A01020')).toBe(true);
    const trade = (n: string) => ({ trade_number: n, security_description: '' }) as unknown as Trade;
    const rows = [
      ['1', ['IRCON', 'INTERNATIONA'], ['L LIMITED-MTF-INE9', '62Y01021']],
      ['2', ['IRCON', 'INTERNATIONA'], ['L LIMITED-MTF-INE9', '62Y01021']],
      ['3', ['STATE', 'BANK', 'OF', 'INDI'], ['A-MTF-INE062A01020']],
      ['4', ['STATE', 'BANK', 'OF', 'INDI'], ['A-MTF-INE062A01020']],
    ] as const;
    const events: Parameters<typeof assemble>[0] = [{ kind: 'header' }];
    let y = 100;
    for (const [n, desc, frags] of rows) {
      events.push({ kind: 'anchor', trade: trade(n), desc: [...desc], y, page: 1 });
      for (const f of frags) events.push({ kind: 'frag', text: f, y: (y += 9), page: 1 });
      y += 34;
    }
    const out = assemble(events);
    expect(out.map((t) => t.security_description)).toEqual([
      'IRCON INTERNATIONA L LIMITED-MTF-INE9 62Y01021',
      'IRCON INTERNATIONA L LIMITED-MTF-INE9 62Y01021',
      'STATE BANK OF INDI A-MTF-INE062A01020',
      'STATE BANK OF INDI A-MTF-INE062A01020',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { openPdf } from '../src/pdf/open.js';
import { parseContractNote } from '../src/parsers/contract-note/index.js';
import { ContractNote, type BrokerType } from '../src/schema/index.js';
import { buildNote, toContractExpected, type NoteOptions } from './fixtures/contract-data.js';
import { renderNote, type NoteStyle } from './fixtures/contract-render.js';
import { cas, expectedJson, fixture, manifest } from './helpers.js';
import { withEmbeddedFont } from './fixtures/lib/pdf.js';

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
    expect(() => parseContractNote(doc, { broker: 'broker_a' })).toThrow(/--broker broker_a was given, but this contract note is from broker_b/);
    const r = await cas(['parse', '--type', 'contract_note', '--broker', 'broker_c', fixture('contract_note/broker_b.pdf')], { env: { CAS_PDF_PASSWORD: 'ABCPM1234K' } });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
  });

  it('an unknown broker forced into a known layout it does not have is refused', async () => {
    const doc = await openPdf(fixture('contract_note/unknown.pdf'), { password: 'ABCPM1234K' });
    expect(() => parseContractNote(doc, { broker: 'broker_c' })).toThrow(/trade table of a broker_c contract note was not found/);
  });

  it('GST and net-amount mismatches are warnings', async () => {
    const doc = await openPdf(fixture('contract_note/broker_a.pdf'), { password: 'ABCPM1234K' });
    for (const p of doc.pages) for (const l of p.lines) if (/^IGST/.test(l.pieces[0]?.text ?? '')) for (const piece of l.pieces.slice(1)) piece.text = '(99.99)';
    const { warnings } = parseContractNote(doc);
    expect(warnings.map((w) => w.code)).toEqual(['GstMismatch', 'NetMismatch']);
  });

  it('cas parse --type contract_note --broker runs it; --no-input without a password exits 3', async () => {
    const ok = await cas(['parse', '--type', 'contract_note', '--broker', 'broker_a', fixture('contract_note/broker_a.pdf')], { env: { CAS_PDF_PASSWORD: 'ABCPM1234K' } });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual(expectedJson('expected/contract-note-broker_a.json'));
    const no = await cas(['--no-input', 'parse', '--broker', 'broker_a', fixture('contract_note/broker_a.pdf')]);
    expect(no.exitCode).toBe(3);
    expect(no.stderr).toMatch(/password-protected/);
  });
});

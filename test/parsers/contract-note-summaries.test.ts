/**
 * Issue 31, contract notes: per-security summaries (scrip-wise summaries with `Sub Total` rows,
 * computed from the trades when none is printed), their reconciliation with the trades, and the
 * layouts genuine notes print (`Order No / Time` value over value, `NAME / ISIN` cells, `Dr` / `Cr`
 * net obligations, wrapped addresses, UCC labels, settlement number and date under one label).
 * Notes are drawn by the generator (pdfkit); the expected JSON is built from the generator's data.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openPdf } from '../../src/pdf/open.js';
import { parseContractNote } from '../../src/parsers/contract-note/index.js';
import { scripColumn } from '../../src/parsers/contract-note/scrip-summary.js';
import { ContractNote, type BrokerType } from '../../src/schema/index.js';
import { expectedFor, plan, renderPlanPdf, seededNote, type Extra, type Plan } from '../fixtures/contract-layout.js';
import { drawStyle, type LayoutStyle } from '../fixtures/lib/layout.js';
import { cas } from '../helpers/cas.js';

const render = async (
  broker: BrokerType,
  seed: number,
  over: Partial<Extra>,
  style: Partial<LayoutStyle> = {},
  edit?: (p: Plan) => void,
) => {
  const s: LayoutStyle = { ...drawStyle(seed), ...style };
  const p = plan(seededNote(broker, s), s, over);
  edit?.(p);
  const pdf = new Uint8Array(await renderPlanPdf(p, s));
  return { p, pdf };
};
const parse = async (
  broker: BrokerType,
  seed: number,
  over: Partial<Extra>,
  style: Partial<LayoutStyle> = {},
  edit?: (p: Plan) => void,
) => {
  const { p, pdf } = await render(broker, seed, over, style, edit);
  const { data, warnings } = parseContractNote(await openPdf(pdf));
  expect(ContractNote.safeParse(data).success).toBe(true);
  return { p, data, warnings };
};

describe('scrip-wise summaries', () => {
  it('the header vocabulary names every column of the printed header', () => {
    const got = [
      'exchange',
      'security description',
      'quantity bought',
      'quantity sold',
      'total gross rs',
      'average rate rs',
      'brokerage total',
      'gst on brokerage rs',
      'total stt rs',
      'stamp duty rs',
      'net amount rs',
    ].map(scripColumn);
    expect(got).toEqual(['exchange', 'name', 'bought', 'sold', 'gross', 'avg', 'brokerage', 'gst', 'stt', 'stamp', 'net']);
  });

  for (const [title, over] of [
    ['with a Sub Total per security and a total per exchange', { scripSubTotals: true, scripGroupTotals: true }],
    ['without Sub Total rows, names repeated', { scripSubTotals: false, scripGroupTotals: false }],
    [
      'a security printed once over its rows, `NAME / ISIN`, `Dr` / `Cr` net amounts',
      { scripSubTotals: true, blankRepeat: true, nameIsin: true, drcr: true },
    ],
  ] as [string, Partial<Extra>][]) {
    it(`fill equity_transactions ${title}`, async () => {
      for (const seed of [0, 7, 14]) {
        const { p, data, warnings } = await parse('unknown', seed, { summary: 'scrip', ...over });
        expect(p.scrip).not.toBeNull();
        expect(data.equity_transactions.length).toBeGreaterThan(0);
        expect(data).toEqual(expectedFor(p));
        expect(warnings.filter((w) => w.code === 'SummaryMismatch' || w.code === 'SummaryComputed')).toEqual([]);
      }
    });
  }

  for (const wrap of [false, true])
    it(`derivatives in the scrip summary fill derivatives_transactions per contract and side${wrap ? ', contract cells wrapped over two lines' : ''}`, async () => {
      // Seeds 7 and 14: equity and F&O with a contract bought and sold; 8: F&O only, a contract bought and sold.
      for (const seed of [0, 7, 8, 14]) {
        const { p, data, warnings } = await parse('unknown', seed, { summary: 'scrip', scripDerivatives: true, scripWrap: wrap });
        expect(p.scrip).not.toBeNull();
        expect(p.deriv).toEqual([]);
        expect(data.derivatives_transactions.length).toBeGreaterThan(0);
        expect(data.derivatives_transactions.every((d) => d.closing_rate_per_unit === null)).toBe(true);
        expect(data).toEqual(expectedFor(p));
        expect(warnings.filter((w) => w.code === 'SummaryMismatch' || w.code === 'SummaryComputed')).toEqual([]);
      }
    });

  it('a contract cell continued by its strike alone (`-22500.0000 -0`, figures only) is part of the description, not a row', async () => {
    let first = '';
    const { data, warnings } = await parse('unknown', 8, { summary: 'scrip', scripDerivatives: true, scripWrap: false }, {}, (pl) => {
      // Every row of the contract prints it so, as HDFC Securities does.
      first = pl.scrip!.body.find((b) => b[0] && b[1] && !/total/i.test(b[1]))![1];
      for (const b of pl.scrip!.body) if (b[1] === first) b[1] = `${first}\n-22500.0000 -0`;
    });
    const d = data.derivatives_transactions.find((x) => x.contract_description.startsWith(first))!;
    expect(d.contract_description).toBe(`${first} -22500.0000 -0`);
    expect(d.quantity).toBeGreaterThan(0);
    expect(warnings.filter((w) => w.code === 'SummaryMismatch')).toEqual([]);
  });

  it('a derivatives row that disagrees with the trades is a SummaryMismatch naming the contract and page', async () => {
    let name = '';
    const { warnings } = await parse('unknown', 8, { summary: 'scrip', scripDerivatives: true, scripSubTotals: false }, {}, (pl) => {
      const row = pl.scrip!.body.find((b) => b[1] && !/total/i.test(b[1]))!;
      name = row[1];
      if (row[2] !== '0') row[2] = String(Number(row[2]) + 1);
      else row[3] = String(Number(row[3]) + 1);
    });
    const mism = warnings.filter((w) => w.code === 'SummaryMismatch');
    expect(
      mism.some((w) => w.message.includes(name) && /derivatives summary, page \d/.test(w.message) && /trades add up to/.test(w.message)),
    ).toBe(true);
  });

  it('a sub total that disagrees with its rows, and rows that disagree with the trades, are warnings naming the security and page', async () => {
    const { p, warnings } = await parse('unknown', 0, { summary: 'scrip', scripSubTotals: true }, {}, (pl) => {
      // The first security's first row claims 1 more share bought than its trades.
      const row = pl.scrip!.body[0];
      row[2] = String(Number(row[2]) + 1);
    });
    const name = p.scrip!.body[0][1];
    const mism = warnings.filter((w) => w.code === 'SummaryMismatch');
    expect(mism.some((w) => w.message.includes(name) && /page \d/.test(w.message) && /sub total/.test(w.message))).toBe(true);
    expect(mism.some((w) => w.message.includes(name) && /trades add up to/.test(w.message))).toBe(true);
  });

  it('an obligation table whose quantity disagrees with the trades is a SummaryMismatch', async () => {
    const { warnings } = await parse('unknown', 0, { summary: 'obligation' }, {}, (pl) => {
      pl.equity[0][3] = String(Number(pl.equity[0][3]) + 5);
    });
    expect(warnings.some((w) => w.code === 'SummaryMismatch' && /quantity bought/.test(w.message))).toBe(true);
  });

  it('no summary printed: computed from the trades, with a SummaryComputed warning (never silently)', async () => {
    for (const seed of [0, 3]) {
      const { p, data, warnings } = await parse('broker_a', seed, { summary: 'none' });
      expect(data).toEqual(expectedFor(p));
      const codes = warnings.map((w) => w.code);
      expect(codes).toContain('SummaryComputed');
    }
  });

  it('the built cas says so on stderr when it computes a summary', async () => {
    const { pdf } = await render('unknown', 0, { summary: 'none' });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cas-cn-sum-'));
    const file = path.join(dir, 'note.pdf');
    writeFileSync(file, pdf);
    const r = await cas(['parse', file]);
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout) as { equity_transactions: unknown[] };
    expect(out.equity_transactions.length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/SummaryComputed|computed from the trades/);
  });
});

describe('layouts genuine notes print', () => {
  it('`Order No / Time` cells, value over value (the time on the next baseline)', async () => {
    for (const seed of [0, 5, 9]) {
      const { p, data } = await parse('broker_a', seed, { stackedIds: true });
      expect(p.cols.some((c) => c.keys.length > 1)).toBe(true);
      expect(data).toEqual(expectedFor(p));
      expect(data.detailed_trades.every((t) => /^\d{2}:\d{2}/.test(t.order_time) && /^\d{2}:\d{2}/.test(t.trade_time))).toBe(true);
    }
  });
  it('security cells holding `NAME / ISIN`', async () => {
    for (const seed of [0, 4]) {
      const { p, data } = await parse('broker_d', seed, { nameIsin: true, summary: 'obligation' });
      expect(data).toEqual(expectedFor(p));
      expect(data.equity_transactions.every((e) => e.isin && /^IN/.test(e.isin))).toBe(true);
    }
  });
  it('a `Dr` / `Cr` suffix decides the sign of a net obligation (Dr: payable by the client, negative)', async () => {
    const { p, data } = await parse('unknown', 0, { drcr: true, summary: 'obligation' });
    expect(p.equity.some((r) => / (Dr|Cr)$/.test(r[r.length - 1]))).toBe(true);
    expect(data.equity_transactions).toEqual(expectedFor(p).equity_transactions);
    expect(data.equity_transactions.some((e) => e.net_obligation < 0)).toBe(true);
  });
  it('an address wrapped over two or three lines, the UCC under other labels, settlement number and date under one label', async () => {
    for (const [seed, n, ucc, sett, colon] of [
      [0, 2, 'Client Code', 'Settlement No / Date', 'tight'],
      [0, 3, 'Unique Client Code', 'Settlement No. & Date', 'none'],
      [0, 3, 'Client ID', 'Sett No / Date', 'spaced'],
      [2, 2, 'Trading Code', null, 'none'],
    ] as const) {
      const { p, data } = await parse(
        'unknown',
        seed,
        { wrappedAddress: n, uccLabel: ucc, settlementBoth: sett },
        { blocks: 'inline', labelColon: colon },
      );
      expect(data.client_info.address).toBe(p.note.client.address);
      expect(data.client_info.ucc).toBe(p.note.client.ucc);
      expect(data.contract_note_info.settlement_number).toBe(p.note.info.settlement);
      expect(data.contract_note_info.settlement_date).toBe(p.note.info.settlementDate);
      expect(data).toEqual(expectedFor(p));
    }
  });
});

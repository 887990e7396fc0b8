/**
 * Contract-note layout families: one per registry broker (src/formats/brokers) and the generic
 * one (a broker without a layout module). Each seed draws a LayoutStyle and seeded data; the
 * note is drawn by pdfkit or printed from HTML by Chromium; the expected JSON comes from the data.
 */
import { BROKERS } from '../../../src/formats/index.js';
import type { BrokerType } from '../../../src/schema/index.js';
import { expectedFor, plan, renderPlanHtml, renderPlanPdf, seededNote } from '../../fixtures/contract-layout.js';
import { drawStyle, styleAxes } from '../../fixtures/lib/layout.js';
import type { LayoutFamily, Renderer } from '../harness.js';

function make(id: string, broker: BrokerType): LayoutFamily {
  return {
    id,
    type: 'contract_note',
    async make(seed: number, renderer: Renderer) {
      const s = drawStyle(seed);
      const note = seededNote(broker, s);
      const p = plan(note, s);
      const axes = {
        ...styleAxes(s),
        trades: note.trades.length,
        segments: [...new Set(note.trades.map((t) => t.segment))].join('+'),
        exchanges: [...new Set(note.trades.map((t) => t.exchange))].join('+'),
        combinedIdCells: p.cols.some((c) => c.keys.length > 1),
        symbolIsinLine: p.rows.some((r) => r.kind === 'trade' && r.cells.some((c) => c.some((l) => / \/ IN/.test(l)))),
        headerBottom: p.headerBottom,
        repeatHeader: p.repeatHeader || p.extra.noteHeaderEachPage,
        chargesOnNewPage: p.chargesOnNewPage,
        chargeRows: p.charges.length,
        chargesAsColumns: Boolean(p.chargeColumns),
        template: p.cols.some((c) => c.keys.includes('exchange')) ? 'v1' : 'v2',
        landscape: p.size[0] > p.size[1],
        summary: note.trades.some((t) => t.segment === 'equity') ? p.extra.summary : 'none',
        scripSubTotals: Boolean(p.scrip) && p.extra.scripSubTotals,
        scripGroupTotals: Boolean(p.scrip) && p.extra.scripGroupTotals,
        scripDerivatives: Boolean(p.scrip) && p.extra.scripDerivatives && note.trades.some((t) => t.segment === 'fno'),
        scripWrap: Boolean(p.scrip) && p.extra.scripWrap,
        fnoRoundTrip: p.extra.fnoRoundTrip && note.trades.some((t) => t.segment === 'fno'),
        noteHeaderEachPage: p.extra.noteHeaderEachPage,
        stackedIds: p.extra.stackedIds,
        nameIsin: p.extra.nameIsin,
        drcr: p.extra.drcr,
        wrappedAddress: p.extra.wrappedAddress,
        uccLabel: p.extra.uccLabel ?? 'template',
        settlementBoth: Boolean(p.extra.settlementBoth),
      };
      const expected = expectedFor(p);
      if (renderer === 'chromium') return { html: renderPlanHtml(p, s), page: { width: p.size[0], height: p.size[1] }, expected, axes };
      return { pdf: await renderPlanPdf(p, s), expected, axes };
    },
  };
}

/** One family per registry broker (its `family` id), and the generic one. */
export const families: LayoutFamily[] = [...BROKERS.map((b) => make(b.family, b.id)), make('contract-note-generic', 'unknown')];

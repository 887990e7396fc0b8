/**
 * Layout family: registrar summary statements (`Consolidated Account Summary`), seeded data and
 * layout, drawn by pdfkit and by Chromium. Expected JSON: `toExpected` of the same data.
 */
import type { LayoutFamily } from '../harness.js';
import { drawStyle, styleAxes } from '../../fixtures/lib/layout.js';
import { toExpected } from '../../fixtures/registrar-data.js';
import { drawSummaryLook, pageSize, randomRegistrar, summaryHtml, summaryPdf } from '../../fixtures/registrar-layout.js';

export const family: LayoutFamily = {
  id: 'registrar-summary',
  type: 'registrar',
  async make(seed, renderer) {
    const s = drawStyle(seed);
    const registrar = s.rand() < 0.5 ? 'registrar_a' : 'registrar_b';
    const st = randomRegistrar(s, { registrar, noIsin: false }, 'summary');
    const look = drawSummaryLook(s, registrar);
    // Folio numbers printed `12345678/90`: that is the folio number the statement gives.
    if (look.folioTight) for (const f of st.folios) f.folio = f.folio.replace(/\s*\/\s*/, '/');
    const password = s.rand() < 0.3 ? st.investor.pan : undefined;
    const expected = toExpected(st, 'summary', {
      summaryCodes: look.codes,
      summaryNoIsin: !look.isinColumn,
      summaryNoCost: !look.costColumn,
    });
    const axes = { ...styleAxes(s), ...look, folios: st.folios.length };
    if (renderer === 'pdfkit') return { pdf: await summaryPdf(st, s, look, password), password, expected, axes };
    // The summary is a wide table: landscape pages, of the style's height.
    const page = { width: 841.89, height: Math.min(595.28, pageSize(s).height) };
    return { html: summaryHtml(st, s, look, page), page, password, expected, axes: { ...axes, page } };
  },
};

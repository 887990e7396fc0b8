/**
 * Layout family: registrar detailed statements (registrar_a / registrar_b), seeded data and
 * layout, drawn by pdfkit and by Chromium. Expected JSON: `toExpected` of the same data.
 */
import type { LayoutFamily } from '../harness.js';
import { drawStyle, styleAxes } from '../../fixtures/lib/layout.js';
import { toExpected } from '../../fixtures/registrar-data.js';
import { detailedHtml, detailedPdf, drawDetailedLook, pageSize, randomRegistrar } from '../../fixtures/registrar-layout.js';

export const family: LayoutFamily = {
  id: 'registrar-detailed',
  type: 'registrar',
  async make(seed, renderer) {
    const s = drawStyle(seed);
    const registrar = s.rand() < 0.5 ? 'registrar_a' : 'registrar_b';
    const noIsin = s.rand() < 0.15;
    const st = randomRegistrar(s, { registrar, noIsin }, 'detailed');
    const look = drawDetailedLook(s, registrar);
    const jointPans = look.jointLabels && s.rand() < 0.5;
    if (jointPans)
      for (const f of st.folios) if (f.holders.length > 1) f.holderPans = f.holders.map((_, i) => (i === 0 ? null : `ZZJPK${1000 + i}Q`));
    const password = s.rand() < 0.3 ? st.investor.pan : undefined;
    const expected = toExpected(st, 'detailed');
    const axes = {
      ...styleAxes(s),
      ...look,
      noIsin,
      jointPans,
      folios: st.folios.length,
      transactions: st.folios.reduce((a, f) => a + f.schemes.reduce((b, x) => b + x.txns.length, 0), 0),
    };
    if (renderer === 'pdfkit') return { pdf: await detailedPdf(st, s, look, password), password, expected, axes };
    const page = pageSize(s);
    return { html: detailedHtml(st, s, look, page), page, password, expected, axes: { ...axes, page } };
  },
};

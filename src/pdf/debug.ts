/**
 * `cas parse --debug-layout`: the document model as text lines with their positions, so a user
 * can report a layout that `cas` misreads without sending the PDF. `--redact` keeps the layout
 * (positions, label words, punctuation, lengths) and masks what could identify the investor:
 * every digit becomes 9 and every word outside a vocabulary of statement labels becomes x's.
 */
import type { PdfDocument } from './model.js';

/** Words that label statements and columns (lower case); everything else is masked by --redact. */
const VOCABULARY = new Set(
  `
a account accounts active address advisor after all allotment amc amount and annualised applicable as at average
b bal balance bank before bo bond bonds bought brokerage bse buy by c cas cdsl central charges clearing client closing code
coupon cgst company consolidated contract corporate cost cr credit cum current date debit demat depository description
details direct dividend dp dr duty e email equities equity exchange f face fee fees folio folios for frozen from fund funds
g government grand gross growth gst held holder holders holding holdings id idcw igst in inr insurance investor isin joint
kyc limited ltd market maturity mobile month mutual n name names nav net no nominee nps nsdl number obligation of on
opening options order p page pan payable pay per period plan pledge portfolio premium price purchase quantity rate
receivable redemption reg registrar regular remarks rs rta scheme schemes sebi securities security sell settlement sgst
shares sip single stamp statement stt sub subtotal summary supply switch symbol systematic tax taxable the to total trade
transaction transactions turnover type ucc unit units unrealised value with
`
    .trim()
    .split(/\s+/),
);

export function redactText(s: string): string {
  return s
    .replace(/\d/g, '9')
    .replace(/[A-Za-z]+/g, (w) => (VOCABULARY.has(w.toLowerCase()) ? w : w.replace(/[A-Z]/g, 'X').replace(/[a-z]/g, 'x')));
}

export interface LayoutDump {
  file: string;
  metadata: PdfDocument['metadata'];
  pages: {
    number: number;
    width: number;
    height: number;
    rotated: string[];
    lines: { y: number; pieces: { x0: number; x1: number; size: number; text: string }[] }[];
  }[];
}

const r1 = (v: number): number => Math.round(v * 10) / 10;

export function layoutDump(doc: PdfDocument, file: string, redact = false): LayoutDump {
  const t = redact ? redactText : (s: string): string => s;
  return {
    file,
    metadata: doc.metadata,
    pages: doc.pages.map((p) => ({
      number: p.number,
      width: r1(p.width),
      height: r1(p.height),
      rotated: p.rotated.map(t),
      lines: p.lines.map((l) => ({
        y: r1(l.y),
        pieces: l.pieces.map((pc) => ({ x0: r1(pc.x0), x1: r1(pc.x1), size: r1(pc.size), text: t(pc.text) })),
      })),
    })),
  };
}

/** The dump as aligned text: one line per text line, each piece as `[x0-x1] text`. */
export function layoutText(d: LayoutDump): string {
  const out: string[] = [];
  const m = d.metadata;
  out.push(`# ${d.file}: ${d.pages.length} page(s); producer: ${m.producer ?? '-'}; creator: ${m.creator ?? '-'}`);
  for (const p of d.pages) {
    out.push(
      `## page ${p.number} (${p.width} x ${p.height} pt), ${p.lines.length} lines${p.rotated.length ? `; rotated: ${p.rotated.join(' | ')}` : ''}`,
    );
    for (const l of p.lines)
      out.push(`${l.y.toFixed(1).padStart(6)}  ${l.pieces.map((pc) => `[${pc.x0.toFixed(1)}-${pc.x1.toFixed(1)}] ${pc.text}`).join('  ')}`);
  }
  return `${out.join('\n')}\n`;
}

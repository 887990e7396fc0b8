/** The investor block of page 1 (left column): email, name, address lines, mobile, PAN. */
import type { Line, PdfDocument } from '../../pdf/model.js';
import type { Investor } from '../../schema/index.js';

const STOP = /PORTFOLIO SUMMARY|Folio\s*No|^Date\b.*Transaction|Mutual\s+Fund$/i;

export function parseInvestorBlock(doc: PdfDocument, lines: Line[]): { investor: Partial<Investor>; endIndex: number } {
  const page1 = doc.pages[0];
  const mid = (page1?.width ?? 595) * 0.5;
  let start = lines.findIndex((l) => /\d{1,2}-[A-Za-z]{3}-\d{4}\s+(?:To|to)\s+\d{1,2}-[A-Za-z]{3}-\d{4}|As\s+On\s+\d/i.test(l.text));
  start = start < 0 ? 0 : start + 1;
  const inv: Partial<Investor> = {};
  const text: string[] = [];
  let i = start;
  for (; i < lines.length && lines[i].page === 1; i++) {
    const l = lines[i];
    if (STOP.test(l.text.replace(/\s{2,}/g, ' ').trim())) break;
    const left = l.pieces.filter((p) => p.x0 < mid).map((p) => p.text).join(' ').trim();
    if (!left) continue;
    let m: RegExpExecArray | null;
    if ((m = /^E-?mail(?:\s*Id)?\s*:\s*(\S+@\S+)/i.exec(left))) inv.email = m[1].toLowerCase();
    else if ((m = /^Mobile\s*(?:No\.?)?\s*:\s*(\+?[\d\s-]{8,})/i.exec(left))) inv.mobile = m[1].replace(/[\s-]/g, '');
    else if ((m = /^PAN\s*:\s*([A-Z]{5}[0-9]{4}[A-Z])/.exec(left))) inv.pan = m[1];
    else if (/^(Phone|Tel|Res)\b/i.test(left)) continue;
    else text.push(left.replace(/\s+/g, ' '));
  }
  if (text.length) {
    inv.name = text[0];
    const address = text.slice(1).join(', ');
    inv.address = address || null;
    inv.pincode = /\b(\d{6})\b/.exec(address)?.[1] ?? null;
  }
  return { investor: inv, endIndex: i };
}

/** Table helpers: header detection, column ranges, cells, wrapped text. */
import type { Line, TextPiece } from './model.js';
import { isNumber } from './numbers.js';

export interface Column {
  name: string;
  /** Label extent on the header line. */
  x0: number;
  x1: number;
  align: 'left' | 'right';
}

const norm = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * Find header labels on a line, in order. Labels may share a piece (`Date Transaction`) or
 * be a prefix of a longer one (`Market Price` in `Market Price / Face Value`): a right-aligned
 * label that is the last one found in its piece takes the piece's right edge.
 * Returns a column per label with its extent, or null when any label is missing.
 */
export function matchHeader(line: Line, labels: { name: string; label: string; align: 'left' | 'right' }[]): Column[] | null {
  const cols: (Column & { piece: number })[] = [];
  let pi = 0;
  let offset = 0;
  for (const l of labels) {
    const want = norm(l.label);
    let found: (Column & { piece: number }) | null = null;
    // A piece that is exactly the label wins over a longer piece that merely contains it.
    const exact = line.pieces.findIndex((p, i) => (i > pi || (i === pi && offset === 0)) && norm(p.text) === want);
    if (exact >= 0) {
      const p = line.pieces[exact];
      found = { name: l.name, x0: p.x0, x1: p.x1, align: l.align, piece: exact };
      pi = exact + 1;
      offset = 0;
    }
    for (let i = pi; i < line.pieces.length && !found; i++) {
      const p = line.pieces[i];
      const text = norm(p.text);
      const at = text.indexOf(want, i === pi ? offset : 0);
      if (at < 0) continue;
      const cw = (p.x1 - p.x0) / Math.max(1, p.text.length);
      found = { name: l.name, x0: p.x0 + at * cw, x1: p.x0 + (at + want.length) * cw, align: l.align, piece: i };
      pi = i;
      offset = at + want.length;
    }
    if (!found) return null;
    cols.push(found);
  }
  return cols.map((c, k) => {
    const next = cols[k + 1];
    const x1 = c.align === 'right' && (!next || next.piece !== c.piece) ? line.pieces[c.piece].x1 : c.x1;
    return { name: c.name, x0: c.x0, x1, align: c.align };
  });
}

/**
 * Split a line into cells by columns. Right-aligned (numeric) cells go to the column whose
 * right edge is nearest the piece's right edge; text goes to the column whose range holds its start.
 */
export function splitCells(line: Line, cols: Column[]): Record<string, string> {
  const out: Record<string, string> = {};
  const pieces = splitPieces(line.pieces);
  for (const p of pieces) {
    const col = columnFor(p, cols);
    if (!col) continue;
    out[col.name] = out[col.name] ? `${out[col.name]} ${p.text}` : p.text;
  }
  return out;
}

/** A merged piece like `1,234.00 12.345` is split back into tokens with estimated extents. */
function splitPieces(pieces: TextPiece[]): TextPiece[] {
  const out: TextPiece[] = [];
  for (const p of pieces) {
    const toks = p.text.split(' ');
    if (toks.length === 1 || !toks.some((t) => isNumber(t))) {
      out.push(p);
      continue;
    }
    const cw = (p.x1 - p.x0) / Math.max(1, p.text.length);
    let pos = 0;
    let textRun: TextPiece | undefined;
    for (const t of toks) {
      const x0 = p.x0 + pos * cw;
      const x1 = x0 + t.length * cw;
      pos += t.length + 1;
      if (isNumber(t)) {
        textRun = undefined;
        out.push({ ...p, text: t, x0, x1 });
      } else if (textRun) {
        textRun.text += ` ${t}`;
        textRun.x1 = x1;
      } else {
        textRun = { ...p, text: t, x0, x1 };
        out.push(textRun);
      }
    }
  }
  return out;
}

export function columnFor(p: TextPiece, cols: Column[]): Column | undefined {
  if (isNumber(p.text)) {
    let best: Column | undefined;
    let bestD = Infinity;
    for (const c of cols) {
      if (c.align !== 'right') continue;
      const d = Math.abs(c.x1 - p.x1);
      if (d < bestD) {
        bestD = d;
        best = c;
      }
    }
    if (best && bestD < 40) return best;
  }
  // Text: a right-aligned column whose label span holds the piece, else the last
  // left-aligned column that starts at or before the piece.
  const right = cols.find((c) => c.align === 'right' && p.x0 >= c.x0 - 2 && p.x1 <= c.x1 + 4);
  if (right) return right;
  let chosen: Column | undefined;
  for (const c of cols) if (c.align === 'left' && p.x0 >= c.x0 - 4) chosen = c;
  return chosen ?? cols[0];
}

/**
 * Join wrapped cell text: a word broken at its own hyphen (`Growth-` + `Direct`) joins
 * without a space; a free-standing dash (`Fund -` + `Growth`) keeps the space.
 */
export function joinWrapped(parts: string[]): string {
  return parts
    .reduce((acc, p) => (!acc ? p : /[A-Za-z0-9]-$/.test(acc) ? `${acc}${p}` : `${acc} ${p}`), '')
    .replace(/\s+/g, ' ')
    .trim();
}

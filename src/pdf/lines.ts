/** Positioned text items -> lines of pieces. Pure; no engine types. */
import type { Line, TextPiece, Word } from './model.js';

export interface RawItem {
  text: string;
  x: number;
  /** Baseline from the top of the page. */
  y: number;
  width: number;
  size: number;
  rotated: boolean;
}

const DEVANAGARI = /[\u0900-\u097F]/;
const SOFT_HYPHEN = /\u00AD/g;

/** Glyph-doubling overlays (`22002200` for `2020`): every character repeated twice. */
export function undouble(s: string): string {
  if (s.length < 4 || s.length % 2) return s;
  for (let i = 0; i < s.length; i += 2) if (s[i] !== s[i + 1]) return s;
  const half = Array.from({ length: s.length / 2 }, (_, i) => s[i * 2]).join('');
  // Only heal what becomes a recognisable date or number token; `1100` stays `1100`.
  return /^\d{1,2}[-/](\d{1,2}|[A-Za-z]{3})[-/]\d{2,4}$|^\d{4,}$/.test(half) && /[-/]/.test(half) ? half : s;
}

/** An ISIN split by a soft hyphen (which pdf.js may map to `-`): `INF209K01-XX1` -> `INF209K01XX1`. */
const SPLIT_ISIN = /\b(IN[A-Z0-9]{1,9})[-\u00AD]([A-Z0-9]{1,9})\b/g;

export function healIsins(t: string): string {
  return t.replace(SPLIT_ISIN, (all, a: string, b: string) => (a.length + b.length === 12 && /\d/.test(a + b) ? a + b : all));
}

function cleanText(t: string): string {
  // Most runs have nothing to clean: no soft hyphen, no no-break space, no ISIN cut by a hyphen.
  const soft = t.includes('\u00AD');
  if (!soft && !t.includes('\u00A0') && !(t.includes('-') && t.includes('IN'))) return t;
  return healIsins((soft ? t.replace(SOFT_HYPHEN, '') : t).replace(/\u00A0/g, ' '));
}

/**
 * Group items by baseline, order by x, merge runs whose gap is small (a space or less),
 * drop duplicated overlays and Devanagari overlay text.
 */
export function buildLines(items: RawItem[], page: number): { lines: Line[]; rotated: string[] } {
  const rotated: string[] = [];
  const body: RawItem[] = [];
  for (const it of items) {
    if (!it.text || !it.text.trim()) continue;
    if (it.rotated) {
      rotated.push(cleanText(it.text).trim());
      continue;
    }
    if (DEVANAGARI.test(it.text)) continue;
    body.push({ text: cleanText(it.text), x: it.x, y: it.y, width: it.width, size: it.size, rotated: it.rotated });
  }
  body.sort((a, b) => a.y - b.y || a.x - b.x);

  // Baseline clustering: an item joins the current line when its baseline is within tolerance.
  const clusters: RawItem[][] = [];
  let current: RawItem[] = [];
  let baseY = -Infinity;
  for (const it of body) {
    const tol = Math.max(1.5, Math.min(it.size, 12) * 0.3);
    if (current.length && Math.abs(it.y - baseY) <= tol) {
      current.push(it);
    } else {
      if (current.length) clusters.push(current);
      current = [it];
      baseY = it.y;
    }
  }
  if (current.length) clusters.push(current);
  // Each cluster in x order (stable: equal x keep their baseline order), as hasCollision reads it.
  for (const cl of clusters) cl.sort((a, b) => a.x - b.x);
  const groups = clusters.flatMap(splitOverprints);

  const lines: Line[] = [];
  for (const g of groups) {
    g.sort((a, b) => a.x - b.x);
    const pieces: TextPiece[] = [];
    const kept: RawItem[] = [];
    const keptSquashed: string[] = [];
    for (const it of g) {
      // Duplicated overlay (a fake bold; a bilingual template's second copy): see isOverlay.
      const sq = squashed(it.text);
      if (isOverlay(kept, keptSquashed, it, sq)) continue;
      kept.push(it);
      keptSquashed.push(sq);
      const trimmed = it.text.trim();
      const text = undouble(trimmed);
      const lead = trimmed.length === it.text.length ? 0 : it.text.length - it.text.trimStart().length;
      const charW = it.width / Math.max(1, it.text.length);
      const x0 = it.x + lead * charW;
      const x1 = x0 + (text.length / Math.max(1, it.text.length)) * it.width;
      const last = pieces[pieces.length - 1];
      const gap = last ? x0 - last.x1 : Infinity;
      const space = it.size * 0.18;
      if (last && gap < it.size * 0.9) {
        last.text += gap > space ? ` ${text}` : text;
        last.x1 = Math.max(last.x1, x1);
      } else {
        pieces.push({ text, x0, x1, y: it.y, size: it.size });
      }
    }
    const y = g.reduce((s, i) => s + i.y, 0) / g.length;
    lines.push({ y, pieces, words: piecesToWords(pieces), text: pieces.map((p) => p.text).join('  '), page });
  }
  return { lines, rotated };
}

const WHITESPACE = /\s/;
const squashed = (t: string): string => (WHITESPACE.test(t) ? t.replace(/\s+/g, '') : t);

/**
 * `it` repeats a run already kept on this line (`t`, `keptSquashed`: their text without spaces): the same characters whatever the spaces, drawn over
 * it (overlapping by more than 60% of its width). A fake bold draws it again a fraction of a point
 * off; a bilingual template draws each line once per language, and where the Hindi label is wider
 * the repeated value lands a few points to the right of the English one.
 */
function isOverlay(kept: RawItem[], keptSquashed: string[], it: RawItem, t: string): boolean {
  if (!t) return false;
  for (let i = kept.length - 1, seen = 0; i >= 0 && seen < 12; i--, seen++) {
    const k = kept[i];
    if (Math.abs(k.y - it.y) >= 1.5 || keptSquashed[i] !== t) continue;
    const overlap = Math.min(k.x + k.width, it.x + it.width) - Math.max(k.x, it.x);
    if (overlap > 0.6 * Math.max(it.width, 0.01) || (it.width <= 0 && Math.abs(k.x - it.x) < 2)) return true;
  }
  return false;
}

/**
 * Two runs cannot share a line where they overprint each other: a report engine that prints a
 * second text a point or two off the baseline, over the first (a bare date over a closing-balance
 * label), drew another line, and gluing them would run `4,347.941` into `10-Jul-2020`. A cluster
 * with such a collision is cut into baseline bands (0.6 pt), and the nearest bands are merged back
 * while they do not collide, so each run stays with the text on its own baseline.
 */
function splitOverprints(cluster: RawItem[]): RawItem[][] {
  if (cluster.length < 2 || !hasCollision(cluster, true)) return [cluster];
  const bands: RawItem[][] = [];
  for (const it of [...cluster].sort((a, b) => a.y - b.y)) {
    const last = bands[bands.length - 1];
    if (last && it.y - last[0].y <= 0.6) last.push(it);
    else bands.push([it]);
  }
  for (;;) {
    let best = -1;
    let bestGap = Infinity;
    for (let i = 0; i + 1 < bands.length; i++) {
      const gap = bands[i + 1][0].y - bands[i][0].y;
      if (gap < bestGap && !hasCollision([...bands[i], ...bands[i + 1]])) {
        best = i;
        bestGap = gap;
      }
    }
    if (best < 0) break;
    bands.splice(best, 2, [...bands[best], ...bands[best + 1]]);
  }
  return bands;
}

/** Any two runs of the list overprint each other (sweep by x: only overlapping neighbours are compared; `sorted`: the list is in x order already). */
function hasCollision(items: RawItem[], sorted = false): boolean {
  const byX = sorted ? items : [...items].sort((a, b) => a.x - b.x);
  for (let i = 0; i < byX.length; i++) {
    for (let j = i + 1; j < byX.length && byX[j].x < byX[i].x + byX[i].width; j++) {
      if (collides(byX[i], byX[j])) return true;
    }
  }
  return false;
}

/**
 * Two runs overprint each other: they overlap horizontally by more than half of the narrower one
 * and are not the same text at (almost) the same place (a fake-bold overlay, dropped later).
 */
function collides(a: RawItem, b: RawItem): boolean {
  if (a.text === b.text && Math.abs(a.x - b.x) < 1.5 && Math.abs(a.y - b.y) < 1.5) return false;
  const wa = a.width;
  const wb = b.width;
  if (wa <= 0 || wb <= 0) return false;
  const overlap = Math.min(a.x + wa, b.x + wb) - Math.max(a.x, b.x);
  return overlap > 0.5 * Math.min(wa, wb);
}

/**
 * Words with extents. Inside a piece the width is shared out by character count (pieces are
 * short runs, so the estimate is close); a word's right edge at the piece's right end is exact,
 * which is what right-aligned numbers need. Glyph-per-operator text was already joined into
 * pieces, so words come out whole.
 */
export function piecesToWords(pieces: TextPiece[]): Word[] {
  const out: Word[] = [];
  for (const p of pieces) {
    const t = p.text;
    const n = t.length;
    if (!n) continue;
    const cw = (p.x1 - p.x0) / n;
    // Words are the runs of non-space characters (what /\S+/g finds), scanned by character code.
    let i = 0;
    while (i < n) {
      while (i < n && isSpace(t.charCodeAt(i))) i++;
      if (i === n) break;
      const start = i;
      while (i < n && !isSpace(t.charCodeAt(i))) i++;
      out.push({ text: t.slice(start, i), x0: p.x0 + start * cw, x1: i === n ? p.x1 : p.x0 + i * cw });
    }
  }
  return out;
}

/** JavaScript's `\s`: ASCII spaces and controls, and the Unicode space separators, line separators and BOM. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

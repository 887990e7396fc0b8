/**
 * A table's header read into typed columns (the depository statements' tables), with the
 * vocabulary passed in as data (`GridVocabulary`; the depositories' is depository/vocabulary.ts):
 *
 * - `readGrid`: a column header is a run of stacked lines (1-19) whose words all come from the
 *   vocabulary; its words are grouped into columns by horizontal overlap across the stacked lines
 *   and by gaps wider than a space on one line, whatever the text operators were; each column gets
 *   the role of the first rule its label matches;
 * - `textColumn`: a text word belongs to the last column that starts at or before it (text is
 *   left-aligned; a long name runs on to the right of its label);
 * - `assignToColumns`: a record's numbers into the numeric columns, by order when their count is
 *   the number of numeric columns (merged runs and shifted cells are then harmless), else from
 *   the right by overlap, keeping their order.
 */
import type { Line, Word } from '../../../pdf/model.js';
import { parseNumber } from '../../../pdf/numbers.js';
import { memoByText } from '../../../shared/memo.js';
import { lineSize, mostOverlapping } from './text.js';

/** A header vocabulary, as data. */
export interface GridVocabulary {
  /** Label rules, first match wins: [role, numeric, pattern on the lower-cased label]. */
  roles: readonly (readonly [string, boolean, RegExp])[];
  /** Every word a header is made of (lower case, letters and digits only). */
  words: readonly string[];
  /** The labels as printed (to split a piece that holds several labels). */
  labels: readonly string[];
  /** Words that start a header: one of them must be present. */
  anchors: readonly string[];
}

export interface GridColumn {
  /** The label, words joined top to bottom, left to right. */
  label: string;
  /** Role from the label (the vocabulary's rules), or 'text' when unknown. */
  role: string;
  numeric: boolean;
  x0: number;
  x1: number;
}

export interface Grid {
  columns: GridColumn[];
  /** Index of the first line after the header. */
  next: number;
  /** The header's lines (to recognise a repeated header). */
  lines: Line[];
}

const norm = (w: string): string => w.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A vocabulary compiled once: word sets, labels as normalised word lists, glued-word cache. */
interface Compiled {
  v: GridVocabulary;
  words: Set<string>;
  /** Every contiguous run of a label's words, joined by spaces. */
  fragments: Set<string>;
  anchors: Set<string>;
  glued: Map<string, string[] | null>;
  /** Roles by label. */
  roles: Map<string, { role: string; numeric: boolean }>;
  /** Headers read, per line list and index. */
  grids: WeakMap<readonly Line[], Map<number, Grid | null>>;
}
const COMPILED = new WeakMap<GridVocabulary, Compiled>();

function compile(v: GridVocabulary): Compiled {
  let c = COMPILED.get(v);
  if (!c) {
    const labels = v.labels.map((l) => l.split(/\s+/).map(norm).filter(Boolean)).filter((l) => l.length);
    const fragments = new Set<string>();
    for (const l of labels)
      for (let a = 0; a < l.length; a++) for (let b = a + 1; b <= l.length; b++) fragments.add(l.slice(a, b).join(' '));
    c = {
      v,
      words: new Set(v.words.map(norm).filter(Boolean)),
      fragments,
      anchors: new Set(v.anchors.map(norm)),
      glued: new Map(),
      grids: new WeakMap(),
      roles: new Map(),
    };
    COMPILED.set(v, c);
  }
  return c;
}

/** Words that are a contiguous part of some label (rupee marks and punctuation are neutral). */
function isFragment(c: Compiled, ws: Word[]): boolean {
  const n = ws.map((w) => norm(w.text)).filter(Boolean);
  return !n.length || c.fragments.has(n.join(' '));
}

/** A piece's words as labels: kept whole when they are one label (or part of one), else split greedily. */
function splitLabels(c: Compiled, ws: Word[]): Word[][] {
  if (ws.length < 2 || isFragment(c, ws)) return ws.length ? [ws] : [];
  const out: Word[][] = [];
  let p = 0;
  while (p < ws.length) {
    let q = ws.length;
    while (q > p + 1 && !isFragment(c, ws.slice(p, q))) q--;
    out.push(ws.slice(p, q));
    p = q;
  }
  return out;
}

/** Part of a header word broken over two lines (`Annual` / `ised`). */
function isBroken(c: Compiled, n: string): boolean {
  if (n.length < 3) return false;
  for (const v of c.words) if (v.length > n.length && (v.startsWith(n) || v.endsWith(n))) return true;
  return false;
}

/** A line made only of the vocabulary's words (punctuation and rupee marks are neutral), with at least one. */
export function isGridHeaderLine(line: Line, v: GridVocabulary, lenient = false): boolean {
  const c = compile(v);
  let known = 0;
  let unknown = 0;
  for (const w of line.words) {
    // No header word has a digit (`Return(%)` has none either): data lines are refused at once.
    if (/\d/.test(w.text)) return false;
    const n = norm(w.text);
    if (!n) continue;
    if (c.words.has(n) || (n.length >= 5 && unglue(w, v).length > 1)) known++;
    // Beside a header, one short unknown word is a label broken over lines (`Annual` / `ised`).
    else if (lenient && isBroken(c, n) && ++unknown <= 1) continue;
    else return false;
  }
  return known > 0 || (lenient && unknown === 1 && line.words.length === 1);
}

/**
 * Header words drawn so close that no space was extracted between them (`ValueProfit/(Loss)`)
 * are split back into vocabulary words, their extents shared out by characters.
 */
export function unglue(w: Word, v: GridVocabulary): Word[] {
  const c = compile(v);
  const parts = (t: string): string[] | null => {
    const known = c.glued.get(t);
    if (known !== undefined) return known;
    const r = split(t);
    if (c.glued.size < 5000) c.glued.set(t, r);
    return r;
  };
  const split = (t: string): string[] | null => {
    if (c.words.has(norm(t)) || !norm(t)) return [t];
    for (let k = t.length - 1; k > 0; k--) {
      const head = t.slice(0, k);
      if (!norm(head) || !c.words.has(norm(head))) continue;
      const rest = parts(t.slice(k));
      if (rest) return [head, ...rest];
    }
    return null;
  };
  const list = parts(w.text);
  if (!list || list.length < 2) return [w];
  const cw = (w.x1 - w.x0) / w.text.length;
  let at = 0;
  return list.map((t) => {
    const x0 = w.x0 + at * cw;
    at += t.length;
    return { text: t, x0, x1: w.x0 + at * cw };
  });
}

/** The role of a label: the first of the vocabulary's rules it matches, else 'text'. */
export function roleOf(label: string, v: GridVocabulary): { role: string; numeric: boolean } {
  const c = compile(v);
  let r = c.roles.get(label);
  if (!r) {
    const l = label.toLowerCase().replace(/\s+/g, ' ').trim();
    const rule = v.roles.find(([, , re]) => re.test(l));
    r = Object.freeze(rule ? { role: rule[0], numeric: rule[1] } : { role: 'text', numeric: false });
    if (c.roles.size < 5000) c.roles.set(label, r);
  }
  return r;
}

/**
 * The header whose lines include `lines[i]`, or null. Stacked lines above and below join when
 * they are header lines on the same page within about two line heights of each other.
 */
export function readGrid(lines: Line[], i: number, v: GridVocabulary): Grid | null {
  // Every table of a section asks at every line; a header is read once per line list (pure: the
  // lines are never changed, and the grid is only read).
  const byIndex = memoOf(compile(v), lines);
  const known = byIndex.get(i);
  if (known !== undefined) return known;
  let g: Grid | null = null;
  if (isGridHeaderLine(lines[i], v)) {
    // The lines of one header, asked at each of them, are read once (keyed by their span).
    const { a, b } = headerSpan(lines, i, v);
    const key = -(a * 100_000 + b) - 1;
    const known = byIndex.get(key);
    g = known !== undefined ? known : gridOf(lines, a, b, v);
    byIndex.set(key, g);
  }
  byIndex.set(i, g);
  return g;
}

function memoOf(c: Compiled, lines: readonly Line[]): Map<number, Grid | null> {
  let m = c.grids.get(lines);
  if (!m) c.grids.set(lines, (m = new Map()));
  return m;
}

/** The stacked header lines around line i (a header line itself). */
function headerSpan(lines: Line[], i: number, v: GridVocabulary): { a: number; b: number } {
  const size = (l: Line): number => Math.max(5, lineSize(l));
  let a = i;
  let b = i;
  while (
    a > 0 &&
    a > i - 19 &&
    lines[a - 1].page === lines[a].page &&
    lines[a].y - lines[a - 1].y <= size(lines[a]) * 2.1 &&
    isGridHeaderLine(lines[a - 1], v, true)
  )
    a--;
  while (
    b + 1 < lines.length &&
    b < a + 19 &&
    lines[b + 1].page === lines[b].page &&
    lines[b + 1].y - lines[b].y <= size(lines[b]) * 2.1 &&
    isGridHeaderLine(lines[b + 1], v, true)
  )
    b++;
  return { a, b };
}

/** The header of lines a..b read into columns, or null when they make no table's header. */
function gridOf(lines: Line[], a: number, b: number, v: GridVocabulary): Grid | null {
  const c = compile(v);
  const group = lines.slice(a, b + 1).map((l) => ({ pieces: l.pieces, words: l.words.flatMap((w) => unglue(w, v)) }));
  let anchored = false;
  let named = 0;
  for (const l of group)
    for (const w of l.words) {
      const n = norm(w.text);
      if (n) named++;
      if (c.anchors.has(n)) anchored = true;
    }
  if (!anchored || named < 3) return null;
  // Per line: segments are pieces, split where a piece holds several labels (cells drawn close
  // together merge into one piece) and joined where one label was drawn in several pieces.
  type Seg = { words: Word[]; li: number; x0: number; x1: number };
  const gapMax = Math.max(4, lineSize(lines[a]) * 1.05);
  const segs: Seg[] = [];
  group.forEach((l, li) => {
    const line: Seg[] = [];
    for (const p of l.pieces) {
      const ws = l.words.filter((w) => w.x0 >= p.x0 - 0.5 && w.x1 <= p.x1 + 0.5);
      for (const part of splitLabels(c, ws)) line.push({ words: part, li, x0: part[0].x0, x1: part[part.length - 1].x1 });
    }
    for (let k = 1; k < line.length; k++) {
      const u = line[k - 1];
      const w = line[k];
      if (w.x0 - u.x1 <= gapMax && isFragment(c, [...u.words, ...w.words])) {
        line.splice(k - 1, 2, { words: [...u.words, ...w.words], li, x0: u.x0, x1: w.x1 });
        k--;
      }
    }
    segs.push(...line);
  });
  // Stacked segments that overlap horizontally are one column.
  const parent = segs.map((_, k) => k);
  const find = (k: number): number => (parent[k] === k ? k : (parent[k] = find(parent[k])));
  for (let p = 0; p < segs.length; p++) {
    for (let q = p + 1; q < segs.length; q++) {
      const ov = Math.min(segs[p].x1, segs[q].x1) - Math.max(segs[p].x0, segs[q].x0);
      if (segs[p].li !== segs[q].li && ov > 0.3 * Math.min(segs[p].x1 - segs[p].x0, segs[q].x1 - segs[q].x0)) parent[find(p)] = find(q);
    }
  }
  const bySeg = new Map<number, Seg[]>();
  segs.forEach((sg, k) => {
    const root = find(k);
    const list = bySeg.get(root);
    if (list) list.push(sg);
    else bySeg.set(root, [sg]);
  });
  // A label spanning sub-labels printed side by side on its last line (`Average Total Expense
  // Ratio (TER)` over `Regular   Direct`): one column per sub-label, each labelled with the span.
  const gapMin = lineSize(lines[a]) * 0.8;
  const groups: { ws: (Word & { li: number })[]; sub: Seg | null }[] = [];
  const withLine = (segs: readonly Seg[]): (Word & { li: number })[] => {
    const out: (Word & { li: number })[] = [];
    for (const sg of segs) for (const w of sg.words) out.push({ text: w.text, x0: w.x0, x1: w.x1, li: sg.li });
    return out;
  };
  for (const list of bySeg.values()) {
    const lastLi = Math.max(...list.map((sg) => sg.li));
    const bottom = list.filter((sg) => sg.li === lastLi).sort((u, w) => u.x0 - w.x0);
    const above = list.filter((sg) => sg.li !== lastLi);
    const apart = bottom.length > 1 && bottom.every((sg, k) => k === 0 || sg.x0 - bottom[k - 1].x1 > gapMin);
    if (apart && above.length) for (const sg of bottom) groups.push({ ws: withLine([...above, sg]), sub: sg });
    else groups.push({ ws: withLine(list), sub: null });
  }
  const columns: GridColumn[] = groups
    .map(({ ws, sub }) => {
      ws.sort((u, w) => u.li - w.li || u.x0 - w.x0);
      // A label drawn twice over itself (a bold or bilingual overprint) counts once.
      const kept: string[] = [];
      for (let k = 0; k < ws.length; k++) {
        const w = ws[k];
        let twice = false;
        for (let j = 0; j < k && !twice; j++) twice = ws[j].text === w.text && Math.min(ws[j].x1, w.x1) - Math.max(ws[j].x0, w.x0) > 0;
        if (!twice) kept.push(w.text);
      }
      const label = kept.join(' ');
      const { role, numeric } = roleOf(label, v);
      // A sub-column spans its own sub-label only.
      if (sub) return { label, role, numeric, x0: sub.x0, x1: sub.x1 };
      let x0 = Infinity;
      let x1 = -Infinity;
      for (const w of ws) {
        if (w.x0 < x0) x0 = w.x0;
        if (w.x1 > x1) x1 = w.x1;
      }
      return { label, role, numeric, x0, x1 };
    })
    .sort((u, w) => u.x0 - w.x0);
  return { columns, next: b + 1, lines: lines.slice(a, b + 1) };
}

/**
 * The column a text word belongs to: the last one starting at or before it; a word left of every
 * column (a wrapped name printed from the margin, `15 - ICICI ...`) belongs to the first.
 */
export function textColumn(w: Word, cols: GridColumn[]): GridColumn | undefined {
  // Under a text column's label (a centred label over left-aligned text): that column.
  const best = mostOverlapping(w, cols);
  if (best && !best.numeric) return best;
  let out: GridColumn | undefined;
  for (const c of cols) if (c.x0 - 3 <= w.x0) out = c;
  return out ?? cols[0];
}

/** A number word (an amount or quantity; long digit runs are identifiers such as order numbers). */
// Asked of every word of every record, several times over: remembered.
export const isAmount = memoByText((w: string): boolean => !/^\d{9,}$/.test(w) && /\d/.test(w) && parseNumber(w) !== null);

/** How well a number sits under a column: its overlap, else minus its distance (and far below any overlap). */
function fit(w: Word, c: GridColumn): number {
  const ov = Math.min(w.x1, c.x1) - Math.max(w.x0, c.x0);
  return ov > 0 ? ov : -Math.min(Math.abs(w.x1 - c.x1), Math.abs(w.x0 - c.x0), Math.abs(w.x0 - c.x1), Math.abs(w.x1 - c.x0)) - 1000;
}

/**
 * Numbers (words, any order) -> numeric column roles. By order when their count matches the
 * numeric columns; otherwise from the right, each to the numeric column it overlaps most (else the
 * nearest), never right of the number after it. Numbers on the record's key
 * line go first; numbers on its other lines (a wrapped unit balance, a stray digit) only fill
 * columns still empty, each the free one it overlaps most.
 */
export function assignToColumns(nums: Word[], cols: GridColumn[], keyLine?: Set<Word>): Map<string, string> {
  const numeric = cols.filter((c) => c.numeric);
  const sorted = [...nums].sort((a, b) => a.x0 - b.x0);
  const out = new Map<string, string>();
  // By order: the key line holds exactly one number per numeric column, or it holds none and the
  // record's other lines do (numbers on the last line of a wrapped record).
  const onKey = keyLine ? sorted.filter((w) => keyLine.has(w)) : sorted;
  const ordered = onKey.length === numeric.length ? onKey : !onKey.length && sorted.length === numeric.length ? sorted : null;
  if (ordered) {
    ordered.forEach((w, k) => out.set(numeric[k].role, w.text));
    return out;
  }
  const first = keyLine && sorted.some((w) => keyLine.has(w)) ? sorted.filter((w) => keyLine.has(w)) : sorted;
  // From the right, each number to the free column left of the one after it that it fits best.
  // (Not placeInOrder's least total distance: a number jittered over its neighbour's column must
  // not push the right-aligned numbers after it out of theirs; the rightmost figure is the surest.)
  const taken = new Set<number>();
  let limit = numeric.length;
  for (let n = first.length - 1; n >= 0; n--) {
    const w = first[n];
    let best = -1;
    let top = -Infinity;
    for (let k = 0; k < limit; k++) {
      const sc = fit(w, numeric[k]);
      if (sc > top) {
        top = sc;
        best = k;
      }
    }
    if (best < 0) break;
    out.set(numeric[best].role, w.text);
    taken.add(best);
    limit = best;
  }
  if (first !== sorted) {
    for (const w of sorted) {
      if (first.includes(w)) continue;
      let best = -1;
      let top = -Infinity;
      numeric.forEach((c, k) => {
        const sc = fit(w, c);
        if (!taken.has(k) && sc > 0 && sc > top) {
          top = sc;
          best = k;
        }
      });
      if (best >= 0) {
        out.set(numeric[best].role, w.text);
        taken.add(best);
      }
    }
  }
  return out;
}

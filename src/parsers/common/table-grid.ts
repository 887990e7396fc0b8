/**
 * Reading tables by content, with geometry only to disambiguate (issue 16). Pure helpers over the
 * line `words` of the document model:
 *
 * - `readHeader`: a column header is a run of stacked lines (1-8) whose words all come from a
 *   vocabulary of header words; its words are grouped into columns by horizontal overlap across
 *   the stacked lines and by gaps wider than a space on one line, whatever the text operators were.
 * - `textColumn`: a text word belongs to the last column that starts at or before it (text is
 *   left-aligned; a long name runs on to the right of its label).
 * - `assignNumbers`: the numbers of a record are assigned to the numeric columns by order (when
 *   their count is the number of numeric columns: merged runs and shifted cells are then harmless),
 *   else by horizontal overlap with the columns' spans.
 */
import type { Line, Word } from '../../pdf/model.js';
import { parseNumber } from '../../pdf/numbers.js';
import { lineSize, mostOverlapping } from './table.js';

// The depository readers import `lineSize` from here; it is the table reader's one.
export { lineSize };

export interface GridColumn {
  /** The label, words joined top to bottom, left to right. */
  label: string;
  /** Role from the label (see `roleOf`), or 'text' when unknown. */
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

/** Label rules, first match wins: [role, numeric, pattern on the lower-cased label]. */
const ROLES: [string, boolean, RegExp][] = [
  ['isin', false, /^isin( ucc| stock symbol)?$|^stock symbol isin$/],
  ['count', true, /no\.? of isins|isins \/ schemes/],
  ['symbol', false, /symbol/],
  ['ucc', false, /^ucc$/],
  ['folio', false, /folio/],
  ['coupon', true, /coupon/],
  ['maturity', false, /maturity/],
  ['avg', true, /average/],
  ['cost', true, /total cost|invested|cost value/],
  ['pnl', true, /unrealised|profit|gain/],
  ['ret', true, /return/],
  ['units', true, /^(a\) )?current bal/],
  ['other', true, /frozen|pledge|free bal|lock|lent|safekeep|earmark|pending|transit|demat|remat|confirmed/],
  ['units', true, /closing bal\w*\s*\(?units|^units$|no\.? of units|no\.? of shares|quantity|no\.? of bonds|current bal/],
  ['stamp', true, /stamp duty/],
  ['open', true, /opening bal|^op\.? bal/],
  ['balance', true, /^balance$|closing bal|^cl\.? bal/],
  ['credit', true, /^credit( ?cr\.?)?$/],
  ['debit', true, /^debit( ?dr\.?)?$/],
  ['date', false, /^date$|transaction date|^txn date$/],
  ['order', false, /order/],
  ['face', true, /^face value/],
  ['nav', true, /\bnav\b/],
  ['price', true, /market price|^rate$|price/],
  ['sum', true, /sum assured/],
  ['premium', true, /premium/],
  ['value', true, /valuation|value/],
  ['tier', false, /^tier$/],
  ['manager', false, /manager/],
  ['policy', false, /policy/],
  ['insurer', false, /insurer/],
  ['plan', false, /plan name/],
  ['assured', false, /life assured/],
  ['status', false, /^status$/],
  ['frequency', false, /frequency/],
  ['amc', false, /^amc/],
  ['rta', false, /^rta$|registrar/],
  ['acctype', false, /account type/],
  ['details', false, /account details/],
  ['instruction', false, /instruction/],
  ['desc', false, /particulars|^description$|^transaction description$/],
  ['name', false, /security|company|description|scheme|name/],
];

/** Every word a header of these statements is made of (lower case, letters and digits only). */
const VOCAB = new Set(
  `isin ucc stock symbol company name face value no of shares quantity market price in nav units unit
  description security bonds coupon rate maturity date current bal balance frozen pledge setup free closing opening
  credit debit order transaction particulars scheme folio average cost per total unrealised profitloss profit loss
  annualised return valuation invested cumulative amount tier pension fund manager policy insurer plan life assured
  status frequency sum premium amc rta account type details isins schemes rs inr locked lent pending demat remat transit
  confirmed pledged earmarked safekeep lockin op cl txn stamp duty cr dr instruction a b c d e f`
    .split(/\s+/)
    .filter(Boolean),
);

const norm = (w: string): string => w.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Header labels of these statements (and their synonyms), as word lists, to split merged pieces. */
const LABELS: string[][] =
  `ISIN|ISIN UCC|UCC|Security|Security Name|ISIN Name|Current Bal|Current Balance|Frozen Bal|Pledge Bal|Pledge Setup Bal|Free Bal
  |Market Price / Face Value|Market Price|Rate|Value in|Market Value|Stock Symbol|Company Name|Face Value|No. of Shares|Quantity|No. of Units|NAV
  |ISIN Description|Security Description|Coupon Rate|Maturity Date|No. of Bonds|Folio No.|Average Cost Per Units|Total Cost|Current NAV per unit
  |Current Value|Unrealised Profit/(Loss)|Annualised Return(%)|Cumulative Amount Invested (in INR)|Date|Transaction Particulars|Description|Particulars|Order No|Credit|Debit
  |Instruction Details|Closing Balance|Opening Balance|Op. Bal|Cl. Bal|Transaction Date|Txn Date|Transaction Description|Stamp Duty|Credit Cr|Debit Dr|Scheme Name|Closing Bal (Units)|Closing Balance Units|Units|Cumulative Amount Invested|Invested Value
  |Valuation|Tier|Pension Fund Manager|Fund Manager|Scheme|Policy No.|Insurer|Plan Name|Life Assured|Status|Frequency|Sum Assured|Premium
  |AMC Name|RTA|Account Type|Account Details|No. of ISINs / Schemes|Value Rs|Value INR`
    .split('|')
    .map((l) => l.split(/\s+/).map(norm).filter(Boolean))
    .filter((l) => l.length);

/** Words that are a contiguous part of some label (rupee marks and punctuation are neutral). */
function isFragment(ws: Word[]): boolean {
  const n = ws.map((w) => norm(w.text)).filter(Boolean);
  if (!n.length) return true;
  return LABELS.some((l) => {
    for (let k = 0; k + n.length <= l.length; k++) if (n.every((x, j) => l[k + j] === x)) return true;
    return false;
  });
}

/** A piece's words as labels: kept whole when they are one label (or part of one), else split greedily. */
function splitLabels(ws: Word[]): Word[][] {
  if (ws.length < 2 || isFragment(ws)) return ws.length ? [ws] : [];
  const out: Word[][] = [];
  let p = 0;
  while (p < ws.length) {
    let q = ws.length;
    while (q > p + 1 && !isFragment(ws.slice(p, q))) q--;
    out.push(ws.slice(p, q));
    p = q;
  }
  return out;
}

/** Part of a header word broken over two lines (`Annual` / `ised`). */
function isBroken(n: string): boolean {
  if (n.length < 3) return false;
  for (const v of VOCAB) if (v.length > n.length && (v.startsWith(n) || v.endsWith(n))) return true;
  return false;
}

/** Words that start a header (one of them must be present). */
const ANCHORS = new Set(['isin', 'date', 'tier', 'policy', 'account', 'amc']);

/** A line made only of header words (punctuation and rupee marks are neutral), with at least one. */
export function isHeaderLine(line: Line, lenient = false): boolean {
  let known = 0;
  let unknown = 0;
  for (const w of line.words) {
    // No header word has a digit (`Return(%)` has none either): data lines are refused at once.
    if (/\d/.test(w.text)) return false;
    const n = norm(w.text);
    if (!n) continue;
    if (VOCAB.has(n) || (n.length >= 5 && unglue(w).length > 1)) known++;
    // Beside a header, one short unknown word is a label broken over lines (`Annual` / `ised`).
    else if (lenient && isBroken(n) && ++unknown <= 1) continue;
    else return false;
  }
  return known > 0 || (lenient && unknown === 1 && line.words.length === 1);
}

/**
 * Header words drawn so close that no space was extracted between them (`ValueProfit/(Loss)`)
 * are split back into vocabulary words, their extents shared out by characters.
 */
const GLUED = new Map<string, string[] | null>();

export function unglue(w: Word): Word[] {
  const parts = (t: string): string[] | null => {
    const known = GLUED.get(t);
    if (known !== undefined) return known;
    const r = split(t);
    if (GLUED.size < 5000) GLUED.set(t, r);
    return r;
  };
  const split = (t: string): string[] | null => {
    if (VOCAB.has(norm(t)) || !norm(t)) return [t];
    for (let k = t.length - 1; k > 0; k--) {
      const head = t.slice(0, k);
      if (!norm(head) || !VOCAB.has(norm(head))) continue;
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

export function roleOf(label: string): { role: string; numeric: boolean } {
  const l = label.toLowerCase().replace(/\s+/g, ' ').trim();
  for (const [role, numeric, re] of ROLES) if (re.test(l)) return { role, numeric };
  return { role: 'text', numeric: false };
}

/**
 * The header whose lines include `lines[i]`, or null. Stacked lines above and below join when
 * they are header lines on the same page within about two line heights of each other.
 */
export function readHeader(lines: Line[], i: number): Grid | null {
  if (!isHeaderLine(lines[i])) return null;
  const size = (l: Line): number => Math.max(5, ...l.words.map(() => 0), lineSize(l));
  let a = i;
  let b = i;
  while (
    a > 0 &&
    a > i - 19 &&
    lines[a - 1].page === lines[a].page &&
    lines[a].y - lines[a - 1].y <= size(lines[a]) * 2.1 &&
    isHeaderLine(lines[a - 1], true)
  )
    a--;
  while (
    b + 1 < lines.length &&
    b < a + 19 &&
    lines[b + 1].page === lines[b].page &&
    lines[b + 1].y - lines[b].y <= size(lines[b]) * 2.1 &&
    isHeaderLine(lines[b + 1], true)
  )
    b++;
  const group = lines.slice(a, b + 1).map((l) => ({ ...l, words: l.words.flatMap(unglue) }));
  const words = group.flatMap((l, li) => l.words.map((w) => ({ ...w, li })));
  if (!words.some((w) => ANCHORS.has(norm(w.text)))) return null;
  if (words.filter((w) => norm(w.text)).length < 3) return null;
  // Per line: segments are pieces, split where a piece holds several labels (cells drawn close
  // together merge into one piece) and joined where one label was drawn in several pieces.
  type Seg = { words: Word[]; li: number; x0: number; x1: number };
  const gapMax = Math.max(4, lineSize(group[0]) * 1.05);
  const segs: Seg[] = [];
  group.forEach((l, li) => {
    const line: Seg[] = [];
    for (const p of l.pieces) {
      const ws = l.words.filter((w) => w.x0 >= p.x0 - 0.5 && w.x1 <= p.x1 + 0.5);
      for (const part of splitLabels(ws)) line.push({ words: part, li, x0: part[0].x0, x1: part[part.length - 1].x1 });
    }
    for (let k = 1; k < line.length; k++) {
      const u = line[k - 1];
      const v = line[k];
      if (v.x0 - u.x1 <= gapMax && isFragment([...u.words, ...v.words])) {
        line.splice(k - 1, 2, { words: [...u.words, ...v.words], li, x0: u.x0, x1: v.x1 });
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
  const groups = new Map<number, (Word & { li: number })[]>();
  segs.forEach((sg, k) => groups.set(find(k), [...(groups.get(find(k)) ?? []), ...sg.words.map((w) => ({ ...w, li: sg.li }))]));
  const columns: GridColumn[] = [...groups.values()]
    .map((ws) => {
      ws.sort((u, v) => u.li - v.li || u.x0 - v.x0);
      // A label drawn twice over itself (a bold or bilingual overprint) counts once.
      const label = ws
        .filter((w, k) => !ws.slice(0, k).some((u) => u.text === w.text && Math.min(u.x1, w.x1) - Math.max(u.x0, w.x0) > 0))
        .map((w) => w.text)
        .join(' ');
      const { role, numeric } = roleOf(label);
      return { label, role, numeric, x0: Math.min(...ws.map((w) => w.x0)), x1: Math.max(...ws.map((w) => w.x1)) };
    })
    .sort((u, v) => u.x0 - v.x0);
  return { columns, next: b + 1, lines: lines.slice(a, b + 1) };
}

/** The column a text word belongs to: the last one starting at or before it. */
export function textColumn(w: Word, cols: GridColumn[]): GridColumn | undefined {
  // Under a text column's label (a centred label over left-aligned text): that column.
  const best = mostOverlapping(w, cols);
  if (best && !best.numeric) return best;
  let out: GridColumn | undefined;
  for (const c of cols) if (c.x0 - 3 <= w.x0) out = c;
  return out;
}

/** A number word (an amount or quantity; long digit runs are identifiers such as order numbers). */
export function isAmount(w: string): boolean {
  if (/^\d{9,}$/.test(w)) return false;
  return parseNumber(w) !== null && /\d/.test(w);
}

/**
 * Numbers (words, any order) -> numeric column roles. By order when their count matches the
 * numeric columns; otherwise from the right, each to the numeric column it overlaps most (else the
 * nearest), never right of the number after it. Numbers on the record's key line go first; numbers
 * on its other lines (a wrapped unit balance, a stray digit) only fill columns still empty.
 */
export function assignNumbers(nums: Word[], cols: GridColumn[], keyLine?: Set<Word>): Map<string, string> {
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
  const score = (w: Word, c: GridColumn): number => {
    const ov = Math.min(w.x1, c.x1) - Math.max(w.x0, c.x0);
    return ov > 0 ? ov : -Math.min(Math.abs(w.x1 - c.x1), Math.abs(w.x0 - c.x0), Math.abs(w.x0 - c.x1), Math.abs(w.x1 - c.x0)) - 1000;
  };
  const first = keyLine && sorted.some((w) => keyLine.has(w)) ? sorted.filter((w) => keyLine.has(w)) : sorted;
  const taken = new Set<number>();
  let limit = numeric.length;
  for (let n = first.length - 1; n >= 0; n--) {
    const w = first[n];
    let best = -1;
    let top = -Infinity;
    for (let k = 0; k < limit; k++) {
      const sc = score(w, numeric[k]);
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
        const sc = score(w, c);
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

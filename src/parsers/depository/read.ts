/**
 * Section readers both depository parsers share, anchored on content: the investor block (opened
 * by the statement id, side text kept out by its horizontal extent), the period, records of a
 * table found by their ISIN (continuation lines attached to the record above, numbers assigned
 * by order from the right or by overlap with the header), and the kinds of table rows.
 */
import type { Line, PdfDocument, Word } from '../../pdf/model.js';
import { allLines } from '../../pdf/model.js';
import { parseDate, parseMonthYear, parseNumber } from '../../pdf/numbers.js';
import { assignToColumns, isAmount, lineSize, squashText, textColumn, type Grid, type GridColumn } from '../common/table/index.js';

export const FULL_ISIN = /^IN[A-Z0-9]{9}[0-9]$/;
const PART_ISIN = /^IN[A-Z0-9]{4,9}$/;
/** A PAN as printed, masked ones included (`AYXXXXXX7G`). */
export const PAN = /[A-Z]{5}[0-9X]{4}[A-Z]/;

const TEXT = new WeakMap<Line, string>();
/** A line's words joined by single spaces (once per line: every section reader asks). */
export const text = (l: Line): string => {
  let t = TEXT.get(l);
  if (t === undefined) TEXT.set(l, (t = squashText(l.words.map((w) => w.text).join(' '))));
  return t;
};

/** Body lines without page furniture (page numbers, repeated footers). */
export function bodyLines(doc: PdfDocument, furniture: (t: string, l: Line) => boolean): Line[] {
  return allLines(doc).filter((l) => {
    const t = text(l);
    return t && !/^Page \d+( of \d+)?$/i.test(t) && !furniture(t, l);
  });
}

/** `for the period from A to B` (dd-mm-yyyy or dd-Mon-yyyy) or `for the month of October 2026`. */
export function findPeriod(lines: Line[]): { from: string | null; to: string } | null {
  for (const l of lines.slice(0, 400)) {
    const t = text(l);
    const m = /period from (\d{1,2}[-/](?:\d{2}|[A-Za-z]{3})[-/]\d{4}) to (\d{1,2}[-/](?:\d{2}|[A-Za-z]{3})[-/]\d{4})/i.exec(t);
    if (m && parseDate(m[2])) return { from: parseDate(m[1]), to: parseDate(m[2])! };
  }
  for (const l of lines.slice(0, 400)) {
    const m = /for the month of ([A-Za-z]+ \d{4})/i.exec(text(l));
    const p = m ? parseMonthYear(m[1]) : null;
    if (p) return p;
  }
  return null;
}

/** The words of a line left of the first wide gap (a side paragraph starts after it). */
export function leftWords(l: Line): Word[] {
  const out: Word[] = [];
  const gap = lineSize(l) * 2.5;
  for (const w of l.words) {
    if (out.length && w.x0 - out[out.length - 1].x1 > gap) break;
    out.push(w);
  }
  return out;
}

export interface InvestorBlock {
  name: string;
  address: string | null;
  pincode: string | null;
  email: string | null;
  mobile: string | null;
  /** A PAN printed inside the block (`PAN : ...`), when there is one. */
  pan: string | null;
}

const EMAIL_IN = /\bE-?mail(?:\s*Id)?\s*:?\s*([^\s@]+@\S+)/i;
const MOBILE_IN = /\bMobile(?:\s*No\.?)?\s*:?\s*(\+?\d[\d ]{7,}\d)/i;
const PIN_LINE = /^(?:PIN\s*CODE|PINCODE|PIN)\s*[:-]?\s*(\d{6})$/i;

/**
 * The investor block after the statement-id line: name, address lines, pincode, then email and
 * mobile. It ends at a wide vertical gap, another page, the period or month line, or a line that
 * is not the block's (a heading further right). Only the left part of each line is read.
 */
export function readInvestor(lines: Line[], idIdx: number): InvestorBlock {
  const out: InvestorBlock = { name: '', address: null, pincode: null, email: null, mobile: null, pan: null };
  const addr: string[] = [];
  // The block's left edge: the id line's, or (when the id is printed at the right) the next line's.
  let x0 = lines[idIdx].words[0]?.x0 ?? 0;
  if (x0 > 200 && lines[idIdx + 1]) x0 = lines[idIdx + 1].words[0]?.x0 ?? x0;
  let prev = lines[idIdx];
  for (let i = idIdx + 1; i < lines.length && i < idIdx + 16; i++) {
    const l = lines[i];
    if (l.page !== prev.page || l.y - prev.y > lineSize(prev) * 2.6) break;
    const ws = leftWords(l).filter((w) => w.x0 >= x0 - 12);
    if (!ws.length || Math.abs(ws[0].x0 - x0) > 12) break;
    const t = squashText(ws.map((w) => w.text).join(' '));
    if (/for the (period|month)|^statement for|consolidated|summary|portfolio|your demat/i.test(t)) break;
    prev = l;
    let m: RegExpExecArray | null;
    // Email and mobile on their own lines or side by side on one; a PAN line; the pincode line.
    const email = EMAIL_IN.exec(t);
    const mobile = MOBILE_IN.exec(t);
    if ((m = PIN_LINE.exec(t))) out.pincode = m[1];
    else if ((email && /^E-?mail/i.test(t)) || (mobile && /^Mobile/i.test(t))) {
      if (email) out.email = email[1].toLowerCase();
      if (mobile) out.mobile = mobile[1].replace(/\s/g, '');
    } else if ((m = /^PAN\s*(?:No\.?)?\s*:?\s*([A-Z]{5}[0-9X]{4}[A-Z])$/i.exec(t))) out.pan = m[1].toUpperCase();
    else if (!out.name) out.name = t;
    else if (!out.pincode && !out.email && !out.mobile && !out.pan) addr.push(t);
  }
  // No pincode line: the pincode ends the last address line (`PUNE - 411001`).
  const last = addr.length > 1 ? addr[addr.length - 1] : '';
  const inline = out.pincode ? null : /^(.*?)[\s,-]+(\d{6})$/.exec(last);
  if (inline) {
    out.pincode = inline[2];
    if (inline[1].trim()) addr[addr.length - 1] = inline[1].trim();
    else addr.pop();
  }
  out.address = addr.join(', ') || null;
  return out;
}

// ------------------------------------------------------------------ table records

export interface Rec {
  lines: Line[];
  /** The line holding the record's key (its ISIN, date, tier or policy number). */
  key: Line;
}

export interface RecFields {
  isin: string;
  /** Text per column role (name words joined in reading order). */
  text: Record<string, string>;
  /** Numbers per numeric column role (as printed). */
  nums: Map<string, string>;
  /** Text in the ISIN column under the ISIN (a stock symbol, a UCC). */
  under: string[];
}

/** The ISIN word of a line (in the ISIN column when the table has one). */
export function isinWord(l: Line, grid: Grid | null): Word | undefined {
  const cols = grid?.columns ?? [];
  const k = cols.findIndex((c) => c.role === 'isin');
  // The ISIN column reaches from the column before it to the column after it (headers may be centred).
  const lo = k > 0 ? cols[k - 1].x1 : -Infinity;
  const hi = k >= 0 && k + 1 < cols.length ? cols[k + 1].x0 : Infinity;
  return l.words.find(
    (w) => (FULL_ISIN.test(w.text) || PART_ISIN.test(w.text)) && /\d/.test(w.text) && (k < 0 || (w.x1 > lo && w.x0 < hi)),
  );
}

/**
 * A number printed inside a text column (a year in a security name, a folio or client number):
 * its column is a text column and it ends before the next column starts.
 */
function isIdentifier(w: Word, cols: GridColumn[]): boolean {
  const col = textColumn(w, cols);
  if (!col || col.numeric) return false;
  if (/^\d{6,}$/.test(w.text)) return true;
  const next = cols[cols.indexOf(col) + 1];
  return /^\d{1,5}$/.test(w.text) && (!next || w.x1 < next.x0 - 1);
}

/** Words that are numbers of the record (amounts and quantities, not identifiers). */
export function numberWords(l: Line, cols: GridColumn[]): Word[] {
  return l.words.filter((w) => isAmount(w.text) && !isIdentifier(w, cols));
}

/** Read one record: its ISIN (joined when split over two lines), text per column, numbers. */
export function recordFields(rec: Rec, grid: Grid): RecFields {
  const cols = grid.columns;
  const first = rec.key;
  const iw = isinWord(first, grid);
  let isin = iw?.text ?? '';
  const text: Record<string, string[]> = {};
  const nums: Word[] = [];
  const under: string[] = [];
  const isinCol = cols.find((c) => c.role === 'isin');
  const nextAfterIsin = isinCol ? cols[cols.indexOf(isinCol) + 1] : undefined;
  rec.lines.forEach((l) => {
    for (const w of l.words) {
      if (w === iw) continue;
      if (isAmount(w.text) && !isIdentifier(w, cols)) {
        nums.push(w);
        continue;
      }
      let col = textColumn(w, cols);
      if (col && col === isinCol) {
        // Words right of the ISIN are the name: drawn in one run with it, or under a centred header.
        if (iw && nextAfterIsin && (l === first ? w.x0 > iw.x0 : w.x0 > iw.x1 + 4))
          col = cols.find((c) => c.role === 'name') ?? nextAfterIsin;
        else {
          if (isin.length < 12 && /^[A-Z0-9]{1,10}$/.test(w.text) && (isin + w.text).length === 12) isin += w.text;
          else under.push(w.text);
          continue;
        }
      }
      const role = col?.role ?? 'text';
      (text[role] ??= []).push(w.text);
    }
  });
  const joined: Record<string, string> = {};
  for (const [k, v] of Object.entries(text)) {
    // A folio wrapped in its narrow cell: the hyphen a line break put after a part (a soft hyphen,
    // which the engine reports as `-`: `199688043-` over `55/0`) is not part of the number.
    const parts =
      k === 'folio' ? v.map((p, j) => (j + 1 < v.length && /\d[-\u00AD]$/.test(p) && /^[\d/]/.test(v[j + 1]) ? p.slice(0, -1) : p)) : v;
    joined[k] = squashText(parts.join(' ')).replace(/(\w)- (\w)/g, '$1-$2');
  }
  return { isin, text: joined, nums: assignToColumns(nums, cols, new Set(first.words)), under };
}

/** A folio number as its cell prints it, wrapped parts joined (`recordFields` drops their line-break hyphens). */
export function folioCell(t: string | undefined): string {
  return (t ?? '').replace(/[\s\u00AD]+/g, '');
}

/** What a statement prints in a cell it has no value for (depository_b's UCC under a folio's ISIN), as data. */
export const CELL_FILLER = /^(not available|not applicable|n\.? ?a\.?|nil|--+)$/i;

/** A table row that closes the record above: sub-totals and totals. */
export const TOTAL_ROW = /^(sub[\s-]*total|total|grand total)\b/i;

/**
 * A heading inside a table (a holding kind, an AMC): no numbers, starting in the first column
 * and running on as one phrase (not a short token under an ISIN followed by a cell further right).
 */
export function isTableHeading(l: Line, grid: Grid): boolean {
  const cols = grid.columns;
  if (cols[0]?.role !== 'isin' || l.words.length < 2) return false;
  // `NOT AVAILABLE Alpha Fund of Fund`: a blank UCC under the ISIN, the name wrapped beside it.
  if (CELL_FILLER.test(`${l.words[0].text} ${l.words[1].text}`) || CELL_FILLER.test(l.words[0].text)) return false;
  if (l.words.some((w) => isAmount(w.text))) return false;
  const first = l.words[0];
  if (first.x0 > cols[0].x0 + 14 || (cols[1] && (textColumn(first, cols) ?? cols[0]) !== cols[0])) return false;
  return l.words[1].x0 - first.x1 < lineSize(l) * 0.8;
}

/** The number of a role, parsed (null when absent). */
export const num = (f: RecFields, role: string): number | null => parseNumber(f.nums.get(role));

/**
 * The loose lines met before a row's key (its date or ISIN line), shared out: when a row is open
 * (`last` is its last line), the lines up to the widest vertical gap between it and the key are
 * its own (`toPrevious`); of the rest, those close above the key (each within 2.4 line heights of
 * the next, on its page) belong to the key (`toKey`). A row's text may stand above or below its key.
 */
export function shareBeforeKey(last: Line | null, before: Line[], key: Line): { toPrevious: Line[]; toKey: Line[] } {
  let mine = before;
  let toPrevious: Line[] = [];
  if (last) {
    const chain = [last, ...before, key];
    let cut = 1;
    let widest = -1;
    for (let k = 1; k < chain.length; k++) {
      const gap = chain[k].page === chain[k - 1].page ? chain[k].y - chain[k - 1].y : Infinity;
      if (gap > widest) {
        widest = gap;
        cut = k;
      }
    }
    toPrevious = before.slice(0, cut - 1);
    mine = before.slice(cut - 1);
  }
  const toKey: Line[] = [];
  let at = key;
  for (let k = mine.length - 1; k >= 0; k--) {
    if (mine[k].page !== at.page || at.y - mine[k].y > lineSize(at) * 2.4) break;
    toKey.unshift(mine[k]);
    at = mine[k];
  }
  return { toPrevious, toKey };
}

/**
 * The investor block: the investor's name, address lines and labelled contact fields printed
 * top-left on an early page. One reader for every statement kind. Pure.
 *
 * Side text (an explanatory paragraph printed to the right of the block, on the same baselines)
 * is kept out by its horizontal extent: only the word group that starts at the block's left edge
 * belongs to the block.
 */
import type { Line } from '../../pdf/model.js';
import { lineSize, wordGroups, wordsText } from './table/index.js';

export interface InvestorFields {
  name: string | null;
  address: string | null;
  pincode: string | null;
  email: string | null;
  mobile: string | null;
  pan: string | null;
}

export interface InvestorBlockOptions {
  /** Index of the block's first candidate line. */
  start: number;
  /** A line (squashed left text) that ends the block before it. */
  stop: RegExp;
  /** Lines that are not part of the block (labels of other sections, ids) and are skipped. */
  skip?: RegExp;
  /** At most this many block lines are read (side-text lines passed over do not count). */
  maxLines?: number;
}

const EMAIL = /^E-?mail(?:\s*Id)?\s*:?\s*(\S+@\S+)/i;
const MOBILE = /^Mobile\s*(?:No\.?)?\s*:?\s*(\+?[\d][\d\s-]{7,})/i;
const PAN = /^PAN\s*(?:No\.?)?\s*:?\s*([A-Z]{5}[0-9X]{4}[A-Z])\b/;
const PHONE = /^(Phone|Tel|Res|Off)\b/i;
const LABELLED = /^(E-?mail|Mobile|PAN|Phone|Tel|Res|Off)\b/i;
const LABEL_ONLY = /^(E-?mail(?:\s*Id)?|Mobile(?:\s*No\.?)?|PAN)\s*:?$/i;

/**
 * Read the block from `lines[start..]` (one page's lines): the name is the first unlabelled
 * line, the address the unlabelled lines after it; email, mobile and PAN by their labels in any
 * order. The block ends at `stop`, or at the first unlabelled line after `Mobile` once the email and
 * the name were seen; lines
 * with nothing at the block's left edge (side text) are passed over. `end` is the line after the
 * block's last line (lines passed over after it are the caller's).
 */
export function readInvestorBlock(lines: readonly Line[], o: InvestorBlockOptions): { fields: InvestorFields; end: number } {
  const f: InvestorFields = { name: null, address: null, pincode: null, email: null, mobile: null, pan: null };
  const text: string[] = [];
  const max = o.maxLines ?? 14;
  // The block's left edge: the leftmost start among the first few lines.
  let left = Infinity;
  for (let k = o.start; k < Math.min(lines.length, o.start + 4); k++)
    if (lines[k].words.length) left = Math.min(left, lines[k].words[0].x0);
  let i = o.start;
  // After `Mobile` (email and name seen) only labelled fields (a PAN line) still belong to the block.
  let done = false;
  /** The last line that belonged to the block: what follows it is the caller's. */
  let used = o.start - 1;
  let taken = 0;
  for (; i < lines.length && taken < max && i < o.start + max * 3; i++) {
    const l = lines[i];
    const size = lineSize(l);
    const groups = wordGroups(l, Math.max(size * 2.2, 10));
    const group = groups[0];
    let mine = group && group[0].x0 <= left + size * 2 ? wordsText(group).trim() : '';
    // A label printed apart from its value (`Mobile` ... `: +91...`) takes the next group.
    if (mine && LABEL_ONLY.test(mine) && groups[1]) mine = `${mine} ${wordsText(groups[1])}`;
    // Nothing at the block's left edge: side text on a line of its own.
    if (!mine) continue;
    taken++;
    if (o.stop.test(mine)) break;
    if (o.skip?.test(mine)) continue;
    if (!(done && !LABELLED.test(mine))) used = i;
    let m: RegExpExecArray | null;
    if ((m = EMAIL.exec(mine))) f.email = m[1].toLowerCase();
    else if ((m = MOBILE.exec(mine))) {
      f.mobile = m[1].replace(/[\s-]/g, '');
      if (f.email && text.length) done = true;
    } else if ((m = PAN.exec(mine))) f.pan = m[1];
    else if (PHONE.test(mine)) continue;
    else if (done) break;
    else text.push(mine.replace(/\s+/g, ' '));
  }
  if (text.length) {
    f.name = text[0];
    const address = text.slice(1).join(', ');
    f.address = address || null;
    f.pincode = /\b(\d{6})\b/.exec(address)?.[1] ?? null;
  }
  return { fields: f, end: Math.min(i, used + 1) };
}

/** A statement's `investor` with the fields of its investor block laid over it (a missing name is ''). */
export function withInvestorFields<T extends { name: string }>(investor: T, f: InvestorFields): T {
  return { ...investor, name: f.name ?? '', email: f.email, address: f.address, pincode: f.pincode, mobile: f.mobile, pan: f.pan };
}

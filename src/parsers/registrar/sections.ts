/**
 * Section readers of registrar statements (registrar_a / registrar_b), each a small pure function
 * over lines or their text: period, folio line, scheme header block, transaction header, a
 * transaction line, closing lines. They find things by content (dates, ISINs, folio numbers,
 * labels, numbers read from the right) and use positions only to tell columns apart.
 */
import type { Line, Word } from '../../pdf/model.js';
import { DATE_TOKEN, parseDate, parseNumber } from '../../pdf/numbers.js';
import type { Scheme } from '../../schema/index.js';
import { schemeType } from '../common.js';
import {
  assignNumbers,
  joinWrapped,
  lineSize,
  matchStackedHeader,
  type Span,
  splitGluedNumbers,
  squash,
  trailingNumbers,
} from '../common/table/index.js';

/** Where the investor block ends (the first line of another section). */
export const INVESTOR_STOP = /PORTFOLIO SUMMARY|Folio\s*No|^Date\b|Mutual\s+Fund$|\sMF$|^Consolidated Account|Scheme\s*Name/i;

const DATE_IN_TEXT = /(\d{1,2}-[A-Za-z]{3}-\d{4})\s*(?:To|to|-)\s*(\d{1,2}-[A-Za-z]{3}-\d{4})/;

/** `01-Apr-2024 To 31-Mar-2026` among the first lines. */
export function readPeriod(lines: readonly Line[]): { from: string | null; to: string | null; index: number } {
  for (let i = 0; i < Math.min(lines.length, 60); i++) {
    const m = DATE_IN_TEXT.exec(squash(lines[i]));
    if (m) return { from: parseDate(m[1]), to: parseDate(m[2]), index: i };
  }
  return { from: null, to: null, index: -1 };
}

/** An AMC heading: a line of its own ending in `Mutual Fund`, `MF` or `Fund House`, no numbers, no labels. */
export const AMC_HEADING = /^[A-Za-z][A-Za-z0-9&.,'() -]*?\s(?:Mutual\s*Fund|MF|Fund\s*House)$/i;

export function isAmcHeading(t: string): boolean {
  return AMC_HEADING.test(t) && !/:|\d{2}-[A-Za-z]{3}-\d{4}/.test(t) && t.length < 80;
}

export interface FolioLine {
  number: string;
  pan: string | null;
  kyc: string | null;
  pankyc: string | null;
}

const FOLIO = /Folio\s*No\.?\s*:?\s*(\d[\d]*(?:\s*\/\s*\d+)?)/i;
const KYC = /KYC\s*:?\s*(OK|NOT\s*OK)\b/i;
const PANKYC = /KYC\s*:?\s*(?:OK|NOT\s*OK)\s+PAN\s*:?\s*(OK|NOT\s*OK)\b/i;
const PAN_ID = /PAN\s*:?\s*([A-Z]{5}[0-9X]{4}[A-Z])\b/;

/** `Folio No: 1234567 / 89  PAN: ABCDE1234F  KYC: OK  PAN: OK` (labels with or without colons). */
export function readFolioLine(t: string): FolioLine | null {
  if (!/Folio\s*No/i.test(t)) return null;
  const m = FOLIO.exec(t);
  if (!m) return null;
  const kyc = KYC.exec(t);
  const pk = PANKYC.exec(t);
  return {
    number: m[1].replace(/\s+/g, ' '),
    pan: PAN_ID.exec(t)?.[1] ?? null,
    kyc: kyc ? norm(kyc[1]) : null,
    pankyc: pk ? norm(pk[1]) : null,
  };
}

/** `KYC: OK  PAN: NOT OK` printed on its own line under the folio line. */
export function readKycLine(t: string): { kyc: string; pankyc: string | null } | null {
  const m = /^KYC\s*:?\s*(OK|NOT\s*OK)(?:\s+PAN\s*:?\s*(OK|NOT\s*OK))?\s*$/i.exec(t);
  return m ? { kyc: norm(m[1]), pankyc: m[2] ? norm(m[2]) : null } : null;
}

const norm = (s: string): string => s.toUpperCase().replace(/\s+/g, ' ');

/**
 * The RTA scheme code before the hyphen that opens a scheme line or a summary scheme cell:
 * `B51Z-...`, `P8042-...`, or two parts when one holds a digit (`117 IOD1G-...`).
 */
export const SCHEME_CODE = /^([A-Z0-9]{2,12}|(?=[A-Z ]*\d)[A-Z0-9]{1,8} [A-Z0-9]{1,10})\s*-\s*(\S.*)$/;
const SCHEME_START = SCHEME_CODE;
const NOMINEE = /Nominee\s*\d\s*:/i;

/** The scheme header block (holders, scheme code-name, ISIN, advisor, registrar, nominees) -> a scheme. */
export function readSchemeBlock(block: readonly string[]): {
  scheme: Scheme;
  holders: { name: string; pan: string | null }[];
  registrar: string | null;
  kyc: { kyc: string; pankyc: string | null } | null;
} {
  const holders: { name: string; pan: string | null }[] = [];
  const nominees: string[] = [];
  let registrar: string | null = null;
  let kyc: { kyc: string; pankyc: string | null } | null = null;
  const text: string[] = [];
  let started = false;
  for (const t of block) {
    if (NOMINEE.test(t)) {
      for (const part of t.split(/Nominee\s*\d\s*:/i)) if (part.trim()) nominees.push(part.trim());
      continue;
    }
    const reg = /^Registrar\s*:\s*(\S+)\s*$/i.exec(t);
    if (reg) {
      registrar = reg[1].toUpperCase();
      continue;
    }
    const k = readKycLine(t);
    if (k) {
      kyc = k;
      continue;
    }
    if (!started && SCHEME_START.test(t)) started = true;
    if (started) text.push(t);
    else holders.push(readHolder(t));
  }
  let s = joinWrapped(text);
  const regM = /\s*Registrar\s*:\s*([A-Za-z]+)\s*/i.exec(s);
  if (regM) {
    registrar = regM[1].toUpperCase();
    s = s.replace(regM[0], ' ');
  }
  let advisor: string | null = null;
  const adv = /\(\s*Advisor\s*:\s*([^)]*)\)/i.exec(s);
  if (adv) {
    advisor = adv[1].trim() || null;
    s = s.replace(adv[0], ' ');
  }
  let isin: string | null = null;
  const isinM = /-?\s*ISIN\s*:\s*((?:[A-Z0-9]\s?){12})/.exec(s);
  if (isinM) {
    isin = isinM[1].replace(/\s/g, '');
    s = s.replace(isinM[0], ' ');
  }
  let amfi: string | null = null;
  const amfiM = /\(?\s*AMFI\s*(?:Code)?\s*:\s*(\d+)\s*\)?/i.exec(s);
  if (amfiM) {
    amfi = amfiM[1];
    s = s.replace(amfiM[0], ' ');
  }
  const codeM = SCHEME_CODE.exec(s.trim());
  const rtaCode = codeM ? codeM[1] : null;
  const raw = codeM ? codeM[2] : s.trim();
  const isDemat = /\(\s*Demat\s*\)/i.test(raw) && !/Non[\s-]*Demat/i.test(raw);
  const clean = cleanSchemeName(raw);
  const name = clean.name;
  registrar ??= clean.registrar;
  advisor ??= clean.advisor;
  return {
    holders: holders.filter((h) => h.name),
    registrar,
    kyc,
    scheme: {
      isin,
      name,
      type: schemeType(name),
      units: 0,
      nav: null,
      value: 0,
      cost: null,
      gain: { absolute: null, percentage: null },
      transactions: [],
      nominees,
      additional_info: { advisor, rta_code: rtaCode, amfi, is_demat: isDemat, open_units: null, close_units: null },
    },
  };
}

/** A registrar's name as a word of its own (or glued to the word before it). */
const RTA_TAIL = /(?:^|\s|(?<=[a-z)]))(CAMS|KFINTECH|KFin\s*Technologies(?:\s*(?:Ltd|Limited)\.?)?|KFIN|KARVY)\s*$/i;
/** An advisor code at the end of a name: `ARN-12345`, `INA000012345`, `EUIN E123456`. */
const ADVISOR_TAIL = /(?:^|\s)(ARN\s*-\s*\d{1,8}|INA\d{9}|INP\d{9})\s*$/i;
/** `(formerly ...)` / `(Formerly known as ...)`, closed, or left open at the end of the name. */
const FORMERLY = /\(\s*formerly\b[^)]*(?:\)|$)/gi;

/**
 * A scheme name as SPEC's `scheme.name` holds it, from the text the statement prints: without
 * `(Demat)` / `(Non-Demat)`, without the `(formerly ...)` / `(Formerly known as ...)` tail (the
 * scheme's former name is not its name), and without a registrar word or advisor code glued to its
 * end (returned apart, for `registrar` and `additional_info.advisor`). The detailed and the summary
 * layouts both go through here.
 */
export function cleanSchemeName(text: string): { name: string; registrar: string | null; advisor: string | null } {
  let s = text
    .replace(/\(\s*(?:Non[\s-]*)?Demat\s*\)/gi, ' ')
    .replace(FORMERLY, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  let registrar: string | null = null;
  let advisor: string | null = null;
  for (let k = 0; k < 3; k++) {
    const r = RTA_TAIL.exec(s);
    if (r && r.index > 0) {
      registrar ??= /^k/i.test(r[1]) ? 'KFINTECH' : r[1].toUpperCase();
      s = s.slice(0, r.index).trim();
      continue;
    }
    const a = ADVISOR_TAIL.exec(s);
    if (a && a.index > 0) {
      advisor ??= a[1].replace(/\s+/g, '').toUpperCase();
      s = s.slice(0, a.index).trim();
      continue;
    }
    break;
  }
  return { name: s.replace(/[\s-]+$/, '').trim(), registrar, advisor };
}

/** A holder line: `Name`, or `Joint Holder 1: Name  PAN: ABCDE1234F` (label and PAN taken off). */
export function readHolder(t: string): { name: string; pan: string | null } {
  let s = t.replace(/^(?:(?:First|Second|Third|Joint)\s*Holder(?:\s*\d)?|Holder\s*\d)\s*:?\s*/i, '');
  const pan = PAN_ID.exec(s);
  if (pan) s = s.slice(0, pan.index);
  return { name: s.replace(/\s+/g, ' ').trim(), pan: pan?.[1] ?? null };
}

/** The numeric columns of a transaction table, left to right. */
export const TXN_NUMBER_COLUMNS = ['amount', 'units', 'nav', 'balance'] as const;

const TXN_LABELS: Record<string, readonly string[]> = {
  date: ['Date'],
  desc: ['Transaction', 'Description', 'Particulars'],
  amount: ['Amount'],
  units: ['Units'],
  nav: ['Price', 'NAV'],
  balance: ['Balance'],
};
const TXN_TRIGGER = /^(Date|Transaction|Description|Amount|Units|Price|NAV|Unit|Balance|Closing|\(INR\)|Particulars)$/i;

/** The transaction table's column spans. */
export interface TxnColumns {
  /** Left edge of the description column. */
  descX: number;
  numbers: Span[];
}

/** A transaction table header at line i (one to four stacked lines): its columns and height. */
export function txnHeaderAt(lines: readonly Line[], i: number): { cols: TxnColumns; lines: number } | null {
  const l = lines[i];
  // A header line holds label words only: no digits (a cheap test that passes over every data line).
  if (l.words.length > 20 || l.words.some((w) => /\d/.test(w.text)) || !l.words.some((w) => TXN_TRIGGER.test(w.text))) return null;
  const h = matchStackedHeader(lines, i, TXN_LABELS, ['amount', 'units', 'nav', 'balance', 'desc'], 4, [
    'Unit',
    'Closing',
    'Rs',
    'INR',
    'per',
    'in',
  ]);
  if (!h) return null;
  const desc = h.spans.find((s) => s.name === 'desc')!;
  return {
    cols: { descX: desc.x0, numbers: h.spans.filter((s) => (TXN_NUMBER_COLUMNS as readonly string[]).includes(s.name)) },
    lines: h.lines,
  };
}

/** A transaction under construction (continuation lines add to it). */
export interface TxnDraft {
  date: string;
  /** Description text, one entry per line (joined as wrapped text). */
  desc: string[];
  amount: number | null;
  units: number | null;
  nav: number | null;
  balance: number | null;
}

const GLUED_DATE = /^(\d{2}-[A-Za-z]{3}-\d{4})(\S+)$/;

/**
 * The words of a row with its first word split when a date is glued to what follows it
 * (`04-Feb-2023*Switch`, or a bare date twin glued to the row's own date `dd-Mmm-yyyydd-Mmm-yyyy`:
 * the row's date is the second).
 */
export function rowWords(l: Line): readonly Word[] {
  const words = splitGluedNumbers(l.words);
  const w = words[0];
  const m = w ? GLUED_DATE.exec(w.text) : null;
  if (!w || !m || DATE_TOKEN.test(w.text)) return words;
  const cw = (w.x1 - w.x0) / w.text.length;
  const cut = w.x0 + m[1].length * cw;
  if (DATE_TOKEN.test(m[2])) return [{ text: m[2], x0: cut, x1: w.x1 }, ...words.slice(1)];
  return [{ text: m[1], x0: w.x0, x1: cut }, { text: m[2], x0: cut, x1: w.x1 }, ...words.slice(1)];
}

/** Is the line's first word a date (a transaction row or a bare date line)? */
export function leadingDate(l: Line): string | null {
  const w = rowWords(l)[0];
  return w && DATE_TOKEN.test(w.text) ? parseDate(w.text) : null;
}

/**
 * Numbers at the right end of the words, by column: by distance to the header spans when known,
 * else by their order from the right (balance, nav, units, amount) as the count suggests.
 */
export function readNumbers(
  words: readonly Word[],
  cols: TxnColumns | null,
  tol: number,
): { values: Partial<Record<string, number | null>>; textEnd: number } {
  const { numbers, start } = trailingNumbers(words);
  const values: Partial<Record<string, number | null>> = {};
  if (!numbers.length) return { values, textEnd: words.length };
  if (cols && cols.numbers.length) {
    const { cells, rest } = assignNumbers(numbers, cols.numbers, tol);
    for (const [name, w] of cells) values[name] = parseNumber(w.text);
    return { values, textEnd: start + rest.length };
  }
  const order: Record<number, readonly string[]> = { 1: ['amount'], 2: ['units', 'balance'], 3: ['amount', 'units', 'balance'] };
  const take = Math.min(4, numbers.length);
  const names = order[take] ?? TXN_NUMBER_COLUMNS;
  numbers.slice(numbers.length - take).forEach((w, k) => (values[names[k]] = parseNumber(w.text)));
  return { values, textEnd: start + numbers.length - take };
}

/** A transaction row: a date first, the description, numbers at the right. */
export function readTxnLine(l: Line, cols: TxnColumns | null): TxnDraft | null {
  const all = rowWords(l);
  const date = all[0] && DATE_TOKEN.test(all[0].text) ? parseDate(all[0].text) : null;
  if (!date) return null;
  const words = all.slice(1);
  const { values, textEnd } = readNumbers(words, cols, tolerance(l));
  return {
    date,
    desc: textEnd
      ? [
          words
            .slice(0, textEnd)
            .map((w) => w.text)
            .join(' '),
        ]
      : [],
    amount: values.amount ?? null,
    units: values.units ?? null,
    nav: values.nav ?? null,
    balance: values.balance ?? null,
  };
}

/** A continuation line: more description, and numbers for the columns the record still lacks. */
export function continueTxn(d: TxnDraft, l: Line, cols: TxnColumns | null): void {
  const words = splitGluedNumbers(l.words);
  const { values, textEnd } = readNumbers(words, cols, tolerance(l));
  for (const k of TXN_NUMBER_COLUMNS) if (values[k] !== undefined && d[k] === null) d[k] = values[k] ?? null;
  if (textEnd)
    d.desc.push(
      words
        .slice(0, textEnd)
        .map((w) => w.text)
        .join(' '),
    );
}

/** How far (points) a number may sit from its column's edge. */
function tolerance(l: Line): number {
  return Math.max(14, lineSize(l) * 2.2);
}

const NUM = String.raw`(\(?-?[\d,]+(?:\.\d+)?\)?)`;
/** A currency mark before an amount: INR, Rs., the rupee sign or whatever glyph a font put there. */
const CUR = String.raw`\s*:?\s*(?:INR|Rs\.?|[^\w\s(),.-])?\s*`;
const OPENING = new RegExp(String.raw`Opening\s+Unit\s+Balance${CUR}${NUM}`, 'i');
const CLOSING = new RegExp(String.raw`Closing\s+Unit\s+Balance${CUR}${NUM}`, 'i');
const NAV_ON = new RegExp(String.raw`NAV\s+(?:on|as\s+on)\s+(\d{1,2}-[A-Za-z]{3}-\d{4})${CUR}${NUM}`, 'i');
const COST = new RegExp(String.raw`(?:Total\s+)?Cost\s+Value${CUR}${NUM}`, 'i');
const VALUE = new RegExp(String.raw`(?:Market\s+Value|Valuation)\s+on\s+(\d{1,2}-[A-Za-z]{3}-\d{4})${CUR}${NUM}`, 'i');

export function readOpening(t: string): number | null | undefined {
  const m = OPENING.exec(t);
  return m ? parseNumber(m[1]) : undefined;
}

export interface Closing {
  close?: number | null;
  nav?: number | null;
  cost?: number | null;
  value?: number | null;
}

/** The closing lines of a scheme (any of the four values; one or two lines). */
export function readClosing(t: string): Closing | null {
  const out: Closing = {};
  let m: RegExpExecArray | null;
  if ((m = CLOSING.exec(t))) out.close = parseNumber(m[1]);
  if ((m = NAV_ON.exec(t))) out.nav = parseNumber(m[2]);
  if ((m = COST.exec(t))) out.cost = parseNumber(m[1]);
  if ((m = VALUE.exec(t))) out.value = parseNumber(m[2]);
  return Object.keys(out).length ? out : null;
}

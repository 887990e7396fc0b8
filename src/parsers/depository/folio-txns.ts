/**
 * Mutual fund folio transactions printed inside depository statements (issue 31): depository_b's
 * `Mutual Funds Transaction Statement` and depository_a's `STATEMENT OF TRANSACTIONS` under
 * `MUTUAL FUND UNITS HELD WITH MF/RTA`. Each scheme's block opens with an `ISIN : ...` line (the
 * folio number on it when printed), then `Opening Balance`, dated rows (a description over one or
 * more baselines; amount, stamp duty, NAV, price, units and, in some versions, income distribution
 * and capital withdrawal by column), `Closing Balance`. A block may continue over a page break,
 * under a repeated column header or none.
 *
 * The column header has its own small vocabulary (income distribution, capital withdrawal, words
 * broken over lines with a soft hyphen), as data for the table reader's `readWordHeader`: every
 * header word names its column's role. Numbers are placed as every depository table places them
 * (`assignToColumns`: by order when a row prints one per column, else from the right by overlap).
 *
 * The self-check per block: closing units = opening + units in - units out (warning
 * `UnitsMismatch`); a block whose scheme is not among the statement's folios is reported
 * (`OrphanTransactions`), a row whose wording gives no direction is typed UNKNOWN with its units as
 * printed. Nothing is guessed.
 */
import type { Line, Word } from '../../pdf/model.js';
import { exactSum, parseDate, parseNumber, round } from '../../pdf/numbers.js';
import type { MutualFundFolio, ParsedStatement, ParseWarning, Transaction } from '../../schema/index.js';
import { folioTransaction } from '../phrasings/depository.js';
import { assignToColumns, lineSize, readWordHeader, squashText, type WordColumn, type WordVocabulary } from '../common/table/index.js';
import { shareBeforeKey, text } from './read.js';

type Role = 'date' | 'desc' | 'amount' | 'stamp' | 'nav' | 'price' | 'units' | 'income' | 'capital' | 'balance';
const NUMERIC: ReadonlySet<Role> = new Set(['amount', 'stamp', 'nav', 'price', 'units', 'income', 'capital', 'balance']);

/** The folio transaction table's header words (lower case, letters only) -> the role of their column; `null`: a unit mark. */
const FOLIO_TXN_HEADERS: WordVocabulary<Role> = {
  date: 'date',
  txn: 'date',
  transaction: 'desc',
  details: 'desc',
  description: 'desc',
  particulars: 'desc',
  amount: 'amount',
  stamp: 'stamp',
  duty: 'stamp',
  nav: 'nav',
  price: 'price',
  units: 'units',
  unit: 'units',
  income: 'income',
  distribution: 'income',
  capital: 'capital',
  withdrawal: 'capital',
  balance: 'balance',
  in: null,
  rs: null,
  inr: null,
};

export type FolioColumn = WordColumn<Role>;

/**
 * The header whose lines include lines[i], or null: it must name the date, the units and two more
 * amounts.
 */
export function readFolioHeader(lines: Line[], i: number): { columns: FolioColumn[]; next: number } | null {
  return readWordHeader(
    lines,
    i,
    FOLIO_TXN_HEADERS,
    (roles) => roles.has('date') && roles.has('units') && [...roles].filter((r) => NUMERIC.has(r)).length >= 3,
  );
}

/** One scheme's block of rows. */
export interface FolioBlock {
  isin: string;
  folio: string | null;
  /** The AMC the opening line names (`ISIN: ... - Axis Mutual Fund - Scheme Name: ...`), when it does. */
  amc: string | null;
  page: number;
  open: number | null;
  close: number | null;
  txns: Transaction[];
  /** Rows typed UNKNOWN because their wording gives no direction. */
  undirected: number;
}

const DATE_WORD = /^\d{1,2}[-/](?:\d{1,2}|[A-Za-z]{3})[-/]\d{4}$/;
const OPENER = /^ISIN\s*:\s*(IN[A-Z0-9]{9}[0-9])\b/i;
const FOLIO_ON = /Folio\s*No\.?\s*[-:]?\s*([A-Z0-9][A-Z0-9/]*)\s*$/i;
/** `ISIN: INF846K01X06 - Axis Mutual Fund - Scheme Name: ...`: the AMC between the ISIN and the scheme. */
const AMC_ON = /^ISIN\s*:\s*IN[A-Z0-9]{9}[0-9]\s*-\s*(.+?\bMutual\s+Fund)\s*-\s*Scheme\s+Name\b/i;

/** A number word of a row (not a date, not an identifier of nine digits or more). */
const amountWord = (w: string): boolean => /\d/.test(w) && !/^\d{9,}$/.test(w) && parseNumber(w) !== null;

/**
 * Reads the rows of one section: feed it every body line of the section; `blocks` holds what was
 * read. Lines it does not know (AMC and scheme name lines, a heading's second line) are left alone.
 */
export class FolioTxnReader {
  readonly blocks: FolioBlock[] = [];
  private columns: FolioColumn[] | null = null;
  private block: FolioBlock | null = null;
  /** The record being read: its key (dated) line and the lines given to it so far. */
  private key: Line | null = null;
  private rec: Line[] = [];
  /** Lines since the last key or boundary: a description may wrap above its key line as well as below. */
  private loose: Line[] = [];

  /** Feed lines[i]; returns the index of the last line read (a header may span several). */
  feed(lines: Line[], i: number): number {
    const l = lines[i];
    const t = text(l);
    const h = readFolioHeader(lines, i);
    if (h) {
      this.flush();
      this.columns = h.columns;
      return h.next - 1;
    }
    let m: RegExpExecArray | null;
    if ((m = OPENER.exec(t))) {
      this.flush();
      this.block = {
        isin: m[1].toUpperCase(),
        folio: FOLIO_ON.exec(t)?.[1] ?? null,
        amc: AMC_ON.exec(t)?.[1].replace(/\s+/g, ' ') ?? null,
        page: l.page,
        open: null,
        close: null,
        txns: [],
        undirected: 0,
      };
      this.blocks.push(this.block);
      return i;
    }
    if (!this.block) return i;
    // `Opening Balance` / `Closing Balance` with the units; the label may wrap (`Opening` / `Balance`).
    const nums = l.words.filter((w) => amountWord(w.text));
    const next = lines[i + 1];
    const wrapped = Boolean(next && next.page === l.page && next.y - l.y <= lineSize(l) * 2.4 && /^Bal(ance|\.)?$/i.test(text(next)));
    if (
      (m = /^(Opening|Closing)(?:\s+Bal(?:ance|\.)?\b|$|\s+[\d(,.-]+$)/i.exec(t)) &&
      (!/^\S+$/.test(t) || wrapped) &&
      (nums.length || wrapped)
    ) {
      this.flush();
      const v = nums.length ? parseNumber(nums[nums.length - 1].text) : null;
      if (/^Opening/i.test(m[1])) this.block.open = v;
      else this.block.close = v;
      return wrapped && !/\bBal/i.test(t) ? i + 1 : i;
    }
    if (l.words[0] && DATE_WORD.test(l.words[0].text) && parseDate(l.words[0].text) && this.columns) {
      const before = this.loose;
      this.loose = [];
      const { toPrevious, toKey } = shareBeforeKey(this.key ? this.rec[this.rec.length - 1] : null, before, l);
      if (this.key) {
        this.rec.push(...toPrevious);
        this.emit();
      }
      this.key = l;
      this.rec = [...toKey, l];
      return i;
    }
    this.loose.push(l);
    return i;
  }

  /** The end of the section. */
  end(): void {
    this.flush();
    this.block = null;
    this.columns = null;
  }

  /** A boundary (a balance row, a header, a block's opener): the lines close below the record are its own. */
  private flush(): void {
    if (this.key) {
      let last = this.rec[this.rec.length - 1];
      for (const l of this.loose) {
        if (l.page !== last.page || l.y - last.y > lineSize(last) * 2.4) break;
        this.rec.push(l);
        last = l;
      }
      this.emit();
    }
    this.loose = [];
  }

  private emit(): void {
    const key = this.key;
    const rec = this.rec;
    this.key = null;
    this.rec = [];
    if (!key || !this.block || !this.columns) return;
    const t = this.row(key, rec, this.columns);
    if (!t) return;
    this.block.txns.push(t);
    if (t.type === 'UNKNOWN') this.block.undirected++;
  }

  /** A record's transaction: the date, the description (text left of the amounts), numbers by column. */
  private row(key: Line, rec: Line[], cols: FolioColumn[]): Transaction | null {
    const date = parseDate(key.words[0].text);
    if (!date) return null;
    const numeric = cols.filter((c) => NUMERIC.has(c.role));
    const firstNum = Math.min(...numeric.map((c) => c.x0));
    const desc: string[] = [];
    const perLine: Word[][] = rec.map(() => []);
    rec.forEach((l, k) => {
      for (const w of l === key ? l.words.slice(1) : l.words) {
        if (amountWord(w.text) && w.x1 > firstNum - 2) perLine[k].push(w);
        else desc.push(w.text);
      }
    });
    // The numbers stand on one line of the record (its first or its last).
    const numLine = perLine.find((ws) => ws.length) ?? [];
    for (const ws of perLine) if (ws !== numLine) desc.push(...ws.map((w) => w.text));
    const got = assignToColumns(
      numLine,
      numeric.map((c) => ({ label: c.role, role: c.role, numeric: true, x0: c.x0, x1: c.x1 })),
    );
    const n = (r: Role): number | null => parseNumber(got.get(r));
    const description = squashText(desc.join(' '));
    const printed = n('units');
    const { type, moves } = folioTransaction(description, printed);
    const sign = moves === 'out' ? -1 : 1;
    const units = printed === null ? null : round(sign * Math.abs(printed), 4);
    const amount = n('amount');
    return {
      date,
      description,
      type,
      amount: amount === null ? null : moves === 'out' ? -Math.abs(amount) : amount,
      units,
      nav: n('nav'),
      balance: n('balance'),
      dividend_rate: null,
      additional_info: {
        credit: null,
        debit: null,
        stamp_duty: n('stamp'),
        price: n('price'),
        income_distribution: n('income'),
        capital_withdrawal: n('capital'),
        order_no: null,
      },
    };
  }
}

/** Numbers -> columns: by order when there is one per column, else each to the column it overlaps or stands nearest to. */
const UNIT_TOLERANCE = 0.0015;

/**
 * Attach the blocks to the statement's folio schemes (by ISIN and folio number, or by ISIN alone
 * when the block prints no folio and one scheme has it), set the schemes' opening and closing
 * units, and check closing = opening + units in - units out.
 */
export function attachFolioBlocks(out: ParsedStatement, blocks: FolioBlock[], warnings: ParseWarning[]): void {
  const flat = (f: string): string => f.replace(/\s+/g, '').toUpperCase();
  for (const b of blocks) {
    const candidates: { folio: MutualFundFolio; scheme: MutualFundFolio['schemes'][number] }[] = [];
    for (const folio of out.mutual_funds)
      for (const scheme of folio.schemes)
        if (scheme.isin === b.isin && (!b.folio || flat(folio.folio_number) === flat(b.folio))) candidates.push({ folio, scheme });
    // A folio printed with a suffix on one side only (`123/45` and `123`): the same folio.
    if (!candidates.length && b.folio)
      for (const folio of out.mutual_funds)
        for (const scheme of folio.schemes)
          if (scheme.isin === b.isin && flat(folio.folio_number).split('/')[0] === flat(b.folio).split('/')[0])
            candidates.push({ folio, scheme });
    const where = `${b.isin}${b.folio ? ` (folio ${b.folio})` : ''} on page ${b.page}`;
    if (candidates.length !== 1) {
      if (b.txns.length || b.open !== null)
        warnings.push({
          code: 'OrphanTransactions',
          message: candidates.length
            ? `mutual fund transactions for ${where}: ${candidates.length} folios hold this scheme and the block names none; left out`
            : `mutual fund transactions for ${where}: no such scheme among the statement's folios; left out`,
        });
      continue;
    }
    const { folio, scheme } = candidates[0];
    // A folio table that prints no AMC sub-headings: the AMC its transactions' block names.
    if (!folio.amc && b.amc) folio.amc = b.amc;
    scheme.transactions.push(...b.txns);
    const moved = exactSum(
      b.txns.map((t) => t.units ?? 0),
      4,
    );
    const open = b.open ?? scheme.additional_info.open_units ?? null;
    const close = b.close ?? scheme.units;
    if (open !== null) scheme.additional_info.open_units = open;
    scheme.additional_info.close_units = close;
    const problems: string[] = [];
    if (b.undirected) problems.push(`${b.undirected} row(s) whose wording gives no direction (typed UNKNOWN, units as printed)`);
    if (open !== null && Math.abs(round(open + moved, 4) - close) > UNIT_TOLERANCE)
      problems.push(`opening ${open} + movements ${moved} is ${round(open + moved, 4)}, the closing balance is ${close}`);
    // The folio table may print the units to fewer decimals (`13,857.74` for 13,857.743).
    const places = Math.min(3, (String(scheme.units).split('.')[1] ?? '').length);
    if (b.close !== null && Math.abs(b.close - scheme.units) > Math.max(UNIT_TOLERANCE, places < 3 ? 10 ** -places : 0))
      problems.push(`the closing balance ${b.close} differs from the ${scheme.units} units the folio table holds`);
    if (problems.length) warnings.push({ code: 'UnitsMismatch', message: `mutual fund scheme ${where}: ${problems.join('; ')}` });
  }
}

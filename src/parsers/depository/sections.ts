/**
 * Table sections both depository statements print (holdings, folios, transactions, NPS funds,
 * insurance policies), read record by record: a header (1-4 stacked lines) sets the columns, a
 * key (ISIN, date, tier, policy number) opens a record, lines below continue it, totals and
 * headings close it. Each reader turns a record into a schema object; pure.
 */
import type { Line, Word } from '../../pdf/model.js';
import { parseDate, parseNumber } from '../../pdf/numbers.js';
import type {
  DematAccount,
  Holding,
  LifeInsurancePolicy,
  LinkedHolder,
  MutualFundFolio,
  NpsAccount,
  ParsedStatement,
  Transaction,
} from '../../schema/index.js';
import { lineSize, readGrid, textColumn, type Grid } from '../common/table/index.js';
import { DEPOSITORY_HEADERS } from './vocabulary.js';
import { FULL_ISIN, isinWord, isTableHeading, num, recordFields, shareBeforeKey, text, TOTAL_ROW, type RecFields } from './read.js';
import { dematTransaction, emptyHoldings, rowOpening, schemeFromFolioRow } from './shared.js';

export type Key = 'isin' | 'date' | 'tier' | 'policy';

/** One table being read: its columns and the record under construction. */
export class Table {
  grid: Grid | null = null;
  /** The record being read: the lines up to and including its key line, and the lines after it. */
  private rec: { key: Line; lines: Line[] } | null = null;
  /** Lines after the last key (or before the first): they go to the record above or below. */
  private pending: Line[] = [];
  /** Pages where rows of this section stood with no column header to read them by. */
  readonly missed = new Set<number>();
  constructor(
    readonly key: Key,
    private readonly emit: (f: RecFields, lines: Line[], key: Line) => void,
    /** The section's name in warnings (a table without one reports nothing). */
    readonly section?: string,
  ) {}

  /** A line that would open a record, were the columns known. */
  private looksLikeRecord(l: Line): boolean {
    if (this.key === 'isin') return l.words.some((w) => FULL_ISIN.test(w.text)) && l.words.some((w) => /\d[.,]\d/.test(w.text));
    if (this.key === 'date') return l.words.some(isDate) && l.words.some((w) => /\d[.,]\d/.test(w.text));
    if (this.key === 'tier') return /^tier\b/i.test(l.words[0]?.text ?? '');
    return false;
  }

  /** A header at lines[i]? Then the columns change and the index after it is returned. */
  header(lines: Line[], i: number): number | null {
    const g = readGrid(lines, i, DEPOSITORY_HEADERS);
    if (!g || !this.fits(g)) return null;
    this.flush();
    this.grid = g;
    return g.next;
  }

  private fits(g: Grid): boolean {
    const roles = new Set(g.columns.map((c) => c.role));
    if (this.key === 'isin') return roles.has('isin');
    if (this.key === 'date') return roles.has('date');
    if (this.key === 'tier') return roles.has('tier');
    return roles.has('policy');
  }

  isKey(l: Line): boolean {
    const g = this.grid!;
    const first = l.words[0];
    if (!first) return false;
    switch (this.key) {
      case 'isin': {
        const w = isinWord(l, g);
        return Boolean(w && (FULL_ISIN.test(w.text) || w.text.length >= 6));
      }
      case 'date':
        return dateWord(l, g) !== undefined;
      case 'tier':
        return textColumn(first, g.columns)?.role === 'tier' && /^(tier|i{1,2}|1|2)$/i.test(first.text);
      default:
        return textColumn(first, g.columns)?.role === 'policy' && Math.abs(first.x0 - g.columns[0].x0) < 12;
    }
  }

  /**
   * Feed a body line; true when the table took it. Lines between two keys are shared out at the
   * widest vertical gap among them: a record's name may wrap above its key line as well as below.
   * A heading, a total or a foreign line closes the record.
   */
  feed(l: Line): boolean {
    if (!this.grid) {
      if (this.section && this.looksLikeRecord(l)) this.missed.add(l.page);
      return false;
    }
    const t = text(l);
    if (TOTAL_ROW.test(t) || /^(opening|closing) balance\b/i.test(t)) {
      this.flush();
      return true;
    }
    if (this.isKey(l)) {
      const before = this.pending;
      this.pending = [];
      const { toPrevious, toKey } = shareBeforeKey(this.rec ? this.rec.lines[this.rec.lines.length - 1] : null, before, l);
      if (this.rec) {
        this.rec.lines.push(...toPrevious);
        this.flush();
      }
      this.rec = { key: l, lines: [...toKey, l] };
      return true;
    }
    if (isTableHeading(l, this.grid)) {
      this.flush();
      return false;
    }
    const last = this.pending[this.pending.length - 1] ?? this.rec?.lines[this.rec.lines.length - 1];
    if (!last || (l.page === last.page && l.y - last.y <= lineSize(l) * 2.4) || (!this.rec && l.page === last.page)) {
      this.pending.push(l);
      return true;
    }
    this.flush();
    this.pending.push(l);
    return true;
  }

  flush(): void {
    if (this.rec && this.grid) {
      const lines = [...this.rec.lines];
      let last = lines[lines.length - 1];
      for (const l of this.pending) {
        if (l.page !== last.page || l.y - last.y > lineSize(l) * 2.4) break;
        lines.push(l);
        last = l;
      }
      this.emit(recordFields({ lines, key: this.rec.key }, this.grid), lines, this.rec.key);
    }
    this.rec = null;
    this.pending = [];
  }

  /** Close the table (end of its section). */
  end(): void {
    this.flush();
    this.grid = null;
  }
}

const isDate = (w: Word | undefined): boolean => Boolean(w && /\d{4}$/.test(w.text) && parseDate(w.text) !== null);

/**
 * The date of a transaction row: its first word, or (a table whose date column is not the first,
 * depository_a's `ISIN | Security | Date | ...`) a date under the date column.
 */
export function dateWord(l: Line, g: Grid): Word | undefined {
  if (isDate(l.words[0])) return l.words[0];
  if (g.columns[0]?.role === 'date') return undefined;
  return l.words.find((w) => isDate(w) && textColumn(w, g.columns)?.role === 'date');
}

/** A warning per section whose rows could not be read (no column header found above them): the rest still parses. */
export function unreadSections(tables: Table[], warnings: { code: string; message: string }[]): void {
  for (const t of tables) {
    if (!t.section || !t.missed.size) continue;
    const pages = [...t.missed];
    warnings.push({
      code: 'SectionUnread',
      message: `${t.section} on page${pages.length > 1 ? 's' : ''} ${pages.join(', ')}: rows found but no column header to read them by; left out`,
    });
  }
}

export function holdingOf(f: RecFields): Holding {
  const units = num(f, 'units') ?? 0;
  return {
    isin: f.isin,
    name: f.text.name ?? '',
    units,
    value: num(f, 'value') ?? 0,
    transactions: [],
    additional_info: { open_units: units, close_units: units },
  };
}

export function transactionOf(f: RecFields, key: Line): Transaction | null {
  const date = (isDate(key.words[0]) ? parseDate(key.words[0].text) : null) ?? parseDate((f.text.date ?? '').split(' ')[0]);
  if (!date) return null;
  // An order number is one word with digits: words beside it under the order column's header (a
  // description drawn left of its centred header) belong to the description, on their side of it.
  const words = (f.text.order ?? '').split(' ').filter(Boolean);
  const k = words.findIndex((w) => /\d/.test(w));
  const order = k >= 0 ? words[k] : words.join(' ') || null;
  const spill = (part: string[]): string => (k >= 0 ? part.join(' ') : '');
  // depository_b's `Transactions` tab: `Instruction Details` (`Issuer Instruction (Corporate Action)`) follow the description.
  const main = [spill(words.slice(k + 1)), f.text.desc ?? f.text.name ?? '', spill(words.slice(0, Math.max(k, 0)))]
    .filter(Boolean)
    .join(' ');
  const desc = [main, f.text.instruction ?? ''].filter(Boolean).join(' - ');
  const t = dematTransaction(date, desc, order, num(f, 'credit'), num(f, 'debit'), num(f, 'balance'));
  const open = num(f, 'open');
  if (open !== null) rowOpening.set(t, open);
  return t;
}

export function npsFundOf(f: RecFields): NpsAccount['funds'][number] {
  const tier = /\bII\b|\b2\b/.test(f.text.tier ?? '') ? 2 : 1;
  return {
    name: f.text.name ?? '',
    units: num(f, 'units') ?? 0,
    nav: num(f, 'nav') ?? 0,
    value: num(f, 'value') ?? 0,
    cost: null,
    additional_info: { tier, manager: f.text.manager ?? '' },
  };
}

export function policyOf(f: RecFields): LifeInsurancePolicy {
  return {
    policy_number: f.text.policy ?? '',
    provider: f.text.insurer ?? '',
    policy_name: f.text.plan ?? '',
    life_assured: f.text.assured ?? '',
    status: f.text.status ?? '',
    premium_frequency: f.text.frequency ?? '',
    sum_assured: num(f, 'sum') ?? 0,
    premium_amount: num(f, 'premium') ?? 0,
    additional_info: {},
  };
}

/** A folio scheme row: units, NAV, cost and value by column (gain from value and cost). */
export function folioSchemeOf(f: RecFields): ReturnType<typeof schemeFromFolioRow> {
  return schemeFromFolioRow(
    f.isin,
    f.text.name ?? '',
    num(f, 'units') ?? 0,
    num(f, 'nav'),
    num(f, 'value') ?? 0,
    num(f, 'cost'),
    null,
    false,
    /^ARN-?\d+$/i.test((f.text.arn ?? '').replace(/\s+/g, '')) ? f.text.arn!.replace(/\s+/g, '') : null,
  );
}

/** The last amount on a line (summary values, `Portfolio Value`, totals). */
export function lastAmount(l: Line): number | null {
  for (let k = l.words.length - 1; k >= 0; k--) {
    const v = l.words[k].text.replace(/^[`₹]|^Rs\.?|^INR/, '');
    if (/\d/.test(v) && !/^\d{9,}$/.test(v) && parseNumber(v) !== null) return parseNumber(v);
  }
  return null;
}

// ------------------------------------------------------------------ section dispatch

/**
 * One body line of a table section: `pre` may take it first (the section's own label lines), then
 * a header sets the table's columns, then `mid` may take it (a heading inside the table), then the
 * table is fed with it and `rest` gets what the table did not take. Returns the index of the last
 * line read (a header may span several).
 */
export function tableLine(
  table: Table,
  lines: Line[],
  i: number,
  hooks: { pre?: (t: string) => boolean; mid?: (t: string) => boolean; rest?: (t: string) => void } = {},
): number {
  const t = text(lines[i]);
  if (hooks.pre?.(t)) return i;
  const next = table.header(lines, i);
  if (next !== null) return next - 1;
  if (hooks.mid?.(t)) return i;
  if (!table.feed(lines[i])) hooks.rest?.(t);
  return i;
}

/** A section heading and what opening its section does. */
export type Heading = readonly [RegExp, () => void];

/** The first heading the line is: the open tables are closed and its section opened (true). */
export function openSection(t: string, headings: readonly Heading[], endTables: () => void): boolean {
  const h = headings.find(([re]) => re.test(t));
  if (!h) return false;
  endTables();
  h[1]();
  return true;
}

/** A new NPS account, added to the statement. */
export function addNps(out: ParsedStatement): NpsAccount {
  const nps: NpsAccount = { pran: '', cra: '', value: 0, funds: [], linked_holders: [], additional_info: {} };
  out.nps.push(nps);
  return nps;
}

/**
 * The NPS section's own lines: `PRAN : ... CRA : ...` and the subscriber (`SUBSCRIBER : name PAN :
 * pan`); `holders` reads a subscriber line of another form (true: the line was taken).
 */
function npsLine(nps: NpsAccount, t: string, holders?: (t: string) => LinkedHolder[]): boolean {
  let m: RegExpExecArray | null;
  if ((m = /^PRAN\s*:\s*(\d+)\s+CRA\s*:\s*(.+)$/i.exec(t))) {
    nps.pran = m[1];
    nps.cra = m[2].trim();
    return true;
  }
  if (holders && !/^Subscriber/i.test(t)) return false;
  if ((m = /^SUBSCRIBER\s*:\s*(.+?)\s+PAN\s*:\s*(\S+)/i.exec(t))) nps.linked_holders.push({ name: m[1].trim(), pan: m[2] });
  else if (holders) nps.linked_holders.push(...holders(t));
  else return false;
  return true;
}

/** A line of the NPS section (`nps`: its account, once its heading was read): the section's labels, then the fund table. */
export function npsSection(
  nps: NpsAccount | undefined,
  table: Table,
  lines: Line[],
  i: number,
  holders?: (t: string) => LinkedHolder[],
): number {
  return nps ? tableLine(table, lines, i, { pre: (t) => npsLine(nps, t, holders) }) : i;
}

/** The folio of an AMC with this number, added to the statement when new. */
export function folioOf(out: ParsedStatement, folioNo: string, amc: string, registrar: string | null): MutualFundFolio {
  let folio = out.mutual_funds.find((f) => f.folio_number === folioNo && f.amc === amc);
  if (!folio) {
    folio = {
      folio_number: folioNo,
      amc,
      registrar,
      value: 0,
      linked_holders: [],
      schemes: [],
      additional_info: { pan: null, pankyc: null, kyc: null },
    };
    out.mutual_funds.push(folio);
  }
  return folio;
}

/** A demat account (no holdings yet): depository_a's (CDSL) accounts have a BO id of DP id + client id. */
export function dematAccount(
  cdsl: boolean,
  dpId: string,
  dpName: string,
  clientId: string,
  holders: LinkedHolder[],
  info: DematAccount['additional_info'],
): DematAccount {
  return {
    demat_type: cdsl ? 'DEPOSITORY_A' : 'DEPOSITORY_B',
    dp_id: dpId,
    dp_name: dpName,
    client_id: clientId,
    bo_id: cdsl ? `${dpId}${clientId}` : null,
    value: 0,
    linked_holders: holders,
    holdings: emptyHoldings(),
    additional_info: info,
  };
}

/**
 * `Consolidated Account Summary`: one row per scheme, no transactions. Pure.
 *
 * A row is found by what it holds: a folio number first, then (in some templates) the ISIN, the
 * scheme cell (`CODE-Scheme name` in real files), the cost and unit balance, the NAV date, the NAV
 * and the market value, and the registrar. A scheme name may wrap over several lines, with the
 * numbers on its first or last line.
 */
import { DocumentError } from '../../errors.js';
import type { Line, PdfDocument, Word } from '../../pdf/model.js';
import { allLines } from '../../pdf/model.js';
import { DATE_TOKEN, exactSum, isNumber, parseDate, parseNumber, round } from '../../pdf/numbers.js';
import type { MutualFundFolio, ParsedStatement, ParseWarning, Scheme } from '../../schema/index.js';
import { emptyStatement, noPeriod, schemeType, type ParseResult } from '../common.js';
import { readInvestorBlock, withInvestorFields } from '../common/investor.js';
import { joinWrapped, lineSize, matchStackedHeader, mergeSplitRows, squash, wordsText } from '../common/table/index.js';
import { cleanSchemeName, INVESTOR_STOP, isAmcHeading, SCHEME_CODE } from './sections.js';

/** A folio number, alone or with its `/NN` suffix in the same word (`91014545032/0`). */
const FOLIO_WORD = /^\d{5,}(?:\/\d{1,3})?$/;
const ISIN_WORD = /^IN[A-Z0-9]{9}[0-9]$/;
const RTA_WORD = /^(CAMS|KFINTECH|KFIN|KARVY)$/i;
const FURNITURE = /^Page\s*\d+(\s*(of|\/)\s*\d+)?$/i;

interface Row {
  folio: string;
  amc: string;
  isin: string | null;
  /** Scheme cell text, one entry per line with its baseline (joined top to bottom as wrapped text). */
  name: { y: number; text: string }[];
  cost: number | null;
  units: number | null;
  nav: number | null;
  value: number | null;
  registrar: string | null;
  /** The row's first and last lines (name fragments must sit right above or under them). */
  first: Line;
  last: Line;
}

/** A line of scheme-name text alone (the wrapped part of a scheme cell). */
interface Fragment {
  line: Line;
  text: string;
}
type Item = Row | Fragment | 'barrier';

const isRow = (x: Item): x is Row => typeof x === 'object' && 'folio' in x;
/** A scheme cell's first line: the RTA code and a hyphen (`B92Z-...`). */
const CODE_START = /^[A-Z0-9]{2,12}(?: [A-Z0-9]{1,10})?\s*-\s*\S/;

/**
 * Gives each run of name fragments to the row above it, the row below it, or splits it between
 * them. A wrapped scheme cell prints its name over several lines and its folio and numbers on the
 * first, the middle or the last of them, so fragments may sit above their row's numbers as well as
 * under them. Content decides first: a fragment opening with an RTA code starts the next row's name,
 * and nothing precedes a name that opens with one. Otherwise the table's own habit, learned from the
 * runs that have a row on one side only (after a heading, before a total): fragments only ever under
 * a row (top-aligned cells) go to the row above; only ever over one (bottom-aligned), to the row
 * below; both (centred cells), split so that each row has as many lines below its numbers as above.
 * A fragment more than about two lines from the row it would join, or on another page, joins nothing.
 */
function placeFragments(items: readonly Item[]): void {
  interface Run {
    run: Fragment[];
    above: Row | null;
    below: Row | null;
  }
  const runs: Run[] = [];
  for (let i = 0; i < items.length;) {
    if (isRow(items[i]) || items[i] === 'barrier') {
      i++;
      continue;
    }
    const start = i;
    while (i < items.length && !isRow(items[i]) && items[i] !== 'barrier') i++;
    runs.push({
      run: items.slice(start, i) as Fragment[],
      above: start > 0 && isRow(items[start - 1]) ? (items[start - 1] as Row) : null,
      below: i < items.length && isRow(items[i]) ? (items[i] as Row) : null,
    });
  }
  const near = (a: Line, b: Line): boolean => a.page === b.page && Math.abs(b.y - a.y) <= lineSize(a) * 2.6;
  let over = false;
  let under = false;
  const bare = (r: Row | null): boolean => !!r && !r.name.some((n) => n.text && n.y === r.first.y);
  for (const r of runs) {
    if (r.below && !r.above && near(r.run[r.run.length - 1].line, r.below.first)) over = true;
    if (r.above && !r.below && near(r.above.last, r.run[0].line)) under = true;
    // A row with no name text beside its folio has its name above and below it (centred cells).
    if (bare(r.above) || bare(r.below)) over = under = true;
  }
  /** Fragments given to a row from above it (centred cells balance them below). */
  const overCount = new Map<Row, number>();
  for (const { run, above, below } of runs) {
    const ys = run.map((f) => f.line.y);
    // How many of the run (from its top) chain down from the row above, and (from its bottom) up to the row below.
    let downTo = 0;
    if (above) for (let prev = above.last; downTo < run.length && near(prev, run[downTo].line); prev = run[downTo++].line);
    let upFrom = run.length;
    if (below) for (let next = below.first; upFrom > 0 && near(run[upFrom - 1].line, next); next = run[--upFrom].line);
    let split: number;
    const code = run.findIndex((f) => CODE_START.test(f.text));
    const belowOpens = !!below && below.name.some((n) => CODE_START.test(n.text));
    if (code >= 0) split = code;
    else if (belowOpens || !below) split = run.length;
    else if (!above) split = 0;
    else if (over && under) split = Math.max(0, (overCount.get(above) ?? 0) - above.name.filter((n) => n.y > above.first.y + 0.5).length);
    else split = over ? 0 : run.length;
    for (let k = 0; k < Math.min(split, downTo); k++) above?.name.push({ y: ys[k], text: run[k].text });
    const from = Math.max(split, upFrom);
    for (let k = from; k < run.length; k++) below?.name.push({ y: ys[k], text: run[k].text });
    if (below) overCount.set(below, run.length - from);
  }
}

/** The summary table's header (one to four stacked lines): whether it has a cost column, and where scheme names start. */
function headerAt(lines: readonly Line[], i: number): { hasCost: boolean; nameX: number; lines: number } | null {
  const l = lines[i];
  if (
    l.words.length > 24 ||
    l.words.some((w) => /\d/.test(w.text)) ||
    !l.words.some((w) => /^(Folio|Scheme|ISIN|Cost|NAV|Market|Registrar|Balance|Unit)$/i.test(w.text))
  )
    return null;
  const h = matchStackedHeader(
    lines,
    i,
    { folio: ['Folio'], scheme: ['Scheme'], cost: ['Cost'], value: ['Market', 'Valuation'] },
    ['folio', 'scheme', 'value'],
    4,
    ['No', 'ISIN', 'Name', 'Value', 'Unit', 'Units', 'Balance', 'Closing', 'NAV', 'Date', 'Price', 'Registrar', 'RTA'],
  );
  if (!h) return null;
  return { hasCost: h.spans.some((s) => s.name === 'cost'), nameX: h.spans.find((s) => s.name === 'scheme')!.x0, lines: h.lines };
}

/** The numeric part of a row line: [cost,] units, NAV date, NAV, value (registrar after). Returns where the name words end. */
function readValues(words: readonly Word[], from: number, hasCost: boolean, row: Row): number {
  let end = words.length;
  if (end > from && RTA_WORD.test(words[end - 1].text)) {
    row.registrar = words[end - 1].text.toUpperCase();
    end--;
  }
  let d = -1;
  for (let k = end - 1; k >= from; k--) {
    if (DATE_TOKEN.test(words[k].text)) {
      d = k;
      break;
    }
    if (!isNumber(words[k].text)) break;
  }
  if (d < 0) return end;
  const after = words.slice(d + 1, end).map((w) => parseNumber(w.text));
  if (after.length >= 2) {
    row.nav = after[after.length - 2];
    row.value = after[after.length - 1];
  } else if (after.length === 1) row.value = after[0];
  let k = d;
  const before: number[] = [];
  while (k > from && isNumber(words[k - 1].text) && before.length < (hasCost ? 2 : 1)) before.unshift(parseNumber(words[--k].text)!);
  if (before.length === 2) [row.cost, row.units] = before;
  else if (before.length === 1) row.units = before[0];
  return k;
}

export function parseSummaryForm(doc: PdfDocument): ParseResult<ParsedStatement> {
  const warnings: ParseWarning[] = [];
  const lines = mergeSplitRows(allLines(doc).filter((l) => !FURNITURE.test(squash(l))));
  let start = 0;
  let asOn: string | null = null;
  for (let i = 0; i < Math.min(lines.length, 40); i++) {
    const m = /As\s+On\s+(\d{1,2}-[A-Za-z]{3}-\d{4})/i.exec(squash(lines[i]));
    if (m) {
      asOn = parseDate(m[1]);
      start = i + 1;
      break;
    }
  }
  if (!asOn) throw noPeriod('"As On <dd-Mon-yyyy>"', 'registrar summary');
  const out = emptyStatement('REGISTRAR_A_REGISTRAR_B', { from: null, to: asOn });
  const inv = readInvestorBlock(lines, { start, stop: INVESTOR_STOP });
  out.investor = withInvestorFields(out.investor, inv.fields);

  let hasCost = true;
  let nameX: number | null = null;
  let seenHeader = false;
  let amc = '';
  const rows: Row[] = [];
  /** Rows, name fragments and barriers (header, total, AMC heading) in reading order. */
  const items: Item[] = [];
  let row: Row | null = null;
  /** Where the cells before the scheme cell (folio, ISIN) end, learned from every row first. */
  let prefixEnd: number | null = null;
  const nameStarts: number[] = [];
  for (const l of lines) {
    const w = l.words;
    if (!w.length || !FOLIO_WORD.test(w[0].text)) continue;
    let k = 1;
    if (w[1] && /^\/\s?\d*$/.test(w[1].text)) k = /\d/.test(w[1].text) ? 2 : 3;
    if (w[k] && ISIN_WORD.test(w[k].text)) k++;
    if (w[k - 1]) prefixEnd = Math.max(prefixEnd ?? 0, w[k - 1].x1);
    if (w[k] && !isNumber(w[k].text) && !DATE_TOKEN.test(w[k].text)) nameStarts.push(w[k].x0);
  }
  /** The scheme cells' left edge, where wrapped name lines start too (from rows that print a name beside their folio). */
  const nameLeft = nameStarts.length ? [...nameStarts].sort((p, q) => p - q)[Math.floor(nameStarts.length / 2)] : null;
  for (let i = inv.end; i < lines.length; i++) {
    const line = lines[i];
    const h = headerAt(lines, i);
    if (h) {
      hasCost = h.hasCost;
      nameX = h.nameX;
      seenHeader = true;
      i += h.lines - 1;
      row = null;
      items.push('barrier');
      continue;
    }
    const t = squash(line);
    if (/^(Grand\s+|Sub\s+)?Total\b/i.test(t) || isAmcHeading(t)) {
      if (isAmcHeading(t)) amc = t;
      row = null;
      items.push('barrier');
      continue;
    }
    const w = line.words;
    if (w.length && FOLIO_WORD.test(w[0].text)) {
      // Folio number, with a `/ NN` suffix when printed.
      let k = 1;
      let folio = w[0].text;
      if (!w[0].text.includes('/') && w[1]?.text === '/' && /^\d+$/.test(w[2]?.text ?? '')) {
        folio = `${folio} / ${w[2].text}`;
        k = 3;
      } else if (!w[0].text.includes('/') && /^\/\s?\d+$/.test(w[1]?.text ?? '')) {
        folio = `${folio} ${w[1].text}`;
        k = 2;
      }
      let isin: string | null = null;
      if (w[k] && ISIN_WORD.test(w[k].text)) isin = w[k++].text;
      row = { folio, amc, isin, name: [], cost: null, units: null, nav: null, value: null, registrar: null, first: line, last: line };
      rows.push(row);
      items.push(row);
      const end = readValues(w, k, hasCost, row);
      if (end > k) row.name.push({ y: line.y, text: wordsText(w.slice(k, end)) });
      continue;
    }
    if (!seenHeader || !w.length) continue;
    // Anything else must start in the scheme column: right of the folio (and ISIN) cells.
    const size = lineSize(line);
    const inColumn =
      nameLeft !== null
        ? Math.abs(w[0].x0 - nameLeft) <= size * 2
        : (nameX !== null && w[0].x0 >= nameX - size * 2) || (prefixEnd !== null && w[0].x0 > prefixEnd + size * 0.5);
    if (!inColumn && !isNumber(w[0].text)) continue;
    // A line holding values (numbers printed on a wrapped row's last line) continues the row above it.
    const probe: Row = { ...(row ?? rows[0] ?? ({} as Row)), cost: null, units: null, nav: null, value: null, registrar: null };
    const end = readValues(w, 0, hasCost, probe);
    const hasValues = [probe.cost, probe.units, probe.nav, probe.value].some((v) => v !== null) || end === 0;
    if (end < w.length && hasValues) {
      // Name lines between the row and this line are the row's (the numbers close its cell).
      const tail: Fragment[] = [];
      for (let k = items.length - 1; k >= 0 && !isRow(items[k]) && items[k] !== 'barrier'; k--) tail.unshift(items[k] as Fragment);
      const prev = tail.length ? tail[tail.length - 1].line : row?.last;
      if (!row || !prev || items[items.length - 1 - tail.length] !== row || line.page !== prev.page || line.y - prev.y > size * 2.6)
        continue;
      items.length -= tail.length;
      for (const f of tail) row.name.push({ y: f.line.y, text: f.text });
      readValues(w, 0, hasCost, row);
      row.name.push({ y: line.y, text: wordsText(w.slice(0, end)) });
      row.last = line;
      continue;
    }
    // A line of scheme-name text only (no folio, ISIN or numbers of its own): placed below.
    items.push({ line, text: wordsText(w) });
  }
  placeFragments(items);

  const folios: MutualFundFolio[] = [];
  const byKey = new Map<string, MutualFundFolio>();
  let missingIsin = 0;
  for (const r of rows) {
    // A lone `#` marker some templates print after the scheme text is not part of the name.
    let text = joinWrapped(
      [...r.name]
        .sort((p, q) => p.y - q.y)
        .map(({ text: t }) => t.replace(/(^|\s)#(?=\s|$)/g, ' ').trim())
        .filter(Boolean),
    );
    const code = SCHEME_CODE.exec(text);
    if (code) text = code[2];
    const clean = cleanSchemeName(text);
    const name = clean.name;
    r.registrar ??= clean.registrar;
    let current = byKey.get(`${r.amc}|${r.folio}`);
    if (!current) {
      current = {
        folio_number: r.folio,
        amc: r.amc,
        registrar: r.registrar,
        value: 0,
        linked_holders: [],
        schemes: [],
        additional_info: { pan: null, pankyc: null, kyc: null },
      };
      byKey.set(`${r.amc}|${r.folio}`, current);
      folios.push(current);
    }
    const units = r.units ?? 0;
    const value = r.value ?? 0;
    const abs = r.cost === null ? null : round(value - r.cost, 2);
    if (!r.isin) missingIsin++;
    const s: Scheme = {
      isin: r.isin,
      name,
      type: schemeType(name),
      units,
      nav: r.nav,
      value,
      cost: r.cost,
      gain: { absolute: abs, percentage: abs !== null && r.cost ? round((abs / r.cost) * 100, 2) : null },
      transactions: [],
      nominees: [],
      additional_info: {
        advisor: clean.advisor,
        rta_code: code ? code[1] : null,
        amfi: null,
        is_demat: false,
        open_units: null,
        close_units: units,
      },
    };
    if (s.nav !== null && Math.abs(s.units * s.nav - s.value) > Math.max(1, s.value * 0.001)) {
      warnings.push({
        code: 'ValueMismatch',
        message: `folio ${r.folio}, scheme '${name}': ${s.units} units x NAV ${s.nav} != value ${s.value}`,
      });
    }
    current.schemes.push(s);
  }
  if (!folios.length) {
    throw new DocumentError(
      'UnsupportedDocument',
      `no folio rows found in the summary table of this statement (expected rows starting with a folio number under a "Folio No. ... Scheme Name ... Market Value" header; ${doc.pages.length} pages)`,
    );
  }
  if (missingIsin)
    warnings.push({
      code: 'MissingIsin',
      message: `no ISIN printed for ${missingIsin} scheme${missingIsin > 1 ? 's' : ''} (the summary table has no ISIN column): isin is null there`,
    });
  for (const f of folios)
    f.value = exactSum(
      f.schemes.map((s) => s.value),
      2,
    );
  out.mutual_funds = folios;
  const total = exactSum(
    folios.map((f) => f.value),
    2,
  );
  out.summary.total_value = total;
  out.summary.accounts.mutual_funds = { count: folios.length, total_value: total };
  return { data: out, warnings };
}

/**
 * Registrar statement parser (registrar_a / registrar_b, detailed and summary forms).
 * Pure: extracted document in, Parsed statement and self-check warnings out.
 */
import { DocumentError } from '../../errors.js';
import type { Line, PdfDocument } from '../../pdf/model.js';
import { allLines } from '../../pdf/model.js';
import { matchHeader, splitCells, joinWrapped, type Column } from '../../pdf/table.js';
import { exactSum, isNumber, parseDate, parseNumber, round, DATE_TOKEN } from '../../pdf/numbers.js';
import type { MutualFundFolio, ParsedStatement, ParseWarning, Scheme, Transaction } from '../../schema/index.js';
import { classifyTransaction, dividendRate, emptyStatement, schemeType, type ParseResult } from '../common.js';
import { parseSummaryForm } from './summary.js';
import { parseInvestorBlock } from './investor.js';

const FOLIO_RE = /Folio\s*No\.?\s*:\s*(.+?)(?:\s+PAN\s*:\s*([A-Z]{5}[0-9]{4}[A-Z])?)?(?:\s+KYC\s*:\s*(\S+))?(?:\s+PAN\s*:\s*(\S+))?\s*$/i;
const OPENING_RE = /Opening\s+Unit\s+Balance\s*:?\s*(\(?-?[\d,]+\.?\d*\)?)/i;
const CLOSING_RE = /Closing\s+Unit\s+Balance\s*:?\s*(\(?-?[\d,]+\.?\d*\)?)/i;
const NAV_RE = /NAV\s+on\s+(\d{1,2}-[A-Za-z]{3}-\d{4})\s*:?\s*(?:INR|Rs\.?|₹)?\s*([\d,]+\.?\d*)/i;
const COST_RE = /(?:Total\s+)?Cost\s+Value\s*:?\s*(?:INR|Rs\.?|₹)?\s*(\(?-?[\d,]+\.?\d*\)?)/i;
const VALUE_RE = /(?:Market\s+Value|Valuation)\s+on\s+(\d{1,2}-[A-Za-z]{3}-\d{4})\s*:?\s*(?:INR|Rs\.?|₹)?\s*(\(?-?[\d,]+\.?\d*\)?)/i;
const SCHEME_START_RE = /^[A-Z0-9]{2,12}\s*-\s*\S/;
const AMC_RE = /^[A-Za-z0-9&.' ()-]+Mutual\s+Fund$/i;

const TXN_COLUMNS = (price: string, balance: string) => [
  { name: 'date', label: 'Date', align: 'left' as const },
  { name: 'desc', label: 'Transaction', align: 'left' as const },
  { name: 'amount', label: 'Amount', align: 'right' as const },
  { name: 'units', label: 'Units', align: 'right' as const },
  { name: 'nav', label: price, align: 'right' as const },
  { name: 'balance', label: balance, align: 'right' as const },
];

function findTxnHeader(line: Line): Column[] | null {
  for (const price of ['NAV', 'Price']) {
    for (const bal of ['Unit Balance', 'Unit']) {
      const cols = matchHeader(line, TXN_COLUMNS(price, bal));
      if (cols) return cols;
    }
  }
  return null;
}

interface SchemeDraft {
  block: string[];
  scheme?: Scheme;
  open: number | null;
  nav: number | null;
  cost: number | null;
  value: number | null;
  close: number | null;
}

interface FolioDraft {
  folio: MutualFundFolio;
  holders: string[];
}

/** Learn numeric column right edges from full rows when no header was printed anywhere. */
function learnColumns(lines: Line[]): Column[] | null {
  const edges: number[][] = [[], [], [], []];
  for (const l of lines) {
    if (!l.pieces.length || !DATE_TOKEN.test(l.pieces[0].text)) continue;
    const nums = l.pieces.filter((p) => isNumber(p.text));
    if (nums.length !== 4) continue;
    nums.forEach((p, i) => edges[i].push(p.x1));
  }
  if (!edges[0].length) return null;
  const med = (a: number[]): number => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const names = ['amount', 'units', 'nav', 'balance'];
  const firstDesc = lines.find((l) => l.pieces.length > 1 && DATE_TOKEN.test(l.pieces[0].text))?.pieces[1].x0 ?? 80;
  return [
    { name: 'date', x0: 0, x1: firstDesc - 5, align: 'left' },
    { name: 'desc', x0: firstDesc, x1: firstDesc + 100, align: 'left' },
    ...names.map((n, i) => ({ name: n, x0: med(edges[i]) - 40, x1: med(edges[i]), align: 'right' as const })),
  ];
}

function parseSchemeBlock(block: string[], folioHolders: string[], warnings: ParseWarning[]): { scheme: Scheme; holders: string[] } {
  const holders: string[] = [];
  const nominees: string[] = [];
  let registrar: string | null = null;
  const text: string[] = [];
  let started = false;
  for (const raw of block) {
    const t = raw.trim();
    if (/^Nominee\s*\d\s*:/i.test(t)) {
      for (const part of t.split(/Nominee\s*\d\s*:/i)) if (part.trim()) nominees.push(part.trim());
      continue;
    }
    const reg = /^Registrar\s*:\s*(\S+)\s*$/i.exec(t);
    if (reg) {
      registrar = reg[1].toUpperCase();
      continue;
    }
    if (!started && SCHEME_START_RE.test(t)) started = true;
    if (started) text.push(t);
    else if (!/^(KYC|PAN)\b/i.test(t)) holders.push(t.replace(/\s{2,}/g, ' '));
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
  const codeM = /^([A-Z0-9]{2,12})\s*-\s*(.*)$/.exec(s.trim());
  const rtaCode = codeM ? codeM[1] : null;
  let name = codeM ? codeM[2] : s.trim();
  const isDemat = /\(\s*Demat\s*\)/i.test(name) && !/Non[\s-]*Demat/i.test(name);
  name = name
    .replace(/\(\s*(?:Non[\s-]*)?Demat\s*\)/gi, ' ')
    .replace(/\(\s*formerly[^)]*\)/gi, ' ')
    .replace(/\s+/g, ' ')
    .replace(/[\s-]+$/, '')
    .trim();
  if (!isin) warnings.push({ code: 'MissingIsin', message: `no ISIN found for scheme '${name}'` });
  return {
    holders: holders.length ? holders : folioHolders,
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
    ...(registrar ? { registrar } : {}),
  } as { scheme: Scheme; holders: string[]; registrar?: string };
}

function parseTxn(line: Line, cols: Column[] | null): Transaction | null {
  const first = line.pieces[0];
  if (!first || !DATE_TOKEN.test(first.text)) return null;
  const date = parseDate(first.text);
  if (!date) return null;
  const rest: Line = { ...line, pieces: line.pieces.slice(1) };
  let cells: Record<string, string>;
  if (cols) {
    cells = splitCells(rest, cols.filter((c) => c.name !== 'date'));
  } else {
    // No columns known: trailing numbers right to left are balance, nav, units, amount.
    const nums = rest.pieces.filter((p) => isNumber(p.text)).map((p) => p.text);
    const desc = rest.pieces.filter((p) => !isNumber(p.text)).map((p) => p.text).join(' ');
    const names = nums.length === 1 ? ['amount'] : nums.length === 2 ? ['units', 'balance'] : nums.length === 3 ? ['amount', 'units', 'balance'] : ['amount', 'units', 'nav', 'balance'];
    cells = { desc };
    nums.forEach((n, i) => (cells[names[i]] = n));
  }
  const description = (cells.desc ?? '').replace(/\s+/g, ' ').trim();
  const units = parseNumber(cells.units);
  const amount = parseNumber(cells.amount);
  const type = classifyTransaction(description, units);
  const rate = type === 'DIVIDEND_PAYOUT' || type === 'DIVIDEND_REINVEST' ? dividendRate(description) : null;
  return {
    date,
    description,
    type,
    amount,
    units,
    nav: parseNumber(cells.nav),
    balance: parseNumber(cells.balance),
    dividend_rate: rate,
    additional_info: { credit: null, debit: null, stamp_duty: null, price: null, income_distribution: null, capital_withdrawal: null, order_no: null },
  };
}

function finishScheme(d: SchemeDraft, folio: MutualFundFolio, warnings: ParseWarning[]): void {
  const s = d.scheme;
  if (!s) return;
  s.units = d.close ?? 0;
  s.nav = d.nav;
  s.value = d.value ?? round((d.close ?? 0) * (d.nav ?? 0), 2);
  s.cost = d.cost;
  if (d.cost !== null) {
    const abs = round(s.value - d.cost, 2);
    s.gain = { absolute: abs, percentage: d.cost ? round((abs / d.cost) * 100, 2) : null };
  }
  s.additional_info.open_units = d.open;
  s.additional_info.close_units = d.close;
  const where = `folio ${folio.folio_number}, scheme '${s.name}'`;
  if (d.open !== null && d.close !== null) {
    const moved = exactSum([d.open, ...s.transactions.map((t) => t.units ?? 0)], 3);
    if (Math.abs(moved - d.close) > 0.0015) warnings.push({ code: 'UnitsMismatch', message: `${where}: opening ${d.open} + transactions = ${moved}, but closing balance is ${d.close}` });
  }
  if (d.close !== null && d.nav !== null && d.value !== null) {
    const calc = d.close * d.nav;
    if (Math.abs(calc - d.value) > Math.max(1, d.value * 0.001)) warnings.push({ code: 'ValueMismatch', message: `${where}: ${d.close} units x NAV ${d.nav} = ${round(calc, 2)}, but value is ${d.value}` });
  }
  folio.schemes.push(s);
}

export function parseRegistrar(doc: PdfDocument): ParseResult<ParsedStatement> {
  const lines = allLines(doc);
  if (lines.some((l) => /Consolidated\s+Account\s+Summary/i.test(l.text))) return parseSummaryForm(doc);
  const warnings: ParseWarning[] = [];
  const out = emptyStatement('REGISTRAR_A_REGISTRAR_B');

  // Period.
  for (const l of lines.slice(0, 40)) {
    const m = /(\d{1,2}-[A-Za-z]{3}-\d{4})\s+(?:To|to|-)\s+(\d{1,2}-[A-Za-z]{3}-\d{4})/.exec(l.text);
    if (m) {
      out.meta.statement_period = { from: parseDate(m[1]), to: parseDate(m[2]) ?? '1970-01-01' };
      break;
    }
  }
  const { investor, endIndex } = parseInvestorBlock(doc, lines);
  Object.assign(out.investor, investor);

  let cols: Column[] | null = null;
  for (const l of lines) {
    cols = findTxnHeader(l);
    if (cols) break;
  }
  if (!cols) cols = learnColumns(lines);

  const folios = new Map<string, FolioDraft>();
  let amc = '';
  let folio: FolioDraft | undefined;
  let draft: SchemeDraft | undefined;
  type State = 'idle' | 'block' | 'txns' | 'footer' | 'summary';
  let state: State = 'idle';

  const closeDraft = (): void => {
    if (draft && folio && draft.scheme) finishScheme(draft, folio.folio, warnings);
    draft = undefined;
  };

  for (let i = endIndex; i < lines.length; i++) {
    const line = lines[i];
    const t = line.text.replace(/\s{2,}/g, ' ').trim();
    if (!t) continue;
    if (/^PORTFOLIO SUMMARY/i.test(t)) {
      state = 'summary';
      continue;
    }
    if (findTxnHeader(line)) {
      if (state === 'summary') state = 'idle';
      continue;
    }
    if (state === 'summary') {
      // The page-1 portfolio summary ends with its Total row (or, failing that, the first folio).
      if (/^(Grand\s+)?Total\b/i.test(t)) {
        state = 'idle';
        continue;
      }
      if (!/Folio\s*No\.?\s*:/i.test(t)) continue;
      state = 'idle';
    }
    if (/^\(INR\)/.test(t) || /^Page\s+\d+(\s+of\s+\d+)?$/i.test(t) || /End of Statement/i.test(t)) continue;

    const folioM = /Folio\s*No\.?\s*:/i.test(t) ? FOLIO_RE.exec(t) : null;
    if (folioM) {
      closeDraft();
      const number = folioM[1].trim();
      const key = `${amc}|${number}`;
      folio = folios.get(key);
      if (!folio) {
        folio = {
          folio: { folio_number: number, amc, registrar: null, value: 0, linked_holders: [], schemes: [], additional_info: { pan: folioM[2] ?? null, pankyc: folioM[4] ?? null, kyc: folioM[3] ?? null } },
          holders: [],
        };
        folios.set(key, folio);
      }
      draft = { block: [], open: null, nav: null, cost: null, value: null, close: null };
      state = 'block';
      continue;
    }
    if (state !== 'block' && AMC_RE.test(t) && line.pieces.length === 1 && !/\d{2}-[A-Za-z]{3}-\d{4}/.test(t)) {
      closeDraft();
      amc = t;
      state = 'idle';
      continue;
    }
    const opening = OPENING_RE.exec(t);
    if (opening && draft && folio) {
      const parsed = parseSchemeBlock(draft.block, folio.holders, warnings) as { scheme: Scheme; holders: string[]; registrar?: string };
      draft.scheme = parsed.scheme;
      if (!folio.holders.length) folio.holders = parsed.holders;
      if (parsed.registrar && !folio.folio.registrar) folio.folio.registrar = parsed.registrar;
      draft.open = parseNumber(opening[1]);
      state = 'txns';
      continue;
    }
    if (state === 'block') {
      draft?.block.push(line.pieces.map((p) => p.text).join(' '));
      continue;
    }
    if ((state === 'txns' || state === 'footer') && draft) {
      const closing = CLOSING_RE.exec(t);
      const nav = NAV_RE.exec(t);
      const cost = COST_RE.exec(t);
      const value = VALUE_RE.exec(t);
      if (closing || nav || cost || value) {
        if (closing) draft.close = parseNumber(closing[1]);
        if (nav) draft.nav = parseNumber(nav[2]);
        if (cost) draft.cost = parseNumber(cost[1]);
        if (value) draft.value = parseNumber(value[2]);
        state = 'footer';
        continue;
      }
      if (state === 'txns') {
        const txn = parseTxn(line, cols);
        if (txn) {
          draft.scheme?.transactions.push(txn);
          continue;
        }
        // A wrapped description continues the previous row.
        const last = draft.scheme?.transactions[draft.scheme.transactions.length - 1];
        if (last && !line.pieces.some((p) => isNumber(p.text)) && !/^\*{3}.*\*{3}$/.test(t) && line.pieces[0].x0 > (cols?.[1]?.x0 ?? 80) - 5) {
          last.description = `${last.description} ${t}`;
          last.type = classifyTransaction(last.description, last.units);
        }
        continue;
      }
      // footer: a new scheme of the same folio starts without a folio line.
      if (SCHEME_START_RE.test(t) && folio) {
        closeDraft();
        draft = { block: [line.pieces.map((p) => p.text).join(' ')], open: null, nav: null, cost: null, value: null, close: null };
        state = 'block';
      }
      continue;
    }
  }
  closeDraft();
  if (!folios.size) {
    throw new DocumentError('UnsupportedDocument', 'no folios found: this does not read as a registrar statement (expected "Folio No:" lines with schemes)');
  }

  for (const f of folios.values()) {
    const mf = f.folio;
    if (!mf.schemes.length) continue;
    mf.linked_holders = f.holders.map((h, i) => ({ name: h, pan: i === 0 ? mf.additional_info.pan : null }));
    mf.value = exactSum(mf.schemes.map((s) => s.value), 2);
    out.mutual_funds.push(mf);
  }
  if (!out.investor.pan) out.investor.pan = out.mutual_funds.find((f) => f.additional_info.pan)?.additional_info.pan ?? null;
  const total = exactSum(out.mutual_funds.map((f) => f.value), 2);
  out.summary.total_value = total;
  out.summary.accounts.mutual_funds = { count: out.mutual_funds.length, total_value: total };
  return { data: out, warnings };
}

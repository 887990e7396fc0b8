/**
 * Registrar statement parser (registrar_a / registrar_b, detailed and summary forms).
 * Pure: extracted document in, Parsed statement and self-check warnings out.
 *
 * Anchored on content: the AMC heading, the folio line, the scheme header block up to
 * `Opening Unit Balance`, dated transaction rows with their continuation lines, and the closing
 * lines; positions only tell columns apart (section readers in sections.ts).
 */
import { DocumentError } from '../../errors.js';
import type { Line, PdfDocument } from '../../pdf/model.js';
import { allLines } from '../../pdf/model.js';
import { exactSum, round } from '../../pdf/numbers.js';
import type { MutualFundFolio, ParsedStatement, ParseWarning, Scheme, Transaction } from '../../schema/index.js';
import { dividendRate, emptyStatement, noPeriod, type ParseResult } from '../common.js';
import { classifyRegistrar } from '../phrasings/index.js';
import { readInvestorBlock, withInvestorFields } from '../common/investor.js';
import { joinWrapped, lineSize, squash, trailingNumbers } from '../common/table/index.js';
import { parseSummaryForm } from './summary.js';
import {
  continueTxn,
  INVESTOR_STOP,
  isAmcHeading,
  leadingDate,
  readClosing,
  readFolioLine,
  readKycLine,
  readOpening,
  readPeriod,
  readSchemeBlock,
  readTxnLine,
  txnHeaderAt,
  type Closing,
  type TxnColumns,
  type TxnDraft,
} from './sections.js';

/** Page furniture that is never content. */
const FURNITURE = /^Page\s*\d+(\s*(of|\/)\s*\d+)?$|End of Statement/i;
/** The title and the period line, which real statements repeat at the top of every page. */
const PAGE_HEAD = /^(Consolidated\s+Account\s+Statement$|\d{1,2}-[A-Za-z]{3}-\d{4}\s+(?:To|to)\s+\d{1,2}-[A-Za-z]{3}-\d{4}\b)/;

interface SchemeDraft extends Closing {
  scheme: Scheme;
  open: number | null;
  /** The registrar printed in the scheme's header block (its phrasings may differ). */
  registrar?: string | null;
}

interface FolioDraft {
  folio: MutualFundFolio;
  holders: { name: string; pan: string | null }[];
}

/** Columns learned from full rows (four numbers at the right) when no header is printed anywhere. */
function learnColumns(lines: readonly Line[]): TxnColumns | null {
  const x0: number[][] = [[], [], [], []];
  const x1: number[][] = [[], [], [], []];
  const desc: number[] = [];
  for (const l of lines) {
    if (!leadingDate(l)) continue;
    const { numbers } = trailingNumbers(l.words.slice(1));
    if (numbers.length < 4) continue;
    numbers.slice(-4).forEach((w, k) => {
      x0[k].push(w.x0);
      x1[k].push(w.x1);
    });
    if (l.words[1]) desc.push(l.words[1].x0);
  }
  if (!desc.length) return null;
  const med = (a: number[]): number => [...a].sort((p, q) => p - q)[Math.floor(a.length / 2)];
  const names = ['amount', 'units', 'nav', 'balance'];
  return { descX: med(desc), numbers: names.map((name, k) => ({ name, x0: med(x0[k]), x1: med(x1[k]) })) };
}

function finishScheme(d: SchemeDraft, folio: MutualFundFolio, warnings: ParseWarning[]): void {
  const s = d.scheme;
  s.units = d.close ?? 0;
  s.nav = d.nav ?? null;
  s.value = d.value ?? round((d.close ?? 0) * (d.nav ?? 0), 2);
  s.cost = d.cost ?? null;
  if (s.cost !== null) {
    const abs = round(s.value - s.cost, 2);
    s.gain = { absolute: abs, percentage: s.cost ? round((abs / s.cost) * 100, 2) : null };
  }
  s.additional_info.open_units = d.open;
  s.additional_info.close_units = d.close ?? null;
  const where = `folio ${folio.folio_number}, scheme '${s.name}'`;
  if (d.open !== null && d.close !== undefined && d.close !== null) {
    const moved = exactSum([d.open, ...s.transactions.map((t) => t.units ?? 0)], 3);
    if (Math.abs(moved - d.close) > 0.0015)
      warnings.push({
        code: 'UnitsMismatch',
        message: `${where}: opening ${d.open} + transactions = ${moved}, but closing balance is ${d.close}`,
      });
  }
  if (d.close != null && d.nav != null && d.value != null) {
    const calc = d.close * d.nav;
    if (Math.abs(calc - d.value) > Math.max(1, d.value * 0.001))
      warnings.push({
        code: 'ValueMismatch',
        message: `${where}: ${d.close} units x NAV ${d.nav} = ${round(calc, 2)}, but value is ${d.value}`,
      });
  }
  folio.schemes.push(s);
}

/**
 * A transaction from its row. Informational rows (`***Address Updated***`, `***Change of Bank
 * Mandate***`, `*** Registration of Nominee ***`: a date and text, no amount, no units) are kept
 * as MISC transactions with their text and null amount and units, so nothing printed in a
 * scheme's history is lost; consumers that want money movements filter on amount or units.
 */
function toTransaction(d: TxnDraft, registrar: string | null): Transaction {
  const description = joinWrapped(d.desc);
  const type = classifyRegistrar(description, d.units, registrar);
  return {
    date: d.date,
    description,
    type,
    amount: d.amount,
    units: d.units,
    nav: d.nav,
    balance: d.balance,
    dividend_rate: type === 'DIVIDEND_PAYOUT' || type === 'DIVIDEND_REINVEST' ? dividendRate(description) : null,
    additional_info: {
      credit: null,
      debit: null,
      stamp_duty: null,
      price: null,
      income_distribution: null,
      capital_withdrawal: null,
      order_no: null,
    },
  };
}

export function parseRegistrar(doc: PdfDocument): ParseResult<ParsedStatement> {
  const all = allLines(doc);
  if (all.slice(0, 80).some((l) => /Consolidated\s+Account\s+Summary/i.test(l.text))) return parseSummaryForm(doc);
  const lines = all.filter((l) => !FURNITURE.test(squash(l)));
  const warnings: ParseWarning[] = [];
  const period = readPeriod(lines);
  if (!period.to) throw noPeriod('"<dd-Mon-yyyy> To <dd-Mon-yyyy>"', 'registrar statement');
  const out = emptyStatement('REGISTRAR_A_REGISTRAR_B', { from: period.from, to: period.to });
  const inv = readInvestorBlock(lines, { start: period.index + 1, stop: INVESTOR_STOP });
  out.investor = withInvestorFields(out.investor, inv.fields);

  // Columns: the nearest header above (one to four stacked lines), else learned from full rows.
  let cols: TxnColumns | null = null;
  let anyHeader = false;
  for (let i = inv.end; i < lines.length && !anyHeader; i++) anyHeader = txnHeaderAt(lines, i) !== null;
  if (!anyHeader) cols = learnColumns(lines);

  const folios = new Map<string, FolioDraft>();
  let amc = '';
  let folio: FolioDraft | undefined;
  let scheme: SchemeDraft | undefined;
  let txn: TxnDraft | null = null;
  /** The last line of the transaction being read (continuation lines sit right under it). */
  let txnLast: Line | null = null;
  let region: string[] = [];
  type Mode = 'idle' | 'summary' | 'region' | 'txns';
  let mode: Mode = 'idle';
  let missingIsin = 0;

  const flushTxn = (): void => {
    if (txn && scheme) scheme.scheme.transactions.push(toTransaction(txn, scheme.registrar ?? folio?.folio.registrar ?? null));
    txn = null;
  };
  const closeScheme = (): void => {
    flushTxn();
    if (scheme && folio) finishScheme(scheme, folio.folio, warnings);
    scheme = undefined;
  };

  for (let i = inv.end; i < lines.length; i++) {
    const line = lines[i];
    // The common case first: a dated row inside a scheme's transactions.
    if (mode === 'txns' && scheme && leadingDate(line)) {
      flushTxn();
      const d = readTxnLine(line, cols);
      // A bare date line (registrar_b prints one after each stamp-duty row) is not a transaction;
      // neither is the period line that real files repeat at the top of every page.
      if (d && !PAGE_HEAD.test(squash(line)) && (d.desc.length || d.amount !== null || d.units !== null)) {
        txn = d;
        txnLast = line;
      }
      continue;
    }
    const header = txnHeaderAt(lines, i);
    if (header) {
      cols = header.cols;
      i += header.lines - 1;
      if (mode === 'summary') mode = 'idle';
      continue;
    }
    const t = squash(line);
    if (PAGE_HEAD.test(t)) continue;
    if (/^PORTFOLIO SUMMARY/i.test(t)) {
      mode = 'summary';
      continue;
    }
    if (mode === 'summary') {
      // The page-1 portfolio summary ends with its Total row (or, failing that, the first folio).
      if (/^(Grand\s+)?Total\b/i.test(t)) mode = 'idle';
      if (!/Folio\s*No/i.test(t)) continue;
      mode = 'idle';
    }
    if (isAmcHeading(t)) {
      closeScheme();
      amc = t;
      mode = 'idle';
      continue;
    }
    const fl = readFolioLine(t);
    if (fl) {
      closeScheme();
      const key = `${amc}|${fl.number}`;
      folio = folios.get(key);
      if (!folio) {
        folio = {
          folio: {
            folio_number: fl.number,
            amc,
            registrar: null,
            value: 0,
            linked_holders: [],
            schemes: [],
            additional_info: { pan: fl.pan, pankyc: fl.pankyc, kyc: fl.kyc },
          },
          holders: [],
        };
        folios.set(key, folio);
      }
      region = [];
      mode = 'region';
      continue;
    }
    const opening = readOpening(t);
    if (opening !== undefined) {
      if (mode === 'region' && folio) {
        closeScheme();
        const b = readSchemeBlock(region);
        if (!folio.holders.length && b.holders.length) folio.holders = b.holders;
        if (b.registrar && !folio.folio.registrar) folio.folio.registrar = b.registrar;
        if (b.kyc) {
          const info = folio.folio.additional_info;
          info.kyc ??= b.kyc.kyc;
          info.pankyc ??= b.kyc.pankyc;
        }
        if (!b.scheme.isin) missingIsin++;
        scheme = { scheme: b.scheme, open: opening, registrar: b.registrar };
        region = [];
        mode = 'txns';
      }
      continue;
    }
    const closing = readClosing(t);
    if (closing && scheme) {
      flushTxn();
      Object.assign(scheme, closing);
      mode = 'region';
      region = [];
      continue;
    }
    if (mode === 'region') {
      // A KYC line under the folio line belongs to the folio, not to the holders.
      const k = readKycLine(t);
      if (k && folio && region.length === 0) {
        const info = folio.folio.additional_info;
        info.kyc ??= k.kyc;
        info.pankyc ??= k.pankyc;
        continue;
      }
      region.push(t);
      continue;
    }
    if (mode === 'txns' && scheme) {
      // A continuation line: right under the record (a wrapped description, numbers printed on the
      // record's last line, a unit balance on a line of its own).
      if (
        txn &&
        txnLast &&
        line.page === txnLast.page &&
        line.y - txnLast.y <= lineSize(line) * 2.4 &&
        line.words[0].x0 >= txnLast.words[0].x0 - 4
      ) {
        continueTxn(txn, line, cols);
        txnLast = line;
      }
    }
  }
  closeScheme();
  // Folios are kept only with their schemes: a folio line with none under it is not a statement.
  if (![...folios.values()].some((f) => f.folio.schemes.length)) {
    throw new DocumentError(
      'UnsupportedDocument',
      `no ${folios.size ? 'schemes under the folios' : 'folios'} found: this does not read as a registrar statement (expected "Folio No:" lines with schemes; ${lines.length} text lines on ${doc.pages.length} pages)`,
    );
  }
  if (missingIsin)
    warnings.push({
      code: 'MissingIsin',
      message: `no ISIN printed for ${missingIsin} scheme${missingIsin > 1 ? 's' : ''} (an older statement layout): isin is null there`,
    });

  for (const f of folios.values()) {
    const mf = f.folio;
    if (!mf.schemes.length) continue;
    mf.linked_holders = f.holders.map((h, k) => ({ name: h.name, pan: k === 0 ? (mf.additional_info.pan ?? h.pan) : h.pan }));
    mf.value = exactSum(
      mf.schemes.map((s) => s.value),
      2,
    );
    out.mutual_funds.push(mf);
  }
  if (!out.investor.pan) out.investor.pan = out.mutual_funds.find((f) => f.additional_info.pan)?.additional_info.pan ?? null;
  const total = exactSum(
    out.mutual_funds.map((f) => f.value),
    2,
  );
  out.summary.total_value = total;
  out.summary.accounts.mutual_funds = { count: out.mutual_funds.length, total_value: total };
  return { data: out, warnings };
}

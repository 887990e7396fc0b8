/**
 * depository_b (NSDL) consolidated account statement -> Parsed statement. Pure.
 * Sections: investor block (page 2 after a cover), account summary, one block per demat
 * account (holding tables by kind, transactions per ISIN), mutual fund folios, NPS, insurance.
 */
import { DocumentError } from '../../errors.js';
import type { Line, PdfDocument } from '../../pdf/model.js';
import { allLines } from '../../pdf/model.js';
import { splitCells, type Column } from '../../pdf/table.js';
import { parseDate, parseMonthYear, parseNumber } from '../../pdf/numbers.js';
import type { DematAccount, Holding, MutualFundFolio, NpsAccount, ParsedStatement, ParseWarning } from '../../schema/index.js';
import { emptyStatement, type ParseResult } from '../common.js';
import {
  dematTxnRow, emptyHoldings, findHeader, findHolding, finishStatement, headingKind, holdersFrom, holdingRow, insuranceLine,
  ISIN_START, npsTableLine, schemeFromFolioRow, type HoldingKind, type Label,
} from '../depository/shared.js';

const HOLDING_HEADERS: Label[][] = [
  [{ name: 'isin', label: 'ISIN', align: 'left' }, { name: 'symbol', label: 'Stock Symbol', align: 'left' }, { name: 'name', label: 'Company Name', align: 'left' }, { name: 'face', label: 'Face Value', align: 'right' }, { name: 'units', label: 'No. of Shares', align: 'right' }, { name: 'price', label: 'Market Price', align: 'right' }, { name: 'value', label: 'Value', align: 'right' }],
  [{ name: 'isin', label: 'ISIN', align: 'left' }, { name: 'name', label: 'ISIN Description', align: 'left' }, { name: 'units', label: 'No. of Units', align: 'right' }, { name: 'price', label: 'NAV', align: 'right' }, { name: 'value', label: 'Value', align: 'right' }],
  [{ name: 'isin', label: 'ISIN', align: 'left' }, { name: 'name', label: 'Security Description', align: 'left' }, { name: 'face', label: 'Face Value', align: 'right' }, { name: 'units', label: 'Quantity', align: 'right' }, { name: 'price', label: 'Market Price', align: 'right' }, { name: 'value', label: 'Value', align: 'right' }],
];
const TXN_HEADER: Label[] = [{ name: 'date', label: 'Date', align: 'left' }, { name: 'order', label: 'Order No', align: 'left' }, { name: 'desc', label: 'Description', align: 'left' }, { name: 'open', label: 'Opening Balance', align: 'right' }, { name: 'debit', label: 'Debit', align: 'right' }, { name: 'credit', label: 'Credit', align: 'right' }, { name: 'close', label: 'Closing Balance', align: 'right' }];
const FOLIO_HEADER: Label[] = [{ name: 'isin', label: 'ISIN', align: 'left' }, { name: 'ucc', label: 'UCC', align: 'left' }, { name: 'name', label: 'ISIN Description', align: 'left' }, { name: 'folio', label: 'Folio No', align: 'left' }, { name: 'units', label: 'No. of', align: 'right' }, { name: 'avg', label: 'Average Cost', align: 'right' }, { name: 'cost', label: 'Total', align: 'right' }, { name: 'nav', label: 'Current NAV', align: 'right' }, { name: 'value', label: 'Current', align: 'right' }, { name: 'pnl', label: 'Unrealised', align: 'right' }, { name: 'ret', label: 'Annualised', align: 'right' }];
const NPS_HEADER: Label[] = [{ name: 'tier', label: 'Tier', align: 'left' }, { name: 'name', label: 'Scheme Name', align: 'left' }, { name: 'manager', label: 'Pension Fund Manager', align: 'left' }, { name: 'units', label: 'No. of Units', align: 'right' }, { name: 'nav', label: 'NAV', align: 'right' }, { name: 'value', label: 'Value', align: 'right' }];

type Mode = 'none' | 'summary' | 'holdings' | 'txns' | 'folios' | 'nps' | 'insurance' | 'done';

const squash = (l: Line): string => l.text.replace(/\s{2,}/g, ' ').trim();

export function parseDepositoryB(doc: PdfDocument): ParseResult<ParsedStatement> {
  const lines = allLines(doc).filter((l) => !(/^NSDL ID:\s*\d+$/.test(squash(l)) && l.pieces[0].x0 > 150) && !/^Page \d+( of \d+)?$/.test(squash(l)));
  const warnings: ParseWarning[] = [];
  const out = emptyStatement('DEPOSITORY_B');
  const declared = new Map<string, number>();

  // Investor block: the left-aligned `NSDL ID:` line, then name and address up to the period line.
  const idIdx = lines.findIndex((l) => /^NSDL ID\s*:\s*\d+/.test(squash(l)));
  if (idIdx < 0) throw new DocumentError('UnsupportedDocument', 'no "NSDL ID:" line found: this does not read as a depository_b statement');
  out.investor.cas_id = /NSDL ID\s*:\s*(\d+)/.exec(squash(lines[idIdx]))![1];
  const block: string[] = [];
  let i = idIdx + 1;
  for (; i < lines.length; i++) {
    const t = squash(lines[i]);
    const period = /Statement for the period from (\d{1,2}-[A-Za-z]{3}-\d{4}) to (\d{1,2}-[A-Za-z]{3}-\d{4})/i.exec(t);
    if (period) {
      out.meta.statement_period = { from: parseDate(period[1]), to: parseDate(period[2]) ?? '1970-01-01' };
      i++;
      break;
    }
    if (/^Your Demat Account/i.test(t)) break;
    block.push(t);
  }
  if (!out.meta.statement_period.from) {
    const month = lines.map((l) => /for the month of ([A-Za-z]+ \d{4})/i.exec(squash(l))).find(Boolean);
    const p = month ? parseMonthYear(month[1]) : null;
    if (p) out.meta.statement_period = p;
  }
  const addr: string[] = [];
  for (const t of block) {
    let m: RegExpExecArray | null;
    if ((m = /^PIN\s*CODE\s*:?\s*(\d{6})/i.exec(t))) out.investor.pincode = m[1];
    else if ((m = /^E-?mail(?: Id)?\s*:\s*(\S+@\S+)/i.exec(t))) out.investor.email = m[1].toLowerCase();
    else if ((m = /^Mobile(?: No)?\s*:\s*(\+?[\d ]{8,})/i.exec(t))) out.investor.mobile = m[1].replace(/\s/g, '');
    else if (!out.investor.name) out.investor.name = t;
    else addr.push(t);
  }
  out.investor.address = addr.join(', ') || null;
  if (!out.investor.pincode) out.investor.pincode = /\b(\d{6})\b/.exec(addr.join(' '))?.[1] ?? null;

  let mode: Mode = 'none';
  let acc: DematAccount | undefined;
  let kind: HoldingKind | null = null;
  let cols: Column[] | null = null;
  let last: Holding | undefined;
  let txnHolding: Holding | undefined;
  let folio: MutualFundFolio | undefined;
  let lastScheme: MutualFundFolio['schemes'][number] | undefined;
  let amc = '';
  let nps: NpsAccount | undefined;

  for (; i < lines.length; i++) {
    const line = lines[i];
    const t = squash(line);
    if (/\*+\s*End of Statement\s*\*+/i.test(t)) break;
    if (/^Your Demat Account and Mutual Fund Folios/i.test(t)) {
      mode = 'summary';
      continue;
    }
    if (mode === 'summary') {
      const m = /^(NSDL|CDSL) Demat Account\b.*DP ID\s*:\s*(\S+)\s+Client ID\s*:\s*(\S+)\s+\d+\s+([\d,.]+)$/.exec(t);
      if (m) declared.set(`${m[2]}|${m[3]}`, parseNumber(m[4]) ?? 0);
      const g = /^Grand Total\s+([\d,.`₹ ]+)$/.exec(t);
      if (g) {
        declared.set('grand', parseNumber(g[1].replace(/[`₹\s]/g, '')) ?? 0);
        mode = 'none';
      }
      continue;
    }
    // Demat account block heading (a single piece; the summary rows have several).
    const accM = /^(NSDL|CDSL) Demat Account$/.exec(t);
    if (accM && line.pieces.length === 1) {
      acc = {
        demat_type: accM[1] === 'NSDL' ? 'DEPOSITORY_B' : 'DEPOSITORY_A',
        dp_id: '', dp_name: '', client_id: '', bo_id: null, value: 0, linked_holders: [], holdings: emptyHoldings(), additional_info: { linked_pans: [] },
      };
      out.demat_accounts.push(acc);
      mode = 'none';
      kind = null;
      continue;
    }
    if (acc && mode === 'none') {
      let m: RegExpExecArray | null;
      if ((m = /^DP Name\s*:\s*(.+)$/.exec(t))) {
        acc.dp_name = m[1].trim();
        continue;
      }
      if ((m = /^DP ID\s*:\s*(\S+)\s+Client ID\s*:\s*(\S+)/i.exec(t))) {
        acc.dp_id = m[1];
        acc.client_id = m[2];
        if (acc.demat_type === 'DEPOSITORY_A') acc.bo_id = `${m[1]}${m[2]}`;
        continue;
      }
      if (/^Account Holder/i.test(t)) {
        acc.linked_holders = holdersFrom(t);
        acc.additional_info.linked_pans = acc.linked_holders.map((h) => h.pan).filter((p): p is string => Boolean(p));
        continue;
      }
    }
    const k = line.pieces.length === 1 ? headingKind(t) : null;
    if (k && acc) {
      kind = k;
      mode = 'holdings';
      cols = null;
      last = undefined;
      continue;
    }
    if (/^Transactions for the period/i.test(t)) {
      mode = 'txns';
      cols = null;
      continue;
    }
    if (/^Mutual Fund Folios \(F\)$/i.test(t)) {
      mode = 'folios';
      cols = null;
      acc = undefined;
      continue;
    }
    if (/^National Pension System \(N\)$/i.test(t)) {
      mode = 'nps';
      cols = null;
      nps = { pran: '', cra: '', value: 0, funds: [], linked_holders: [], additional_info: {} };
      out.nps.push(nps);
      continue;
    }
    if (/^Life Insurance Policies$/i.test(t)) {
      mode = 'insurance';
      cols = null;
      continue;
    }

    switch (mode) {
      case 'holdings': {
        const h = findHeader(line, HOLDING_HEADERS);
        if (h) {
          cols = h;
          continue;
        }
        if (!cols || !acc || !kind) continue;
        if (/^Sub Total\b/i.test(t)) {
          last = undefined;
          continue;
        }
        const r = holdingRow(line, cols, last);
        if (r.holding) {
          acc.holdings[kind].push(r.holding);
          last = r.holding;
        }
        break;
      }
      case 'txns': {
        const isinLine = /^ISIN\s*:\s*(IN[A-Z0-9]{10})\s*-\s*(.+)$/.exec(t);
        if (isinLine) {
          txnHolding = findHolding(acc, isinLine[1]);
          if (!txnHolding) warnings.push({ code: 'OrphanTransactions', message: `transactions for ${isinLine[1]} but no such holding in account ${acc?.dp_id ?? '?'} ${acc?.client_id ?? ''}` });
          continue;
        }
        const h = findHeader(line, [TXN_HEADER]);
        if (h) {
          cols = h;
          continue;
        }
        if (!cols || !txnHolding) continue;
        const txn = dematTxnRow(line, cols, 'close');
        if (txn) txnHolding.transactions.push(txn);
        break;
      }
      case 'folios': {
        const h = findHeader(line, [FOLIO_HEADER]);
        if (h) {
          cols = h;
          continue;
        }
        if (!cols) continue;
        const c = splitCells(line, cols);
        if (c.isin && ISIN_START.test(c.isin) && c.value) {
          const folioNo = (c.folio ?? '').trim();
          if (!folio || folio.folio_number !== folioNo || folio.amc !== amc) {
            folio = { folio_number: folioNo, amc, registrar: null, value: 0, linked_holders: [], schemes: [], additional_info: { pan: null, pankyc: null, kyc: null } };
            out.mutual_funds.push(folio);
          }
          lastScheme = schemeFromFolioRow(c.isin, (c.name ?? '').trim(), parseNumber(c.units) ?? 0, parseNumber(c.nav), parseNumber(c.value) ?? 0, parseNumber(c.cost), parseNumber(c.pnl), false);
          folio.schemes.push(lastScheme);
          continue;
        }
        if (line.pieces.length === 1 && line.pieces[0].x0 < cols[1].x0 && /[a-z]/i.test(t) && !c.name) {
          amc = t;
          lastScheme = undefined;
          continue;
        }
        if (lastScheme && c.name && Object.keys(c).every((key) => key === 'name')) lastScheme.name = `${lastScheme.name} ${c.name}`.replace(/\s+/g, ' ');
        break;
      }
      case 'nps': {
        if (!nps) break;
        if (/^Subscriber/i.test(t)) {
          nps.linked_holders = holdersFrom(t);
          continue;
        }
        cols = npsTableLine(line, cols, nps, NPS_HEADER);
        break;
      }
      case 'insurance':
        cols = insuranceLine(line, cols, out.insurance.life_insurance_policies);
        break;
      default:
        break;
    }
  }
  if (!out.demat_accounts.length && !out.mutual_funds.length) throw new DocumentError('UnsupportedDocument', 'no demat accounts or folios found in this depository_b statement');
  if (!out.investor.pan) out.investor.pan = out.demat_accounts.flatMap((a) => a.linked_holders).find((h) => h.pan)?.pan ?? null;
  finishStatement(out, warnings, declared);
  return { data: out, warnings };
}

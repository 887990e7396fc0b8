/**
 * depository_a (CDSL) consolidated account statement -> Parsed statement. Pure.
 * Sections: heading with the period, investor block, summary of investments, one block per
 * demat account (BO details, statement of transactions, holding statement), mutual fund
 * units held with MF/RTA, NPS, insurance.
 */
import { DocumentError } from '../../errors.js';
import type { Line, PdfDocument } from '../../pdf/model.js';
import { allLines } from '../../pdf/model.js';
import type { Column } from '../../pdf/table.js';
import { parseDate, parseNumber } from '../../pdf/numbers.js';
import type { DematAccount, Holding, MutualFundFolio, NpsAccount, ParsedStatement, ParseWarning, Transaction } from '../../schema/index.js';
import { emptyStatement, type ParseResult } from '../common.js';
import {
  dematTxnRow, emptyHoldings, findHeader, findHolding, finishStatement, headingKind, holdingRow, insuranceLine,
  npsTableLine, schemeFromFolioRow, type HoldingKind, type Label,
} from '../depository/shared.js';

const HOLDING_HEADER: Label[] = [{ name: 'isin', label: 'ISIN', align: 'left' }, { name: 'name', label: 'Security', align: 'left' }, { name: 'units', label: 'Current Bal', align: 'right' }, { name: 'frozen', label: 'Frozen Bal', align: 'right' }, { name: 'pledge', label: 'Pledge Bal', align: 'right' }, { name: 'setup', label: 'Pledge Setup Bal', align: 'right' }, { name: 'free', label: 'Free Bal', align: 'right' }, { name: 'price', label: 'Market Price', align: 'right' }, { name: 'value', label: 'Value', align: 'right' }];
const TXN_HEADER: Label[] = [{ name: 'date', label: 'Date', align: 'left' }, { name: 'desc', label: 'Transaction Particulars', align: 'left' }, { name: 'order', label: 'Order No', align: 'left' }, { name: 'credit', label: 'Credit', align: 'right' }, { name: 'debit', label: 'Debit', align: 'right' }, { name: 'balance', label: 'Balance', align: 'right' }];
const NPS_HEADER: Label[] = [{ name: 'tier', label: 'Tier', align: 'left' }, { name: 'name', label: 'Scheme', align: 'left' }, { name: 'manager', label: 'Fund Manager', align: 'left' }, { name: 'units', label: 'Units', align: 'right' }, { name: 'nav', label: 'NAV', align: 'right' }, { name: 'value', label: 'Value', align: 'right' }];

type Mode = 'none' | 'portfolio' | 'account' | 'txns' | 'holdings' | 'folios' | 'nps' | 'insurance';
const squash = (l: Line): string => l.text.replace(/\s{2,}/g, ' ').trim();
const kv = (t: string, label: string): string | null => {
  const m = new RegExp(`${label}\\s*:\\s*(.+?)(?=\\s+[A-Z][A-Z ()\`₹]+\\s:|$)`).exec(t);
  return m ? m[1].trim() : null;
};

export function parseDepositoryA(doc: PdfDocument): ParseResult<ParsedStatement> {
  const lines = allLines(doc).filter((l) => !/^Page \d+( of \d+)?$/.test(squash(l)) && !(squash(l) === 'Central Depository Services (India) Limited' && l.pieces[0].size < 8 && l.page > 1));
  const warnings: ParseWarning[] = [];
  const out = emptyStatement('DEPOSITORY_A');
  const declared = new Map<string, number>();

  const head = lines.slice(0, 12).map(squash).join(' ');
  const period = /FOR THE PERIOD FROM (\d{2}[-/]\d{2}[-/]\d{4}) TO (\d{2}[-/]\d{2}[-/]\d{4})/i.exec(head);
  if (!period) throw new DocumentError('UnsupportedDocument', 'no "FOR THE PERIOD FROM ... TO ..." heading: this does not read as a depository_a statement');
  out.meta.statement_period = { from: parseDate(period[1]), to: parseDate(period[2]) ?? '1970-01-01' };
  const casId = lines.map((l) => /CAS ID\s*:\s*([A-Z0-9]+)/i.exec(squash(l))).find(Boolean);
  out.investor.cas_id = casId ? casId[1] : null;

  let i = lines.findIndex((l) => /TO \d{2}[-/]\d{2}[-/]\d{4}/.test(squash(l))) + 1;
  const addr: string[] = [];
  for (; i < lines.length; i++) {
    const t = squash(lines[i]);
    if (/^Summary of Investments/i.test(t) || /DEMAT ACCOUNT$/.test(t)) break;
    let m: RegExpExecArray | null;
    if (/^CAS ID\s*:/i.test(t)) continue;
    if ((m = /^PIN\s*CODE\s*:?\s*(\d{6})/i.exec(t))) out.investor.pincode = m[1];
    else if ((m = /^E-?mail(?: Id)?\s*:\s*(\S+@\S+)/i.exec(t))) out.investor.email = m[1].toLowerCase();
    else if ((m = /^Mobile(?: No)?\s*:\s*(\+?[\d ]{8,})/i.exec(t))) out.investor.mobile = m[1].replace(/\s/g, '');
    else if (!out.investor.name) out.investor.name = t;
    else addr.push(t);
  }
  out.investor.address = addr.join(', ') || null;

  let mode: Mode = 'none';
  let acc: DematAccount | undefined;
  let kind: HoldingKind | null = null;
  let cols: Column[] | null = null;
  let last: Holding | undefined;
  const pending = new Map<DematAccount, Map<string, Transaction[]>>();
  let txnIsin: string | null = null;
  let scheme: { amc: string; name: string; folio: string; isin: string; rta: string | null } | undefined;
  let nps: NpsAccount | undefined;

  for (; i < lines.length; i++) {
    const line = lines[i];
    const t = squash(line);
    if (/^Consolidated Portfolio$/i.test(t) || /^Summary of Investments$/i.test(t)) {
      mode = 'portfolio';
      continue;
    }
    if (mode === 'portfolio') {
      const m = /^Total\s+`?₹?\s*([\d,.]+)$/.exec(t);
      if (m) {
        declared.set('grand', parseNumber(m[1]) ?? 0);
        mode = 'none';
      }
      continue;
    }
    const accM = /^(CDSL|NSDL) DEMAT ACCOUNT$/.exec(t);
    if (accM) {
      acc = { demat_type: accM[1] === 'CDSL' ? 'DEPOSITORY_A' : 'DEPOSITORY_B', dp_id: '', dp_name: '', client_id: '', bo_id: null, value: 0, linked_holders: [], holdings: emptyHoldings(), additional_info: {} };
      out.demat_accounts.push(acc);
      pending.set(acc, new Map());
      mode = 'account';
      continue;
    }
    if (/^STATEMENT OF TRANSACTIONS/i.test(t)) {
      mode = 'txns';
      cols = null;
      continue;
    }
    if (/^HOLDING STATEMENT AS ON/i.test(t)) {
      mode = 'holdings';
      cols = null;
      kind = null;
      continue;
    }
    if (/^MUTUAL FUND UNITS HELD WITH MF\s*\/\s*RTA/i.test(t)) {
      mode = 'folios';
      acc = undefined;
      continue;
    }
    if (/^NPS HOLDINGS$/i.test(t)) {
      mode = 'nps';
      cols = null;
      nps = { pran: '', cra: '', value: 0, funds: [], linked_holders: [], additional_info: {} };
      out.nps.push(nps);
      continue;
    }
    if (/^INSURANCE POLICIES$/i.test(t)) {
      mode = 'insurance';
      cols = null;
      continue;
    }
    switch (mode) {
      case 'account': {
        if (!acc) break;
        let m: RegExpExecArray | null;
        if ((m = /DP Name\s*:\s*(.+?)\s+DP ID\s*:\s*(\S+)\s+CLIENT ID\s*:\s*(\S+)/i.exec(t))) {
          acc.dp_name = m[1];
          acc.dp_id = m[2];
          acc.client_id = m[3];
        } else if ((m = /^BO ID\s*:\s*(\d{16})/.exec(t))) acc.bo_id = m[1];
        else if ((m = /^(?:FIRST|SECOND|THIRD|SOLE) HOLDER\s*:\s*(.+?)\s+PAN\s*:\s*([A-Z]{5}\d{4}[A-Z])/.exec(t))) acc.linked_holders.push({ name: m[1], pan: m[2] });
        else if (/^BO STATUS\s*:/.test(t)) {
          acc.additional_info.bo_status = kv(t, 'BO STATUS');
          acc.additional_info.bo_sub_status = kv(t, 'BO SUB STATUS');
        } else if (/^BO TYPE\s*:/.test(t)) {
          acc.additional_info.bo_type = kv(t, 'BO TYPE');
          acc.additional_info.bsda = kv(t, 'BSDA');
          acc.additional_info.status = kv(t, 'ACCOUNT STATUS');
        } else if ((m = /^NOMINEE\s*:\s*(.+)$/.exec(t))) acc.additional_info.nominee = m[1].trim();
        else if ((m = /^EMAIL ID\s*:\s*(\S+@\S+)/i.exec(t))) acc.additional_info.email = m[1].toLowerCase();
        break;
      }
      case 'txns': {
        if (!acc) break;
        const isinLine = /^ISIN\s*:\s*(IN[A-Z0-9]{10})\b/.exec(t);
        if (isinLine) {
          txnIsin = isinLine[1];
          continue;
        }
        const h = findHeader(line, [TXN_HEADER]);
        if (h) {
          cols = h;
          continue;
        }
        if (!cols || !txnIsin) continue;
        const txn = dematTxnRow(line, cols, 'balance');
        if (!txn) continue;
        const list = pending.get(acc)!;
        list.set(txnIsin, [...(list.get(txnIsin) ?? []), txn]);
        break;
      }
      case 'holdings': {
        if (!acc) break;
        const pv = /^Portfolio Value\s*[`₹]?\s*([\d,.]+)/i.exec(t);
        if (pv) {
          declared.set(`${acc.dp_id}|${acc.client_id}`, parseNumber(pv[1]) ?? 0);
          mode = 'none';
          continue;
        }
        const h = findHeader(line, [HOLDING_HEADER]);
        if (h) {
          cols = h;
          continue;
        }
        const k = line.pieces.length === 1 ? headingKind(t) : null;
        if (k) {
          kind = k;
          last = undefined;
          continue;
        }
        if (!cols || !kind) continue;
        const r = holdingRow(line, cols, last);
        if (r.holding) {
          acc.holdings[kind].push(r.holding);
          last = r.holding;
        }
        break;
      }
      case 'folios': {
        let m: RegExpExecArray | null;
        if ((m = /^AMC Name\s*:\s*(.+)$/.exec(t))) scheme = { amc: m[1].trim(), name: '', folio: '', isin: '', rta: null };
        else if (scheme && (m = /^Scheme Name\s*:\s*(.+)$/.exec(t))) scheme.name = m[1].trim();
        else if (scheme && (m = /^Folio No\s*:\s*(.+)$/.exec(t))) scheme.folio = m[1].trim();
        else if (scheme && (m = /^ISIN\s*:\s*(IN[A-Z0-9]{10})(?:\s+RTA\s*:\s*(\S+))?/.exec(t))) {
          scheme.isin = m[1];
          scheme.rta = m[2] ?? null;
        } else if (scheme && /^Closing Bal/i.test(t)) {
          const num = (re: RegExp): number | null => parseNumber(re.exec(t)?.[1]);
          const units = num(/Closing Bal \(Units\)\s*:\s*([\d,.]+)/i) ?? 0;
          const nav = num(/NAV \([`₹]?\)\s*:\s*([\d,.]+)/i);
          const cost = num(/Invested Value \([`₹]?\)\s*:\s*([\d,.]+)/i);
          const value = num(/Valuation \([`₹]?\)\s*:\s*([\d,.]+)/i) ?? 0;
          const s = scheme;
          let folio = out.mutual_funds.find((f) => f.folio_number === s.folio && f.amc === s.amc);
          if (!folio) {
            folio = { folio_number: s.folio, amc: s.amc, registrar: s.rta, value: 0, linked_holders: [], schemes: [], additional_info: { pan: null, pankyc: null, kyc: null } } as MutualFundFolio;
            out.mutual_funds.push(folio);
          }
          folio.schemes.push(schemeFromFolioRow(s.isin, s.name, units, nav, value, cost, null, true));
          scheme = undefined;
        }
        break;
      }
      case 'nps': {
        if (!nps) break;
        let m: RegExpExecArray | null;
        if ((m = /^SUBSCRIBER\s*:\s*(.+?)\s+PAN\s*:\s*([A-Z]{5}\d{4}[A-Z])/.exec(t))) {
          nps.linked_holders.push({ name: m[1], pan: m[2] });
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
  for (const [a, byIsin] of pending) {
    for (const [isin, txns] of byIsin) {
      const h = findHolding(a, isin);
      if (h) h.transactions.push(...txns);
      else warnings.push({ code: 'OrphanTransactions', message: `transactions for ${isin} but no such holding in account ${a.dp_id} ${a.client_id}` });
    }
  }
  if (!out.demat_accounts.length && !out.mutual_funds.length) throw new DocumentError('UnsupportedDocument', 'no demat accounts or folios found in this depository_a statement');
  out.investor.pan = out.demat_accounts.flatMap((a) => a.linked_holders).find((h) => h.pan)?.pan ?? out.nps.flatMap((n) => n.linked_holders).find((h) => h.pan)?.pan ?? null;
  finishStatement(out, warnings, declared);
  return { data: out, warnings };
}

/**
 * depository_b (NSDL) consolidated account statement -> Parsed statement. Pure.
 *
 * Read by content: the investor block opened by `NSDL ID:` (page 1 may be a cover; the
 * `... for the month of ...` line ends the block), the summary `Your Demat Account and Mutual
 * Fund Folios` wherever it is (declared values for the self-checks), each demat account found by
 * its `DP ID: ... Client ID: ...` line (one-line headers with the DP name and holders, or stacked
 * label lines; a CDSL account keeps its own ids), holding tables by kind (bonds with coupon and
 * maturity columns), transactions per ISIN, mutual fund folios with AMC sub-headings, NPS and
 * insurance.
 */
import { DocumentError } from '../../errors.js';
import type { Line, PdfDocument } from '../../pdf/model.js';
import type {
  DematAccount,
  Holding,
  LinkedHolder,
  MutualFundFolio,
  NpsAccount,
  ParsedStatement,
  ParseWarning,
} from '../../schema/index.js';
import { emptyStatement, noPeriod, type ParseResult } from '../common.js';
import { bodyLines, findPeriod, folioCell, readInvestor, text } from '../depository/read.js';
import { squashText } from '../common/table/index.js';
import {
  addNps,
  dematAccount,
  folioOf,
  folioSchemeOf,
  holdingOf,
  lastAmount,
  npsFundOf,
  npsSection,
  openSection,
  policyOf,
  Table,
  tableLine,
  transactionOf,
  unreadSections,
  type Heading,
} from '../depository/sections.js';
import { attachFolioBlocks, FolioTxnReader } from '../depository/folio-txns.js';
import { findHolding, finishStatement, headingKind, holdersFrom, type HoldingKind } from '../depository/shared.js';

type Section = 'none' | 'summary' | 'holdings' | 'txns' | 'folios' | 'mftxns' | 'nps' | 'insurance' | 'done';

const IDS = /DP\s*ID\s*:?\s*([A-Z0-9]{8})\s+Client\s*ID\s*:?\s*(\d{8})/i;

/** An account with its holders' PANs listed. */
function rosterAccount(cdsl: boolean, dpId: string, dpName: string, clientId: string, holders: LinkedHolder[]): DematAccount {
  return dematAccount(cdsl, dpId, dpName, clientId, holders, {
    linked_pans: holders.map((h) => h.pan).filter((p): p is string => Boolean(p)),
  });
}

export function parseDepositoryB(doc: PdfDocument): ParseResult<ParsedStatement> {
  const lines = bodyLines(doc, (t, l) => /^NSDL ID:\s*\d+(\s+Page \d+( of \d+)?)?$/i.test(t) && (l.words[0]?.x0 ?? 0) > 150);
  const warnings: ParseWarning[] = [];
  const declared = new Map<string, number>();

  const idIdx = lines.findIndex((l) => /^NSDL ID\s*:?\s*\d+/i.test(text(l)) && (l.words[0]?.x0 ?? 0) < 150);
  if (idIdx < 0)
    throw new DocumentError(
      'UnsupportedDocument',
      'no "NSDL ID:" line opening an investor block was found on any page: this does not read as a depository_b statement',
    );
  const period = findPeriod(lines);
  if (!period) throw noPeriod('"for the period from ... to ..." or "for the month of ..."', 'depository_b statement');
  const out = emptyStatement('DEPOSITORY_B', period);
  out.investor.cas_id = /NSDL ID\s*:?\s*(\d+)/i.exec(text(lines[idIdx]))![1];
  const inv = readInvestor(lines, idIdx);
  Object.assign(out.investor, {
    name: inv.name,
    address: inv.address,
    pincode: inv.pincode,
    email: inv.email,
    mobile: inv.mobile,
    pan: inv.pan,
  });

  let section: Section = 'none';
  let acc: DematAccount | undefined;
  let kind: HoldingKind | null = null;
  let txnHolding: Holding | undefined;
  let amc = '';
  let nps: NpsAccount | undefined;
  let pendingValue: number | null = null;
  let pendingType = '';
  let pendingName = '';
  let rosterHolders: { name: string; pan: string | null }[] = [];
  const roster: { type: string; dpName: string; dpId: string; clientId: string; holders: { name: string; pan: string | null }[] }[] = [];
  let lastFolio: MutualFundFolio | undefined;
  /**
   * The `Transactions` tab: after `Summary of Transactions of NAME` each account's header is printed
   * again over its transactions table, so an account header there opens transactions, not holdings.
   */
  let txnTab = false;

  const holdings = new Table(
    'isin',
    (f) => {
      if (acc && kind && f.isin) acc.holdings[kind].push(holdingOf(f));
    },
    'holdings',
  );
  const txns = new Table(
    'date',
    (f, _ls, key) => {
      const t = transactionOf(f, key);
      if (t && txnHolding) txnHolding.transactions.push(t);
    },
    'transactions',
  );
  const folios = new Table('isin', (f) => {
    const folioNo = folioCell(f.text.folio);
    if (!lastFolio || lastFolio.folio_number !== folioNo || lastFolio.amc !== amc) lastFolio = folioOf(out, folioNo, amc, null);
    lastFolio.schemes.push(folioSchemeOf(f));
  });
  const npsTable = new Table('tier', (f) => nps?.funds.push(npsFundOf(f)), 'National Pension System (N)');
  const policies = new Table('policy', (f) => out.insurance.life_insurance_policies.push(policyOf(f)));
  const tables = [holdings, txns, folios, npsTable, policies];
  /** Mutual fund folio transactions (`Mutual Funds Transaction Statement ...`). */
  const folioTxns = new FolioTxnReader();
  const endTables = (): void => {
    tables.forEach((t) => t.end());
    folioTxns.end();
  };

  /** A demat account header: its ids line, the DP name and the holders around it. */
  function account(i: number, ids: RegExpExecArray): number {
    const dpId = ids[1];
    const clientId = ids[2];
    const t = text(lines[i]);
    const before = squashText(t.slice(0, t.search(/DP\s*ID/i)));
    const prev = i > 0 ? text(lines[i - 1]) : '';
    const typeHint = /\b(NSDL|CDSL) Demat Account\b/i.exec(`${prev} ${t}`)?.[1];
    const cdsl = typeHint ? typeHint.toUpperCase() === 'CDSL' : !/^IN/i.test(dpId);
    let dpName = before.replace(/^(NSDL|CDSL) Demat Account\s*/i, '');
    let m: RegExpExecArray | null;
    if (!dpName && (m = /^DP Name\s*:?\s*(.+)$/i.exec(prev))) dpName = m[1].trim();
    // Holders: on this line after the ids, on the lines below, or an `Account Holder(s):` line;
    // some templates print the DP name and the holders above the ids, under the account heading.
    const holderText: string[] = [t.slice(t.search(IDS) + ids[0].length)];
    for (let k = i - 1; k >= 0 && k >= i - 4 && lines[k].page === lines[i].page; k--) {
      const u = lines[k].text;
      if (/\b(NSDL|CDSL) Demat Account\b/i.test(u) || IDS.test(u)) break;
      for (const part of u.split(/\s{2,}/)) {
        const left = squashText(part);
        if (/\(PAN\s*:/i.test(left)) holderText.unshift(left);
        else if (!dpName && left && !/^ACCOUNT HOLDERS?$/i.test(left)) dpName = left;
      }
    }
    let j = i + 1;
    for (; j < lines.length && j < i + 5; j++) {
      const u = text(lines[j]);
      if (!/\(PAN\s*:/i.test(u) || /^ISIN\b/i.test(u)) break;
      holderText.push(u.replace(/^Account Holder\(?s?\)?\s*:?\s*/i, ''));
    }
    acc = out.demat_accounts.find((a) => a.dp_id === dpId && a.client_id === clientId);
    if (!acc) {
      acc = rosterAccount(cdsl, dpId, dpName, clientId, holdersFrom(holderText.join(' ')));
      out.demat_accounts.push(acc);
    }
    kind = null;
    return j;
  }

  /** Section headings after the accounts' holdings. */
  const headings: Heading[] = [
    [
      /^Transactions for the period/i,
      () => {
        section = 'txns';
        txnHolding = undefined;
      },
    ],
    [
      /^Summary of Transactions\b/i,
      () => {
        section = 'txns';
        txnTab = true;
        txnHolding = undefined;
      },
    ],
    [
      /^Mutual Fund Folios \(F\)$/i,
      () => {
        section = 'folios';
        txnTab = false;
        acc = undefined;
        amc = '';
      },
    ],
    [
      /^(Mutual Funds? (Folios? )?Transaction Statement|Mutual Fund Folios \(F\) Transactions|Transactions in Mutual Fund Folios)\b/i,
      () => {
        section = 'mftxns';
        txnTab = false;
        acc = undefined;
      },
    ],
    [
      /^National Pension System \(N\)$/i,
      () => {
        section = 'nps';
        txnTab = false;
        acc = undefined;
        nps = addNps(out);
      },
    ],
    [
      /^Life Insurance Policies$/i,
      () => {
        section = 'insurance';
        txnTab = false;
        acc = undefined;
      },
    ],
  ];

  /** `ISIN : ... -` opens the transactions of a holding of the account. */
  function transactionsOf(t: string): boolean {
    const isin = /^ISIN\s*:\s*(IN[A-Z0-9]{9}[0-9])\s*-/.exec(t);
    if (!isin) return false;
    txns.flush();
    txnHolding = findHolding(acc, isin[1]);
    if (!txnHolding)
      warnings.push({
        code: 'OrphanTransactions',
        message: `transactions for ${isin[1]} but no such holding in account ${acc?.dp_id ?? '?'} ${acc?.client_id ?? ''}`,
      });
    return true;
  }

  /** Each table section's reader of a body line: returns the index of the last line it read. */
  const readers: Partial<Record<Section, (i: number, line: Line) => number>> = {
    holdings: (i) => tableLine(holdings, lines, i),
    txns: (i) => tableLine(txns, lines, i, { pre: transactionsOf }),
    // An AMC sub-heading on its own line.
    folios: (i, line) =>
      tableLine(folios, lines, i, {
        rest: (t) => {
          if (folios.grid && !line.words.some((w) => /\d/.test(w.text))) amc = t;
        },
      }),
    nps: (i) => npsSection(nps, npsTable, lines, i, holdersFrom),
    insurance: (i) => tableLine(policies, lines, i),
    mftxns: (i) => folioTxns.feed(lines, i),
  };

  for (let i = idIdx + 1; i < lines.length; i++) {
    const line = lines[i];
    const t = text(line);
    if (/\*+\s*End of Statement\s*\*+/i.test(t)) break;
    if (/^Your Demat Account and Mutual Fund Folios/i.test(t)) {
      endTables();
      section = 'summary';
      continue;
    }
    if (section === 'summary') {
      if (/^In the (single|joint) names? of/i.test(t)) rosterHolders = [];
      else if (/\(PAN\s*:/i.test(t) && !/Demat Account/i.test(t)) rosterHolders.push(...holdersFrom(t));
      let tm: RegExpExecArray | null;
      if ((tm = /^(NSDL|CDSL) Demat Account\b(.*)$/i.exec(t))) {
        pendingValue = lastAmount(line);
        pendingType = tm[1].toUpperCase();
        const rest = squashText(tm[2].replace(/\s+[\d,.]+\s+[\d,.`₹]+$/, '').replace(IDS, ''));
        const above = i > 0 ? text(lines[i - 1]) : '';
        pendingName = rest || (!/\d|\(PAN|Demat Account|Name/i.test(above) ? above : '');
      }
      const ids = IDS.exec(t);
      if (ids) {
        const v = /Demat Account/i.test(t) ? lastAmount(line) : pendingValue;
        if (v !== null) declared.set(`${ids[1]}|${ids[2]}`, v);
        roster.push({
          type: pendingType || (/^IN/i.test(ids[1]) ? 'NSDL' : 'CDSL'),
          dpName: pendingName,
          dpId: ids[1],
          clientId: ids[2],
          holders: [...rosterHolders],
        });
        pendingValue = null;
        pendingType = '';
        pendingName = '';
        continue;
      }
      if (/^Grand Total\b/i.test(t)) {
        const v = lastAmount(line);
        if (v !== null) declared.set('grand', v);
        section = 'none';
      }
      continue;
    }
    // A demat account header (outside the summary): the line with its ids.
    const ids = IDS.exec(t);
    if (ids && !/^ISIN\b/i.test(t)) {
      endTables();
      i = account(i, ids) - 1;
      section = txnTab ? 'txns' : 'none';
      txnHolding = undefined;
      continue;
    }
    // A holding kind's heading (not a wrapped description line of a transaction: `... EQUITY`).
    const k = line.words.length <= 6 && (section as Section) !== 'txns' ? headingKind(t) : null;
    if (k && acc) {
      endTables();
      kind = k;
      section = 'holdings';
      continue;
    }
    if (openSection(t, headings, endTables)) continue;
    if (/^(NSDL|CDSL) Demat Account$/i.test(t) || /^DP Name\s*:/i.test(t)) continue;

    i = readers[section]?.(i, line) ?? i;
  }
  endTables();
  unreadSections(tables, warnings);
  // Accounts the summary lists that have no holdings section (nothing held): kept, with no holdings.
  for (const r of roster) {
    if (out.demat_accounts.some((a) => a.dp_id === r.dpId && a.client_id === r.clientId)) continue;
    out.demat_accounts.push(rosterAccount(r.type === 'CDSL', r.dpId, r.dpName, r.clientId, r.holders));
  }
  if (!out.demat_accounts.length && !out.mutual_funds.length)
    throw new DocumentError(
      'UnsupportedDocument',
      `no demat account ("DP ID: ... Client ID: ...") or mutual fund folio found after the investor block (page ${lines[idIdx].page}) of this depository_b statement`,
    );
  out.investor.pan ??= out.demat_accounts.flatMap((a) => a.linked_holders).find((h) => h.pan)?.pan ?? null;
  attachFolioBlocks(out, folioTxns.blocks, warnings);
  finishStatement(out, warnings, declared);
  return { data: out, warnings };
}

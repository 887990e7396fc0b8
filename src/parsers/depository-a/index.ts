/**
 * depository_a (CDSL) consolidated account statement -> Parsed statement. Pure.
 *
 * Read by content, in whatever order and on whatever page the sections come: the investor block
 * opened by `CAS ID` (page 1 may be a cover), the account summary (declared values for the
 * self-checks), mutual fund folio details (`Label : value` or a header row over a value row),
 * each demat account (`DP Name : ... BO ID : ...` or `DP ID : ... CLIENT ID : ...`, holders, BO
 * details, transactions per ISIN, the holding statement up to `Portfolio Value`), mutual fund units
 * held with the AMC, NPS and insurance.
 */
import { DocumentError } from '../../errors.js';
import type { Line, PdfDocument } from '../../pdf/model.js';
import { parseNumber } from '../../pdf/numbers.js';
import type {
  DematAccount,
  LinkedHolder,
  MutualFundFolio,
  NpsAccount,
  ParsedStatement,
  ParseWarning,
  Transaction,
} from '../../schema/index.js';
import { emptyStatement, noPeriod, type ParseResult } from '../common.js';
import { bodyLines, findPeriod, folioCell, FULL_ISIN, PAN, readInvestor, text } from '../depository/read.js';
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
import {
  findHolding,
  finishStatement,
  headingKind,
  holdersFrom,
  printedOpening,
  schemeFromFolioRow,
  type HoldingKind,
} from '../depository/shared.js';
import { attachFolioBlocks, FolioTxnReader } from '../depository/folio-txns.js';

type Section = 'none' | 'summary' | 'account' | 'txns' | 'holdings' | 'mfmeta' | 'mftxns' | 'mftable' | 'nps' | 'insurance';
interface Meta {
  amc: string;
  name: string;
  folio: string;
  isin: string;
  ucc: string;
  rta: string | null;
}

/** `DP Name : X  BO ID : 16 chars`, `... DPID : 16 chars`, `... DP ID : X  CLIENT ID : Y`. */
const ACCOUNT_LINE =
  /^DP Name\s*:?\s*(.+?)\s+(?:(?:(?:BO\s*ID|DPID)\s*:?\s*)+([A-Z0-9]{16})|DP\s*ID\s*:?\s*([A-Z0-9]{8})\s+CLIENT\s*ID\s*:?\s*(\d{8}))\b/i;
const META_LABELS =
  /\b(AMC Name|Scheme Name|Scheme Code|Folio No|Mode of Holding|Email id|KYC of Investor\/s|Mobile No|Nominee|UCC|ISIN|RTA)\b\s*:?\s*/gi;

/** A label or value drawn twice with no space between (`NAMENAME`) reads once. */
function undup(t: string): string {
  const h = t.length / 2;
  return t.length % 2 === 0 && t.slice(0, h) === t.slice(h) ? t.slice(0, h) : t;
}

function byIsinKind(isin: string): HoldingKind {
  if (isin.startsWith('INF')) return 'demat_mutual_funds';
  if (isin.startsWith('IN0')) return 'government_securities';
  return 'equities';
}

/** `FIRST HOLDER : name  PAN : x`, `First Holder Name : name  PAN No. : x`, `SOLE HOLDER : name (PAN: x)`; the PAN may stand on the next line. */
const HOLDER =
  /^(?:FIRST|SECOND|THIRD|SOLE|SOLE\s*\/\s*FIRST)\s+HOLDER(?:'?S)?(?:\s+NAME)?\s*:?\s*(.+?)(?:\s*\(?\s*\bPAN\b(?:\s*No\.?)?\s*:?\s*([A-Z]{5}[0-9X]{4}[A-Z])\s*\)?)?$/i;
const PAN_ALONE = /^\bPAN\b(?:\s*No\.?)?\s*:?\s*([A-Z]{5}[0-9X]{4}[A-Z])$/i;

/** BO detail labels, in any case, several on a line (`BO Status : x   BO Sub Status : y`); `Nomination` stands alone. */
const BO_LABELS =
  /\b(BO SUB STATUS|BO STATUS|BO TYPE|BSDA|ACCOUNT STATUS|FROZEN STATUS|NOMINEE|NOMINATION|RGESS|EMAIL ID|E-?MAIL|MOBILE NO\.?|MOBILE)\b\s*:?\s*/gi;

const BO_LABEL_FIRST = new RegExp(`^${BO_LABELS.source}`, 'i');

/** An account whose email was cut at a line end (`NAME@DOMAIN.` / `COM` below it). */
const emailCut = new WeakSet<DematAccount>();
/** The mobile number an account's details print (for the investor when the investor block has none). */
export const accountMobile = new WeakMap<DematAccount, string>();

/** An account's holders and BO details. */
function accountDetail(acc: DematAccount, t: string): void {
  let m: RegExpExecArray | null;
  const last = acc.linked_holders[acc.linked_holders.length - 1];
  const info = acc.additional_info;
  // A line of labels (the mobile printed a little lower than the email) does not continue it.
  if (emailCut.has(acc) && !BO_LABEL_FIRST.test(t)) {
    emailCut.delete(acc);
    // The rest of an email cut at the line end: the first word of the next line.
    if ((m = /^([a-z]{2,6}(?:\.[a-z]{2,6})?)\b/i.exec(t)) && info.email) {
      info.email = `${info.email}${m[1].toLowerCase()}`;
      t = t.slice(m[0].length).trim();
    }
  }
  if ((m = HOLDER.exec(t)) && m[1].trim())
    acc.linked_holders.push({ name: m[1].trim(), pan: m[2] && PAN.test(m[2]) ? m[2].toUpperCase() : null });
  else if ((m = PAN_ALONE.exec(t)) && last && !last.pan) last.pan = m[1].toUpperCase();
  else {
    const parts = t.split(BO_LABELS);
    for (let k = 1; k + 1 < parts.length; k += 2) {
      const label = parts[k]
        .toUpperCase()
        .replace(/[^A-Z]+/g, ' ')
        .trim();
      const value = parts[k + 1].trim();
      if (!value) continue;
      if (label === 'BO STATUS') info.bo_status = value;
      else if (label === 'BO SUB STATUS') info.bo_sub_status = value;
      else if (label === 'BO TYPE') info.bo_type = value;
      else if (label === 'BSDA') info.bsda = value;
      else if (label === 'ACCOUNT STATUS') info.status = value;
      else if (label === 'NOMINEE') info.nominee = value;
      else if ((label === 'EMAIL ID' || label === 'EMAIL' || label === 'E MAIL') && (m = /^(\S+@\S+)/.exec(value))) {
        info.email = m[1].toLowerCase();
        if (/\.$/.test(info.email) || !/@[^.]+\.[a-z]{2,}/.test(info.email)) emailCut.add(acc);
      } else if (label.startsWith('MOBILE') && (m = /^(\+?[\dX][\dX ]{6,}[\dX])\b/i.exec(value)))
        accountMobile.set(acc, m[1].replace(/\s/g, ''));
    }
  }
}

export function parseDepositoryA(doc: PdfDocument): ParseResult<ParsedStatement> {
  const lines = bodyLines(doc, (t, l) => t === 'Central Depository Services (India) Limited' && l.page > 1 && l.y < 30);
  const warnings: ParseWarning[] = [];
  const declared = new Map<string, number>();

  const period = findPeriod(lines);
  if (!period) throw noPeriod('"for the period from ... to ..."', 'depository_a statement');
  const out = emptyStatement('DEPOSITORY_A', period);

  const idIdx = lines.findIndex((l) => /^CAS ID\s*:?\s*[A-Z0-9]+/i.test(text(l)));
  if (idIdx >= 0) {
    out.investor.cas_id = /^CAS ID\s*:?\s*([A-Z0-9]+)/i.exec(text(lines[idIdx]))![1];
    const inv = readInvestor(lines, idIdx);
    Object.assign(out.investor, {
      name: inv.name,
      address: inv.address,
      pincode: inv.pincode,
      email: inv.email,
      mobile: inv.mobile,
      pan: inv.pan,
    });
  }

  let section: Section = 'none';
  let acc: DematAccount | undefined;
  let kind: HoldingKind | null = null;
  let txnIsin: string | null = null;
  const pending = new Map<DematAccount, { isin: string; txns: Transaction[] }[]>();
  const metas: Meta[] = [];
  /** Holders per account (`dp id|client id`) from the summary, for accounts that print no holder lines. */
  const roster = new Map<string, LinkedHolder[]>();
  let rosterHolders: LinkedHolder[] = [];
  /** Printed opening balances by account and ISIN. */
  const openings = new Map<string, number>();
  let meta: Meta | undefined;
  let oldScheme: Meta | undefined;
  let nps: NpsAccount | undefined;
  let pendingValue: number | null = null;

  const holdings = new Table(
    'isin',
    (f) => {
      if (!acc || !f.isin) return;
      acc.holdings[kind ?? byIsinKind(f.isin)].push(holdingOf(f));
    },
    'holding statement',
  );
  const txns = new Table(
    'date',
    (f, _ls, key) => {
      // depository_a's own table opens each ISIN's rows with the ISIN (and its security) in the first columns.
      if (FULL_ISIN.test(f.isin)) txnIsin = f.isin;
      const t = transactionOf(f, key);
      if (!t || !acc || !txnIsin) return;
      const list = pending.get(acc)!;
      const entry = list.find((e) => e.isin === txnIsin);
      if (entry) entry.txns.push(t);
      else list.push({ isin: txnIsin, txns: [t] });
    },
    'statement of transactions',
  );
  const metaRows = new Table('isin', (f) => {
    metas.push({
      amc: f.text.amc ?? '',
      name: f.text.name ?? '',
      folio: folioCell(f.text.folio),
      isin: f.isin,
      ucc: f.text.ucc ?? '',
      rta: f.text.rta ?? null,
    });
  });
  const folioTable = new Table('isin', (f) => {
    const folioNo = folioCell(f.text.folio);
    const m = metas.find((x) => x.isin === f.isin && (!folioNo || x.folio === folioNo)) ?? metas.find((x) => x.isin === f.isin);
    addScheme(
      m?.amc ?? '',
      folioNo || m?.folio || '',
      m?.rta ?? null,
      folioSchemeOf({ ...f, text: { ...f.text, name: f.text.name || m?.name || '' } }),
    );
  });
  const npsTable = new Table('tier', (f) => nps?.funds.push(npsFundOf(f)), 'NPS holdings');
  const policies = new Table('policy', (f) => out.insurance.life_insurance_policies.push(policyOf(f)), 'insurance policies');
  const tables = [holdings, txns, metaRows, folioTable, npsTable, policies];
  /** Transactions of the folios held with the MF/RTA (`STATEMENT OF TRANSACTIONS` under that heading). */
  const folioTxns = new FolioTxnReader();
  const endTables = (): void => {
    tables.forEach((t) => t.end());
    folioTxns.end();
  };

  function addScheme(amc: string, folioNo: string, rta: string | null, scheme: MutualFundFolio['schemes'][number]): void {
    folioOf(out, folioNo, amc, rta).schemes.push(scheme);
  }

  /** Section headings, wherever they are (a demat account's line and folio details aside). */
  const headings: Heading[] = [
    [
      /^(Consolidated Portfolio( Valuation)?|Summary of Investments|YOUR CONSOLIDATED PORTFOLIO|Your Demat Account and Mutual Fund Folios)$/i,
      () => (section = 'summary'),
    ],
    [
      /^STATEMENT OF TRANSACTIONS\b/i,
      () => {
        // Under `MUTUAL FUND UNITS HELD WITH MF/RTA`: the folios' transactions; else an account's.
        if (section === 'mfmeta' || section === 'mftxns') section = 'mftxns';
        else section = 'txns';
        txnIsin = null;
      },
    ],
    [
      /^HOLDING STATEMENT AS ON\b/i,
      () => {
        section = 'holdings';
        kind = null;
      },
    ],
    [
      /^MUTUAL FUND UNITS HELD WITH MF\s*\/\s*RTA/i,
      () => {
        section = 'mfmeta';
        acc = undefined;
      },
    ],
    [
      /^MUTUAL FUND UNITS HELD AS ON\b/i,
      () => {
        section = 'mftable';
        acc = undefined;
      },
    ],
    [
      /^NPS HOLDINGS$/i,
      () => {
        section = 'nps';
        nps = addNps(out);
      },
    ],
    [
      /^INSURANCE POLICIES$/i,
      () => {
        section = 'insurance';
        acc = undefined;
      },
    ],
  ];

  /** `Label : value` folio details, several on a line; older statements print the balances in the block too. */
  function folioDetails(t: string): void {
    const pairs: [string, string][] = [];
    const parts = t.split(META_LABELS);
    for (let k = 1; k + 1 < parts.length; k += 2) pairs.push([parts[k].toUpperCase().replace(/\s+/g, ' '), parts[k + 1].trim()]);
    for (const [label, value] of pairs) {
      if (label === 'AMC NAME') {
        meta = { amc: value, name: '', folio: '', isin: '', ucc: '', rta: null };
        metas.push(meta);
      } else if (meta) {
        if (label === 'SCHEME NAME') meta.name = value;
        else if (label === 'FOLIO NO') meta.folio = value.replace(/\s+/g, '');
        else if (label === 'UCC') meta.ucc = value;
        else if (label === 'ISIN') meta.isin = /^(IN[A-Z0-9]{9}[0-9])/.exec(value)?.[1] ?? value;
        else if (label === 'RTA') meta.rta = value;
      }
    }
    if (meta && /^Closing Bal/i.test(t)) {
      const n = (re: RegExp): number | null => parseNumber(re.exec(t)?.[1]);
      const units = n(/Closing Bal \(Units\)\s*:\s*([\d,.]+)/i) ?? 0;
      const nav = n(/NAV \([^)]*\)\s*:\s*([\d,.]+)/i);
      const cost = n(/Invested Value \([^)]*\)\s*:\s*([\d,.]+)/i);
      const value = n(/Valuation \([^)]*\)\s*:\s*([\d,.]+)/i) ?? 0;
      oldScheme = meta;
      addScheme(
        oldScheme.amc,
        oldScheme.folio,
        oldScheme.rta,
        schemeFromFolioRow(oldScheme.isin, oldScheme.name, units, nav, value, cost, null, true),
      );
      metas.pop();
      meta = undefined;
    }
  }

  /** `ISIN : ...` opens an ISIN's transactions; its `Opening Balance` row gives the units before them. */
  function transactionsOf(t: string, line: Line): boolean {
    if (/^Opening Balance\b/i.test(t) && acc && txnIsin) {
      const v = lastAmount(line);
      if (v !== null) openings.set(`${acc.dp_id}|${acc.client_id}|${txnIsin}`, v);
      return true;
    }
    const isin = /^ISIN\s*:\s*(IN[A-Z0-9]{9}[0-9])\b/.exec(t);
    if (!isin) return false;
    txns.flush();
    txnIsin = isin[1];
    return true;
  }

  /** `Portfolio Value` closes an account's holding statement with its declared value. */
  function portfolioValue(t: string, line: Line): boolean {
    if (!acc || !/^Portfolio Value\b/i.test(t)) return false;
    holdings.end();
    const v = lastAmount(
      line.words.some((w) => /^as$/i.test(w.text))
        ? {
            ...line,
            words: line.words.slice(
              0,
              line.words.findIndex((w) => /^as$/i.test(w.text)),
            ),
          }
        : line,
    );
    if (v !== null) declared.set(`${acc.dp_id}|${acc.client_id}`, v);
    section = 'none';
    return true;
  }

  /** A holding kind's heading inside the holding statement. */
  function holdingKind(t: string, line: Line): boolean {
    const k = line.words.length <= 8 ? headingKind(t) : null;
    if (!k) return false;
    holdings.flush();
    kind = k;
    return true;
  }

  /** Each section's reader of a body line: returns the index of the last line it read. */
  const readers: Partial<Record<Section, (i: number, line: Line, t: string) => number>> = {
    summary: (i, line, t) => {
      // The holders the accounts below are held in (`In the single name of` / `NAME (PAN : ...)`).
      if (/^In the (single|joint) names? of/i.test(t)) rosterHolders = [];
      else if (/\(\s*PAN\s*:/i.test(t) && !/Demat Account/i.test(t)) rosterHolders.push(...holdersFrom(t));
      if (/\b(CDSL|NSDL) Demat Account\b/i.test(t)) pendingValue = lastAmount(line);
      const ids = /DP\s*Id\s*:?\s*([A-Z0-9]{8})\s+Client\s*Id\s*:?\s*(\d{8})/i.exec(t);
      if (ids) roster.set(`${ids[1]}|${ids[2]}`, [...rosterHolders]);
      if (ids) {
        // The value ends the ids line or the account-type line above it; the ids themselves are no value.
        const own = { ...line, words: line.words.filter((w) => !w.text.includes(ids[1]) && !w.text.includes(ids[2])) };
        const v = lastAmount(own) ?? pendingValue;
        if (v !== null) declared.set(`${ids[1]}|${ids[2]}`, v);
        pendingValue = null;
      }
      if (/^(Grand )?Total\b/i.test(t)) {
        const v = lastAmount(line);
        if (v !== null) declared.set('grand', v);
      }
      return i;
    },
    account: (i, _line, t) => {
      if (acc) accountDetail(acc, t);
      return i;
    },
    txns: (i, line) => (acc ? tableLine(txns, lines, i, { pre: (u) => transactionsOf(u, line) }) : i),
    holdings: (i, line) =>
      acc ? tableLine(holdings, lines, i, { pre: (u) => portfolioValue(u, line), mid: (u) => holdingKind(u, line) }) : i,
    mfmeta: (i) => tableLine(metaRows, lines, i, { rest: folioDetails }),
    mftxns: (i) => folioTxns.feed(lines, i),
    mftable: (i) => tableLine(folioTable, lines, i),
    nps: (i) => npsSection(nps, npsTable, lines, i),
    insurance: (i) => tableLine(policies, lines, i),
  };

  const start = idIdx >= 0 ? idIdx + 1 : 0;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i];
    const t = text(line);
    let m: RegExpExecArray | null;

    if ((m = ACCOUNT_LINE.exec(t))) {
      endTables();
      const bo = m[2];
      const dpId = bo ? bo.slice(0, 8) : m[3];
      const clientId = bo ? bo.slice(8) : m[4];
      acc = out.demat_accounts.find((a) => a.dp_id === dpId && a.client_id === clientId);
      if (!acc) {
        acc = dematAccount(!/^IN/i.test(dpId), dpId, undup(squashText(m[1])), clientId, [], {});
        out.demat_accounts.push(acc);
        pending.set(acc, []);
      }
      section = 'account';
      kind = null;
      continue;
    }
    if (openSection(t, headings, endTables)) continue;
    // Folio details (`AMC Name : ...` blocks) also sit on the account-details page of some templates.
    if (/^AMC Name\s*:/i.test(t) && section !== 'mfmeta') {
      endTables();
      section = 'mfmeta';
      acc = undefined;
    }
    // Group headings (also repeated as a page's running title): no new section by themselves.
    if (/^(DEMAT ACCOUNTS HELD WITH (CDSL|NSDL)|(CDSL|NSDL) DEMAT ACCOUNT)$/i.test(t)) continue;

    i = readers[section]?.(i, line, t) ?? i;
  }
  endTables();
  unreadSections(tables, warnings);

  for (const [a, list] of pending) {
    for (const { isin, txns: ts } of list) {
      const h = findHolding(a, isin);
      const open = openings.get(`${a.dp_id}|${a.client_id}|${isin}`);
      if (h && open !== undefined) printedOpening.set(h, open);
      if (h) h.transactions.push(...ts);
      else
        warnings.push({
          code: 'OrphanTransactions',
          message: `transactions for ${isin} but no such holding in account ${a.dp_id} ${a.client_id}`,
        });
    }
  }
  for (const a of out.demat_accounts)
    if (!a.linked_holders.length) a.linked_holders.push(...(roster.get(`${a.dp_id}|${a.client_id}`) ?? []));
  if (!out.demat_accounts.length && !out.mutual_funds.length) {
    const where = idIdx >= 0 ? `after the investor block on page ${lines[idIdx].page}` : 'anywhere (no "CAS ID" line either)';
    throw new DocumentError(
      'UnsupportedDocument',
      `no demat account ("DP Name : ... BO ID : ...") or mutual fund folio found ${where} in this depository_a statement`,
    );
  }
  // Email and mobile from the account details when the investor block prints none (the first CDSL account's).
  const first = out.demat_accounts.find((a) => a.demat_type === 'DEPOSITORY_A' && (a.additional_info.email || accountMobile.has(a)));
  if (first && !out.investor.email && !out.investor.mobile) {
    out.investor.email = first.additional_info.email ?? null;
    out.investor.mobile = accountMobile.get(first) ?? null;
  }
  out.investor.pan ??=
    out.demat_accounts.flatMap((a) => a.linked_holders).find((h) => h.pan)?.pan ??
    out.nps.flatMap((n) => n.linked_holders).find((h) => h.pan)?.pan ??
    null;
  attachFolioBlocks(out, folioTxns.blocks, warnings);
  finishStatement(out, warnings, declared);
  return { data: out, warnings };
}

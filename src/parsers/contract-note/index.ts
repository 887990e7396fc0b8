/**
 * Broker contract notes -> Contract note response. Pure.
 * Small section readers (note header, trade table, obligation and derivatives summaries,
 * charges) over shared helpers; each reads by content, with geometry only to tell columns apart.
 * A broker's registry file (src/formats/brokers) only declares its labels; brokers without one
 * go through the generic vocabulary. Charges are reported as positive amounts; the pay-in/pay-out obligation
 * and the net amount keep their sign (negative: payable by client).
 */
import { DocumentError } from '../../errors.js';
import { brokerById, brokerIn } from '../../formats/index.js';
import { allLines, type PdfDocument } from '../../pdf/model.js';
import { isNumber, round } from '../../pdf/numbers.js';
import type { BrokerType, ContractNote, ParseWarning } from '../../schema/index.js';
import type { ParseResult } from '../common.js';
import { readChargeColumns, readCharges, segmentHeader } from './charges.js';
import { readNoteHeader } from './header.js';
import { isDerivativeBlock, scripHeaderAt, ScripSummaryReader, scripToDerivatives, scripToEquity } from './scrip-summary.js';
import { computeSummaries, reconcile, reconcileDerivatives } from './summary-check.js';
import { derivRow, equityRow, summaryHeaderAt } from './summaries.js';
import { assemble, headerLike, TradeTableReader, tradeHeaderAt, type TableEvent, type Trade } from './trades.js';

/** The broker a note names on its first lines (the registry's markers), or 'unknown'. */
export function detectBroker(text: string): BrokerType {
  return brokerIn(text)?.id ?? 'unknown';
}

const SUBTOTAL = /\b(sub\s*-?\s*total|total)\b/i;
const TABLE_END = /^\s*(net\s+total|grand\s+total)\b/i;

export function parseContractNote(doc: PdfDocument, opts: { broker?: BrokerType } = {}): ParseResult<ContractNote> {
  const lines = allLines(doc);
  const warnings: ParseWarning[] = [];
  const headText = lines
    .slice(0, 30)
    .map((l) => l.text)
    .join('\n');
  const detected = detectBroker(headText);
  if (opts.broker && opts.broker !== 'unknown' && detected !== 'unknown' && opts.broker !== detected) {
    throw new DocumentError(
      'TypeMismatch',
      `--broker ${opts.broker} was given, but this contract note is from ${detected}; refusing to read it with the wrong layout`,
    );
  }
  const brokerType: BrokerType = opts.broker ?? detected;
  const layout = brokerType === 'unknown' ? undefined : brokerById(brokerType).labels;
  // A broker named with --broker must show its own header; a detected one may use any wording.
  const tableLayout = opts.broker && opts.broker !== 'unknown' ? layout : undefined;

  // Trade tables, obligation and derivatives summaries, in one pass.
  const trades: Trade[] = [];
  const equity: ContractNote['equity_transactions'] = [];
  const deriv: ContractNote['derivatives_transactions'] = [];
  let firstHeader = -1;
  const used = new Set<number>();
  let reader: TradeTableReader | null = null;
  let events: TableEvent[] = [];
  let summary: ReturnType<typeof summaryHeaderAt> = null;
  let scrip: ScripSummaryReader | null = null;
  const scrips: ScripSummaryReader[] = [];
  /** Pages of the equity summary rows (for warnings). */
  const eqPages: number[] = [];
  const flush = (): void => {
    if (events.length) trades.push(...assemble(events));
    events = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (headerLike(l) || /^\d$/.test(l.text.trim())) {
      const th = tradeHeaderAt(lines, i, tableLayout);
      if (th) {
        if (firstHeader < 0) firstHeader = th.first;
        // The same table continued on a new page keeps its events; a new table starts afresh.
        const heading = reader?.exchangeHeading ?? '';
        reader = new TradeTableReader(th);
        reader.exchangeHeading = heading;
        events.push({ kind: 'header' });
        summary = null;
        i = th.last;
        continue;
      }
    }
    const sh = firstHeader >= 0 ? summaryHeaderAt(lines, i) : null;
    if (sh) {
      flush();
      reader = null;
      scrip = null;
      summary = sh;
      i = sh.last;
      continue;
    }
    const sc = firstHeader >= 0 ? scripHeaderAt(lines, i) : null;
    if (sc) {
      flush();
      reader = null;
      summary = null;
      // The same summary continued on a new page under a repeated header keeps its blocks, also
      // when the note's header lines (page furniture) ended it on the page before.
      const prev = scrips[scrips.length - 1];
      if (!scrip && prev?.continueUnder(sc, l.page)) scrip = prev;
      if (!scrip) {
        scrip = new ScripSummaryReader(sc);
        scrips.push(scrip);
      }
      i = sc.last;
      continue;
    }
    if (scrip) {
      if (segmentHeader(l) || !scrip.feed(l)) scrip = null;
      else {
        used.add(i);
        continue;
      }
    }
    if (reader) {
      if (reader.isAnchor(l)) {
        const r = reader.parseAnchor(l);
        if (r) events.push({ kind: 'anchor', trade: r.trade, desc: r.desc, y: l.y, page: l.page });
        used.add(i);
        continue;
      }
      if (TABLE_END.test(l.text)) {
        events.push({ kind: 'cut' });
        flush();
        reader = null;
        continue;
      }
      reader.noteHeading(l);
      // Times stacked under their order / trade numbers belong to the trade above.
      const st = reader.splitTimes(l);
      let rest = l.words;
      if (st) {
        const a = [...events].reverse().find((e) => e.kind === 'anchor');
        if (a?.kind === 'anchor') for (const [k, v] of Object.entries(st.times) as [keyof typeof st.times, string][]) a.trade[k] ||= v;
        rest = st.rest;
        if (!rest.length) {
          used.add(i);
          continue;
        }
      }
      const f = SUBTOTAL.test(l.text) ? null : reader.fragment(l, rest);
      events.push(f ? { kind: 'frag', text: f, y: l.y, page: l.page } : { kind: 'cut' });
      continue;
    }
    // A summary table ends at the charges header or at any line without a figure (a heading).
    if (summary && (segmentHeader(l) || !l.words.some((w) => isNumber(w.text)))) summary = null;
    if (summary) {
      if (summary.kind === 'equity') {
        const r = equityRow(l, summary);
        if (r) equity.push(r);
        if (r) eqPages.push(l.page);
        if (r) used.add(i);
      } else {
        const r = derivRow(l, summary);
        if (r) deriv.push(r);
        if (r) used.add(i);
      }
    }
  }
  flush();
  const scripRows = new Set<ContractNote['equity_transactions'][number]>();
  /** Derivatives rows of the scrip summaries, and their pages (reconciled with the trades). */
  const scripDeriv: ContractNote['derivatives_transactions'] = [];
  const dvPages: number[] = [];
  for (const sr of scrips) {
    sr.settle();
    for (const b of sr.blocks) {
      if (isDerivativeBlock(b)) {
        const { rows, problems } = scripToDerivatives(b);
        scripDeriv.push(...rows);
        dvPages.push(...rows.map(() => b.page));
        for (const p of problems) warnings.push({ code: 'SummaryMismatch', message: `${b.name} (scrip summary, page ${b.page}): ${p}` });
        continue;
      }
      const { row, problems } = scripToEquity(b);
      equity.push(row);
      scripRows.add(row);
      eqPages.push(b.page);
      for (const p of problems) warnings.push({ code: 'SummaryMismatch', message: `${b.name} (scrip summary, page ${b.page}): ${p}` });
    }
  }
  deriv.push(...scripDeriv);
  const printedEquity = equity.length > 0;
  const printedDeriv = deriv.length > 0;

  if (firstHeader < 0) {
    throw new DocumentError(
      'ParseFailed',
      layout && tableLayout
        ? `the trade table of a ${brokerType} contract note was not found (page 1 onwards); if this note is from another broker, leave out --broker`
        : 'no trade table found in this contract note (looked for a header naming trade/order numbers, security, buy/sell, quantity and net total on every page)',
    );
  }
  const head = readNoteHeader(lines.slice(0, firstHeader), layout);
  if (!head.info.trade_date || !head.info.contract_note_number) {
    const page = lines[0]?.page ?? 1;
    throw new DocumentError(
      'ParseFailed',
      `no contract note number or trade date found in the note header (page ${page}, before the trade table): this does not read as a contract note`,
    );
  }

  let charges = readCharges(lines, firstHeader, layout, warnings, used);
  if (!charges.obligation) {
    const cols = readChargeColumns(lines, firstHeader, used);
    if (cols.net !== undefined) charges = { ...charges, ...cols };
  }
  const out: ContractNote = {
    broker_info: { broker_type: brokerType, ...head.broker },
    client_info: head.client,
    contract_note_info: head.info,
    equity_transactions: equity,
    derivatives_transactions: deriv,
    detailed_trades: trades,
    charges_summary: {
      cgst: charges.cgst ?? 0,
      sgst: charges.sgst ?? 0,
      igst: charges.igst ?? 0,
      exchange_transaction_charges: charges.exchange ?? 0,
      regulator_turnover_fees: charges.sebi ?? 0,
      securities_transaction_tax: charges.stt ?? 0,
      stamp_duty: charges.stamp ?? 0,
      taxable_value_brokerage: charges.brokerage ?? 0,
      pay_in_pay_out_obligation: charges.obligation ?? 0,
      net_amount_receivable_payable: charges.net ?? 0,
    },
  };

  // Summaries the note does not print are computed from its trades, and said so.
  const computed = computeSummaries(trades, { equity: !printedEquity, derivatives: !printedDeriv });
  if (computed.equity.length) {
    out.equity_transactions = computed.equity;
    warnings.push({
      code: 'SummaryComputed',
      message: `no per-security equity summary printed: ${computed.equity.length} computed from the trades (values are net of brokerage)`,
    });
  }
  if (computed.derivatives.length) {
    out.derivatives_transactions = computed.derivatives;
    warnings.push({
      code: 'SummaryComputed',
      message: `no derivatives summary printed: ${computed.derivatives.length} rows computed from the trades (carry-forward rows are not known)`,
    });
  }

  // Self-checks.
  if (printedEquity) warnings.push(...reconcile(out.equity_transactions, eqPages, trades));
  if (scripDeriv.length) warnings.push(...reconcileDerivatives(scripDeriv, dvPages, trades));
  for (const e of out.equity_transactions) {
    // A scrip summary's net amount includes the charges: it is checked by quantity and value instead.
    if (scripRows.has(e)) continue;
    const list = out.detailed_trades.filter((d) => d.security_description === e.security_name);
    if (!list.length) continue;
    const sum = round(
      list.reduce((s, d) => s + d.net_total, 0),
      2,
    );
    if (Math.abs(sum - e.net_obligation) > 0.011)
      warnings.push({
        code: 'ObligationMismatch',
        message: `${e.security_name}: trades add up to ${sum}, the obligation is ${e.net_obligation}`,
      });
  }
  const cs = out.charges_summary;
  const clearing = charges.clearing ?? 0;
  const base = cs.taxable_value_brokerage + cs.exchange_transaction_charges + cs.regulator_turnover_fees + clearing;
  const gst = round(cs.cgst + cs.sgst + cs.igst, 2);
  // Templates differ on whether SEBI fees carry GST (`@9% of Brok, Trans & Clearing Charges`).
  // Brokers that compute GST per trade differ from 18% of the totals by rounding: up to a paisa a
  // trade (CGST and SGST each rounded to half a paisa), or 0.2%.
  const gstTol = Math.max(0.021, gst * 0.002, 0.01 * trades.length);
  const gstOk = [base, base - cs.regulator_turnover_fees].some((b) => Math.abs(gst - round(b * 0.18, 2)) <= gstTol);
  if (!gstOk)
    warnings.push({
      code: 'GstMismatch',
      message: `GST ${gst} is not 18% of brokerage + exchange + turnover fees + clearing (${round(base * 0.18, 2)})`,
    });
  const expectNet = round(cs.pay_in_pay_out_obligation - base - gst - cs.securities_transaction_tax - cs.stamp_duty, 2);
  if (Math.abs(expectNet - cs.net_amount_receivable_payable) > 0.021)
    warnings.push({
      code: 'NetMismatch',
      message: `net amount ${cs.net_amount_receivable_payable} != obligation - charges (${expectNet})`,
    });
  return { data: out, warnings };
}

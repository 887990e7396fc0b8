/**
 * Broker contract notes -> Contract note response. Pure.
 * The broker's own layout module (labels, column order) is used when the broker is known;
 * other brokers go through the generic fallback. Charges are reported as positive amounts;
 * the pay-in/pay-out obligation and the net amount keep their sign (negative: payable by client).
 */
import { DocumentError } from '../../errors.js';
import type { Line, PdfDocument } from '../../pdf/model.js';
import { allLines } from '../../pdf/model.js';
import { matchHeader, splitCells, type Column } from '../../pdf/table.js';
import { isNumber, parseDate, parseNumber, round } from '../../pdf/numbers.js';
import type { BrokerType, ContractNote, ParseWarning } from '../../schema/index.js';
import type { ParseResult } from '../common.js';
import type { Label } from '../depository/shared.js';
import { brokerA } from './layouts/broker-a.js';
import { brokerB } from './layouts/broker-b.js';
import { brokerC } from './layouts/broker-c.js';
import { brokerD } from './layouts/broker-d.js';
import { GENERIC_CHARGES, genericTradeHeader } from './layouts/generic.js';
import type { BrokerLayout, ChargeKey } from './layouts/types.js';

export const LAYOUTS: Record<Exclude<BrokerType, 'unknown'>, BrokerLayout> = { broker_a: brokerA, broker_b: brokerB, broker_c: brokerC, broker_d: brokerD };

const BROKER_MARKERS: [Exclude<BrokerType, 'unknown'>, RegExp][] = [
  ['broker_a', /Zerodha/i], ['broker_b', /Groww|Nextbillion Technology/i], ['broker_c', /Upstox|RKSV Securities/i], ['broker_d', /ICICI\s+Securities|ICICI\s*direct/i],
];

const EQUITY_HEADER: Label[] = [{ name: 'name', label: 'Security Name', align: 'left' }, { name: 'symbol', label: 'Symbol', align: 'left' }, { name: 'isin', label: 'ISIN', align: 'left' }, { name: 'bq', label: 'Buy Qty', align: 'right' }, { name: 'bw', label: 'Buy WAP', align: 'right' }, { name: 'bt', label: 'Buy Total', align: 'right' }, { name: 'sq', label: 'Sell Qty', align: 'right' }, { name: 'sw', label: 'Sell WAP', align: 'right' }, { name: 'st', label: 'Sell Total', align: 'right' }, { name: 'net', label: 'Net Obligation', align: 'right' }];
const DERIV_HEADER: Label[] = [{ name: 'desc', label: 'Contract Description', align: 'left' }, { name: 'side', label: 'Buy/Sell/BF/CF', align: 'left' }, { name: 'qty', label: 'Quantity', align: 'right' }, { name: 'wap', label: 'WAP Per Unit', align: 'right' }, { name: 'closing', label: 'Closing Rate Per Unit', align: 'right' }, { name: 'bpu', label: 'Brokerage Per Unit', align: 'right' }, { name: 'net', label: 'Net Total', align: 'right' }];

const squash = (l: Line): string => l.text.replace(/\s{2,}/g, ' ').trim();

export function detectBroker(text: string): BrokerType {
  return BROKER_MARKERS.find(([, re]) => re.test(text))?.[0] ?? 'unknown';
}

function field(pieces: string[], re: RegExp): string | null {
  for (const p of pieces) {
    const m = re.exec(p);
    if (m) return m[1].trim();
  }
  return null;
}

const SIDE: Record<string, 'B' | 'S'> = { b: 'B', buy: 'B', s: 'S', sell: 'S' };
const DERIV_SIDE: Record<string, ContractNote['derivatives_transactions'][number]['buy_sell_bf_cf']> = { buy: 'buy', b: 'buy', sell: 'sell', s: 'sell', 'bring forward': 'bring forward', bf: 'bring forward', 'carry forward': 'carry forward', cf: 'carry forward' };

export function parseContractNote(doc: PdfDocument, opts: { broker?: BrokerType } = {}): ParseResult<ContractNote> {
  const lines = allLines(doc);
  const warnings: ParseWarning[] = [];
  const head = lines.slice(0, 20);
  const headText = head.map(squash).join('\n');
  const detected = detectBroker(headText);
  if (opts.broker && opts.broker !== 'unknown' && detected !== 'unknown' && opts.broker !== detected) {
    throw new DocumentError('TypeMismatch', `--broker ${opts.broker} was given, but this contract note is from ${detected}; refusing to read it with the wrong layout`);
  }
  const brokerType: BrokerType = opts.broker ?? detected;
  const layout = brokerType === 'unknown' ? undefined : LAYOUTS[brokerType];

  const pieces = head.flatMap((l) => l.pieces.map((p) => p.text.trim()));
  const tradeDate = parseDate(field(pieces, /^Trade Date\s*:\s*(.+)$/i));
  const cnNumber = field(pieces, /^(?:Contract Note (?:No\.?|Number)|CN No\.?)\s*:\s*(\S+)$/i);
  if (!tradeDate || !cnNumber) throw new DocumentError('ParseFailed', 'no contract note number or trade date found: this does not read as a contract note');
  const out: ContractNote = {
    broker_info: {
      broker_type: brokerType,
      name: head[0]?.pieces[0]?.text.trim() ?? '',
      regulator_registration: /\b(INZ\d{9})\b/.exec(headText)?.[1] ?? field(pieces, /SEBI Regn?\.? (?:No\.?)?\s*:?\s*(\S+)/i),
    },
    client_info: {
      name: field(pieces, /^(?:Name of the Client|Client Name|Name)\s*:\s*(.+)$/i) ?? '',
      pan: field(pieces, /^(?:PAN|Client PAN|PAN of Client)\s*:\s*([A-Z]{5}\d{4}[A-Z])$/i),
      ucc: field(pieces, /^(?:UCC|Client Code \(UCC\)|Unique Client Code|Client Code)\s*:\s*(\S+)$/i),
      address: field(pieces, /^(?:Client Address|Address)\s*:\s*(.+)$/i),
      gst_state_code: field(pieces, /^(?:GST State Code|State Code)\s*:\s*(\d{1,2})$/i),
      place_of_supply: field(pieces, /^Place of Supply\s*:\s*(.+)$/i),
    },
    contract_note_info: {
      contract_note_number: cnNumber,
      settlement_number: field(pieces, /^Settlement (?:No\.?|Number)\s*:\s*(\S+)$/i),
      trade_date: tradeDate,
      settlement_date: parseDate(field(pieces, /^Settlement Date\s*:\s*(.+)$/i)),
    },
    equity_transactions: [],
    derivatives_transactions: [],
    detailed_trades: [],
    charges_summary: { cgst: 0, sgst: 0, igst: 0, exchange_transaction_charges: 0, regulator_turnover_fees: 0, securities_transaction_tax: 0, stamp_duty: 0, taxable_value_brokerage: 0, pay_in_pay_out_obligation: 0, net_amount_receivable_payable: 0 },
  };

  type Mode = 'none' | 'trades' | 'equity' | 'deriv' | 'charges';
  let mode: Mode = 'none';
  let cols: Column[] | null = null;
  let tradeCols: Column[] | null = null;
  let chargeCols: number[] | null = null;
  const charges: Partial<Record<ChargeKey, number>> = {};
  let sawTradeHeader = false;

  for (const line of lines) {
    const t = squash(line);
    const th = layout ? matchHeader(line, layout.trades) : genericTradeHeader(line);
    if (th) {
      tradeCols = th;
      sawTradeHeader = true;
      mode = 'trades';
      continue;
    }
    if (/^Sub total\b|^Net total\b/i.test(t) && mode === 'trades') {
      mode = 'none';
      continue;
    }
    if (/^Equity Obligation Details$/i.test(t)) {
      mode = 'equity';
      cols = null;
      continue;
    }
    if (/^Derivatives Summary$/i.test(t)) {
      mode = 'deriv';
      cols = null;
      continue;
    }
    if (/^Charges\b/i.test(line.pieces[0]?.text ?? '') && line.pieces.length >= 3 && !line.pieces.slice(1).some((p) => isNumber(p.text))) {
      mode = 'charges';
      chargeCols = line.pieces.slice(1).map((p) => p.x1);
      continue;
    }
    if (mode === 'trades' && tradeCols) {
      const c = splitCells(line, tradeCols);
      const side = SIDE[(c.bs ?? '').trim().toLowerCase()];
      if (!c.tradeNo || !side || !c.qty) continue;
      out.detailed_trades.push({
        order_number: (c.orderNo ?? '').trim(), order_time: (c.orderTime ?? '').trim(), trade_number: c.tradeNo.trim(), trade_time: (c.tradeTime ?? '').trim(),
        security_description: (c.security ?? '').trim(), exchange: (c.exchange ?? '').trim(), remarks: c.remarks?.trim() || null, buy_sell: side,
        quantity: parseNumber(c.qty) ?? 0, net_rate_per_unit: parseNumber(c.netRate) ?? 0, closing_rate_per_unit: parseNumber(c.closing), brokerage: parseNumber(c.bpu) ?? 0, net_total: parseNumber(c.netTotal) ?? 0,
      });
      continue;
    }
    if (mode === 'equity') {
      const h = matchHeader(line, EQUITY_HEADER);
      if (h) {
        cols = h;
        continue;
      }
      if (!cols) continue;
      const c = splitCells(line, cols);
      if (!c.name || c.net === undefined) continue;
      out.equity_transactions.push({
        security_name: c.name.trim(), security_symbol: c.symbol?.trim() || null, isin: c.isin?.trim() || null,
        buy_quantity: parseNumber(c.bq) ?? 0, buy_wap: parseNumber(c.bw) ?? 0, buy_total_value: parseNumber(c.bt) ?? 0,
        sell_quantity: parseNumber(c.sq) ?? 0, sell_wap: parseNumber(c.sw) ?? 0, sell_total_value: parseNumber(c.st) ?? 0, net_obligation: parseNumber(c.net) ?? 0,
      });
      continue;
    }
    if (mode === 'deriv') {
      const h = matchHeader(line, DERIV_HEADER);
      if (h) {
        cols = h;
        continue;
      }
      if (!cols) continue;
      const c = splitCells(line, cols);
      const side = DERIV_SIDE[(c.side ?? '').trim().toLowerCase()];
      if (!c.desc || !side) continue;
      out.derivatives_transactions.push({
        contract_description: c.desc.trim(), buy_sell_bf_cf: side, quantity: parseNumber(c.qty) ?? 0, wap_per_unit: parseNumber(c.wap) ?? 0,
        closing_rate_per_unit: parseNumber(c.closing), brokerage_per_unit: parseNumber(c.bpu) ?? 0, net_total: parseNumber(c.net) ?? 0,
      });
      continue;
    }
    if (mode === 'charges' && chargeCols) {
      const label = line.pieces[0]?.text.trim() ?? '';
      const nums = line.pieces.slice(1).filter((p) => isNumber(p.text));
      if (!nums.length) {
        if (Object.keys(charges).length) mode = 'none';
        continue;
      }
      // The NET TOTAL column: the number whose right edge is nearest the last heading.
      const lastX = chargeCols[chargeCols.length - 1];
      const cell = nums.reduce((a, b) => (Math.abs(b.x1 - lastX) < Math.abs(a.x1 - lastX) ? b : a));
      const key = layout?.charges.find(([, l]) => label.toLowerCase().startsWith(l.toLowerCase()))?.[0] ?? GENERIC_CHARGES.find(([, re]) => re.test(label))?.[0];
      if (!key) {
        warnings.push({ code: 'UnknownChargeRow', message: `charge row '${label}' is not recognised and was left out` });
        continue;
      }
      const v = parseNumber(cell.text) ?? 0;
      charges[key] = key === 'obligation' || key === 'net' ? v : Math.abs(v);
    }
  }
  if (!sawTradeHeader) {
    throw new DocumentError('ParseFailed', layout ? `the trade table of a ${brokerType} contract note was not found; if this note is from another broker, leave out --broker` : 'no trade table found in this contract note');
  }
  const cs = out.charges_summary;
  cs.pay_in_pay_out_obligation = charges.obligation ?? 0;
  cs.taxable_value_brokerage = charges.brokerage ?? 0;
  cs.exchange_transaction_charges = charges.exchange ?? 0;
  cs.cgst = charges.cgst ?? 0;
  cs.sgst = charges.sgst ?? 0;
  cs.igst = charges.igst ?? 0;
  cs.securities_transaction_tax = charges.stt ?? 0;
  cs.regulator_turnover_fees = charges.sebi ?? 0;
  cs.stamp_duty = charges.stamp ?? 0;
  cs.net_amount_receivable_payable = charges.net ?? 0;

  // Self-checks.
  for (const e of out.equity_transactions) {
    const trades = out.detailed_trades.filter((d) => d.security_description === e.security_name);
    if (!trades.length) continue;
    const sum = round(trades.reduce((s, d) => s + d.net_total, 0), 2);
    if (Math.abs(sum - e.net_obligation) > 0.011) warnings.push({ code: 'ObligationMismatch', message: `${e.security_name}: trades add up to ${sum}, the obligation is ${e.net_obligation}` });
  }
  const clearing = charges.clearing ?? 0;
  const base = cs.taxable_value_brokerage + cs.exchange_transaction_charges + cs.regulator_turnover_fees + clearing;
  const gst = round(cs.cgst + cs.sgst + cs.igst, 2);
  if (Math.abs(gst - round(base * 0.18, 2)) > 0.021) warnings.push({ code: 'GstMismatch', message: `GST ${gst} is not 18% of brokerage + exchange + turnover fees + clearing (${round(base * 0.18, 2)})` });
  const expectNet = round(cs.pay_in_pay_out_obligation - base - gst - cs.securities_transaction_tax - cs.stamp_duty, 2);
  if (Math.abs(expectNet - cs.net_amount_receivable_payable) > 0.021) warnings.push({ code: 'NetMismatch', message: `net amount ${cs.net_amount_receivable_payable} != obligation - charges (${expectNet})` });
  return { data: out, warnings };
}

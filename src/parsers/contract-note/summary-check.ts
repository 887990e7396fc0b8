/**
 * Per-security summaries against the trades: computed from the trades when a note prints none,
 * and, when it prints one, each security's quantities and values reconciled with its trades
 * (warnings `SummaryMismatch` naming the security and page). Pure.
 */
import { round } from '../../pdf/numbers.js';
import type { ContractNote, ParseWarning } from '../../schema/index.js';
import { normText } from '../common/labels.js';

type Trade = ContractNote['detailed_trades'][number];
type Equity = ContractNote['equity_transactions'][number];
type Deriv = ContractNote['derivatives_transactions'][number];

const DERIV_EXCH = /^(nfo|bfo|mcx|cds|bcd|ncdex|nse-?fo|bse-?fo)$/i;
const DERIV_DESC = /\b(fut|futidx|futstk|futcur|futcom|optidx|optstk|optcur|ce|pe|call|put)\b|\d{2}[a-z]{3}\d{2,4}/i;

/** A trade of the derivatives segment (by its exchange, else by its description: expiry, FUT, CE/PE). */
export const isDerivative = (t: Trade): boolean =>
  DERIV_EXCH.test(t.exchange) ||
  (!/^(nse|bse)$/i.test(t.exchange) && DERIV_DESC.test(t.security_description)) ||
  DERIV_DESC.test(t.security_description);

export function computeSummaries(
  trades: Trade[],
  want: { equity: boolean; derivatives: boolean },
): { equity: Equity[]; derivatives: Deriv[] } {
  const equity: Equity[] = [];
  if (want.equity) {
    const by = new Map<string, Trade[]>();
    for (const t of trades) if (!isDerivative(t)) by.set(t.security_description, [...(by.get(t.security_description) ?? []), t]);
    for (const [name, list] of by) {
      const side = (bs: 'B' | 'S'): { qty: number; total: number; wap: number } => {
        const l = list.filter((t) => t.buy_sell === bs);
        const qty = l.reduce((a, t) => a + t.quantity, 0);
        const total = round(
          l.reduce((a, t) => a + Math.abs(t.net_total), 0),
          2,
        );
        return { qty, total, wap: qty ? round(total / qty, 4) : 0 };
      };
      const b = side('B');
      const s = side('S');
      equity.push({
        security_name: name,
        security_symbol: null,
        isin: null,
        buy_quantity: b.qty,
        buy_wap: b.wap,
        buy_total_value: b.total,
        sell_quantity: s.qty,
        sell_wap: s.wap,
        sell_total_value: s.total,
        net_obligation: round(s.total - b.total, 2),
      });
    }
  }
  const derivatives: Deriv[] = want.derivatives
    ? trades.filter(isDerivative).map((t) => ({
        contract_description: t.security_description,
        buy_sell_bf_cf: t.buy_sell === 'B' ? 'buy' : 'sell',
        quantity: t.quantity,
        wap_per_unit: t.net_rate_per_unit,
        closing_rate_per_unit: t.closing_rate_per_unit,
        brokerage_per_unit: t.brokerage,
        net_total: t.net_total,
      }))
    : [];
  return { equity, derivatives };
}

/**
 * A side's gross value from its trades, two ways: quantity x (net rate less brokerage), and the net
 * totals less quantity x brokerage (a net rate printed to two decimals loses up to half a paisa a
 * unit, which a lot of 1,500 turns into rupees).
 */
function grossOf(side: Trade[], bs: 'B' | 'S'): number[] {
  const k = bs === 'B' ? -1 : 1;
  return [
    side.reduce((a, t) => a + t.quantity * (t.net_rate_per_unit + k * t.brokerage), 0),
    side.reduce((a, t) => a + Math.abs(t.net_total) + k * t.quantity * t.brokerage, 0),
  ];
}

const compact = (s: string): string => s.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** The trades of a summary row's security: its ISIN in their description, the same name, or one name starting the other (spaces aside). */
function tradesOf(e: Equity, trades: Trade[]): Trade[] {
  if (e.isin) {
    const byIsin = trades.filter((t) => t.security_description.includes(e.isin!));
    if (byIsin.length) return byIsin;
  }
  const n = normText(e.security_name);
  const same = trades.filter((t) => normText(t.security_description) === n);
  if (same.length) return same;
  const c = compact(e.security_name);
  return trades.filter((t) => {
    const d = compact(t.security_description);
    return d.length >= 6 && c.length >= 6 && (d.startsWith(c) || c.startsWith(d));
  });
}

/**
 * Quantities must equal the trades'; a side's value must equal the trades' value either gross
 * (quantity x rate) or net of brokerage (the net totals), to a cent per trade.
 */
export function reconcile(rows: Equity[], pages: number[], trades: Trade[]): ParseWarning[] {
  const out: ParseWarning[] = [];
  rows.forEach((e, k) => {
    const list = tradesOf(
      e,
      trades.filter((t) => !isDerivative(t)),
    );
    if (!list.length) return;
    const where = `${e.security_name} (summary, page ${pages[k] ?? '?'})`;
    for (const [bs, qty, value, word] of [
      ['B', e.buy_quantity, e.buy_total_value, 'bought'],
      ['S', e.sell_quantity, e.sell_total_value, 'sold'],
    ] as const) {
      const w = sideMismatch(
        where,
        word,
        list.filter((t) => t.buy_sell === bs),
        bs,
        qty,
        value,
      );
      if (w) out.push(w);
    }
  });
  return out;
}

/**
 * One side of a summary row against its trades: the quantity must be theirs, the value their net
 * or gross value, to a cent a trade.
 */
function sideMismatch(where: string, word: string, side: Trade[], bs: 'B' | 'S', qty: number, value: number): ParseWarning | null {
  const q = side.reduce((a, t) => a + t.quantity, 0);
  if (Math.abs(q - qty) > 1e-6) return { code: 'SummaryMismatch', message: `${where}: quantity ${word} ${qty}, the trades add up to ${q}` };
  if (!side.length || !value) return null;
  const net = side.reduce((a, t) => a + Math.abs(t.net_total), 0);
  const gross = grossOf(side, bs);
  const tol = 0.011 * (side.length + 1) + value * 5e-5;
  if (Math.abs(net - value) <= tol || gross.some((g) => Math.abs(g - value) <= tol)) return null;
  return {
    code: 'SummaryMismatch',
    message: `${where}: value ${word} ${round(value, 2)}, the trades add up to ${round(net, 2)} (net) or ${round(gross[0], 2)} (gross)`,
  };
}

/** The trades of a derivatives summary row's contract: the same description (letters and digits), else one starting the other. */
function contractTrades(d: Deriv, trades: Trade[]): Trade[] {
  const c = compact(d.contract_description);
  const same = trades.filter((t) => compact(t.security_description) === c);
  if (same.length) return same;
  return trades.filter((t) => {
    const x = compact(t.security_description);
    return x.length >= 6 && c.length >= 6 && (x.startsWith(c) || c.startsWith(x));
  });
}

/**
 * A printed derivatives summary (per contract and side) against the trades: the quantity must
 * equal the side's trades', the value (the average rate times the quantity) their gross or net
 * value, to a cent a trade. Carried and brought forward rows have no trades of the day.
 */
export function reconcileDerivatives(rows: Deriv[], pages: number[], trades: Trade[]): ParseWarning[] {
  const out: ParseWarning[] = [];
  const fo = trades.filter(isDerivative);
  rows.forEach((d, k) => {
    if (d.buy_sell_bf_cf !== 'buy' && d.buy_sell_bf_cf !== 'sell') return;
    const list = contractTrades(d, fo);
    if (!list.length) return;
    const bs = d.buy_sell_bf_cf === 'buy' ? 'B' : 'S';
    const where = `${d.contract_description} (derivatives summary, page ${pages[k] ?? '?'})`;
    const side = list.filter((t) => t.buy_sell === bs);
    const w = sideMismatch(
      where,
      d.buy_sell_bf_cf === 'buy' ? 'bought' : 'sold',
      side,
      bs,
      d.quantity,
      round(d.quantity * d.wap_per_unit, 2),
    );
    if (w) out.push(w);
  });
  return out;
}

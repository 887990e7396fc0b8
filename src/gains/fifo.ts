/**
 * First-in, first-out matching of one scheme's transfers against its purchase lots, in integer
 * ten-thousandths of a unit and integer paise so that nothing drifts:
 * - purchases: PURCHASE, PURCHASE_SIP, SWITCH_IN, SWITCH_IN_MERGER, DIVIDEND_REINVEST (units > 0);
 *   SEGREGATION units form a lot of unknown cost;
 * - transfers: REDEMPTION, SWITCH_OUT, SWITCH_OUT_MERGER (units < 0);
 * - a REVERSAL (or a transfer-type row refunding stamp duty) cancels the latest earlier purchase or
 *   transfer of the same units (with its stamp duty or STT), so neither appears in the gains;
 * - a STAMP_DUTY_TAX row is added to the cost of the purchase of the same date it follows
 *   (s.48: cost of acquisition includes expenses of acquiring the asset); an STT_TAX row is recorded
 *   beside the transfer of the same date it follows (s.48 second proviso / s.112A: STT is not deductible);
 * - the opening balance of a statement that does not start at the first purchase is the oldest lot,
 *   of unknown date and cost: transfers matched against it are flagged `opening_balance`.
 * A lot's cost, stamp duty, and a transfer's value and STT are shared in proportion to the units,
 * rounded to the paisa, the last share taking the remainder.
 */
import type { Transaction, TransactionType } from '../schema/index.js';

export const PURCHASE_TYPES: ReadonlySet<TransactionType> = new Set([
  'PURCHASE',
  'PURCHASE_SIP',
  'SWITCH_IN',
  'SWITCH_IN_MERGER',
  'DIVIDEND_REINVEST',
  'SEGREGATION',
]);
export const TRANSFER_TYPES: ReadonlySet<TransactionType> = new Set(['REDEMPTION', 'SWITCH_OUT', 'SWITCH_OUT_MERGER']);

/** Units in ten-thousandths (statements print 3 or 4 decimals). */
export const U = 10000;
export const toUnits = (u: number): number => Math.round(Math.abs(u) * U);
export const toPaise = (r: number): number => Math.round(Math.abs(r) * 100);

/** round(a * b / c), half away from zero, exact for any size (BigInt). */
export function share(a: number, b: number, c: number): number {
  if (c === 0) return 0;
  const n = BigInt(a) * BigInt(b);
  const d = BigInt(c);
  const q = n / d;
  const r = n % d;
  return Number(2n * r >= d ? q + 1n : q);
}

export interface Lot {
  date: string | null;
  units: number;
  /** Paise; null when unknown (opening balance, segregated units). */
  cost: number | null;
  stamp: number;
  kind: 'purchase' | 'opening' | 'segregation' | 'merger';
}

export interface Match {
  units: number;
  acquired: string | null;
  cost: number | null;
  stamp: number | null;
  /** `unmatched`: units transferred beyond every lot. */
  lotKind: Lot['kind'] | 'unmatched';
  transferred: string;
  transferType: TransactionType;
  value: number;
  stt: number;
}

export interface FifoResult {
  matches: Match[];
  /** Problems to report (reversal matching nothing, units left unmatched). */
  issues: string[];
}

interface Row {
  t: Transaction;
  cancelled: boolean;
  stamp: number;
  stt: number;
}

/** Match the transfers of one scheme's transactions (statement order) against its lots. */
/**
 * Lots carried into a merger switch-in (s.49(2AD): the cost of the old units; s.2(42A)(hf): their
 * holding period): given the SWITCH_IN_MERGER row, the old scheme's lots it replaces, or undefined.
 */
export type CarriedLots = (t: Transaction) => Lot[] | undefined;

/** Insert a lot in acquisition order (unknown dates first): carried lots are older than the queue's tail. */
function insertLot(lots: Lot[], lot: Lot): void {
  let k = lots.length;
  while (k > 0 && lot.date !== null && (lots[k - 1].date === null ? false : lots[k - 1].date! > lot.date)) k--;
  if (lot.date === null) while (k > 0 && lots[k - 1].date !== null) k--;
  lots.splice(k, 0, lot);
}

export function fifo(transactions: Transaction[], openingUnits: number | null, carried?: CarriedLots): FifoResult {
  const issues: string[] = [];
  // Stable by date: rows of one date keep the statement's order.
  const rows: Row[] = transactions
    .map((t, i) => ({ t, i, cancelled: false, stamp: 0, stt: 0 }))
    .sort((a, b) => (a.t.date < b.t.date ? -1 : a.t.date > b.t.date ? 1 : a.i - b.i))
    .map(({ t }) => ({ t, cancelled: false, stamp: 0, stt: 0 }));

  // Reversals first. A REVERSAL row, or a transfer-type row followed by a negative stamp duty
  // (a purchase taken back: redemptions carry no stamp duty; statements print such pairs as a
  // "redemption" and a refund of the duty), cancels the latest earlier row of the same units of
  // the opposite direction, else the next such row of the same date (a reversal printed before
  // the purchase re-booked on the same day). Both rows then leave the computation.
  const negStamp = (i: number): boolean => {
    const n = rows[i + 1];
    return Boolean(n && n.t.type === 'STAMP_DUTY_TAX' && n.t.date === rows[i].t.date && (n.t.amount ?? 0) < 0);
  };
  const reversal = rows.map(
    (r, i) => Boolean(r.t.units) && (r.t.type === 'REVERSAL' || (TRANSFER_TYPES.has(r.t.type) && r.t.units! < 0 && negStamp(i))),
  );
  for (let i = 0; i < rows.length; i++) {
    if (!reversal[i] || rows[i].cancelled) continue;
    const t = rows[i].t;
    const units = Math.round(t.units! * U);
    const opposite = units < 0 ? PURCHASE_TYPES : TRANSFER_TYPES;
    const reverses = (j: number): boolean =>
      !rows[j].cancelled && !reversal[j] && opposite.has(rows[j].t.type) && Math.round((rows[j].t.units ?? 0) * U) === -units;
    let j = i - 1;
    while (j >= 0 && !reverses(j)) j--;
    if (j < 0) {
      j = i + 1;
      while (j < rows.length && rows[j].t.date === t.date && !reverses(j)) j++;
      if (j >= rows.length || rows[j].t.date !== t.date) j = -1;
    }
    if (j >= 0) {
      rows[j].cancelled = true;
      rows[i].cancelled = true;
    } else if (t.type === 'REVERSAL') issues.push(`${t.date}: the reversal of ${t.units} units reverses no row of the same units; ignored`);
    else reversal[i] = false; // no purchase to take back: an ordinary transfer
  }

  // Taxes to their rows: stamp duty to the purchase, STT to the transfer, of the same date.
  for (let i = 0; i < rows.length; i++) {
    const { t } = rows[i];
    if (t.type !== 'STAMP_DUTY_TAX' && t.type !== 'STT_TAX') continue;
    if (i > 0 && reversal[i - 1] && t.type === 'STAMP_DUTY_TAX' && (t.amount ?? 0) < 0) continue; // the reversal's refund
    const wanted = t.type === 'STAMP_DUTY_TAX' ? PURCHASE_TYPES : TRANSFER_TYPES;
    const near = (j: number): boolean =>
      rows[j].t.date === t.date && wanted.has(rows[j].t.type) && rows[j].t.units !== null && !reversal[j];
    let j = i - 1;
    while (j >= 0 && !near(j) && rows[j].t.date === t.date) j--;
    if (j < 0 || !near(j)) {
      j = i + 1;
      while (j < rows.length && !near(j) && rows[j].t.date === t.date) j++;
    }
    if (j >= 0 && j < rows.length && near(j)) {
      if (t.type === 'STAMP_DUTY_TAX') rows[j].stamp += Math.round((t.amount ?? 0) * 100);
      else rows[j].stt += toPaise(t.amount ?? 0);
    } else if (t.amount)
      issues.push(
        `${t.date}: ${t.type === 'STAMP_DUTY_TAX' ? 'stamp duty' : 'STT'} of ${t.amount} belongs to no ${t.type === 'STAMP_DUTY_TAX' ? 'purchase' : 'transfer'} of that date; ignored`,
      );
  }

  const lots: Lot[] = [];
  if (openingUnits && openingUnits > 0) lots.push({ date: null, units: toUnits(openingUnits), cost: null, stamp: 0, kind: 'opening' });
  const matches: Match[] = [];
  for (const r of rows) {
    const { t } = r;
    if (r.cancelled || t.units === null || t.units === 0 || t.type === 'REVERSAL') continue;
    if (PURCHASE_TYPES.has(t.type) && t.units > 0) {
      const seg = t.type === 'SEGREGATION';
      const cost = seg || t.amount === null ? null : toPaise(t.amount) + r.stamp;
      const old = t.type === 'SWITCH_IN_MERGER' ? carried?.(t) : undefined;
      if (old?.length) {
        // The new units replace the old lots in proportion to their units, each keeping its date and cost.
        let units = toUnits(t.units);
        let oldUnits = old.reduce((a, l) => a + l.units, 0);
        for (const l of old) {
          const u = share(units, l.units, oldUnits);
          insertLot(lots, { ...l, units: u });
          units -= u;
          oldUnits -= l.units;
        }
        continue;
      }
      lots.push({
        date: t.date,
        units: toUnits(t.units),
        cost,
        stamp: r.stamp,
        kind: seg ? 'segregation' : t.type === 'SWITCH_IN_MERGER' ? 'merger' : 'purchase',
      });
    } else if (TRANSFER_TYPES.has(t.type) && t.units < 0) {
      let left = toUnits(t.units);
      let value = t.amount !== null ? toPaise(t.amount) : Math.round(Math.abs(t.units) * (t.nav ?? 0) * 100);
      let stt = r.stt;
      while (left > 0) {
        const lot = lots[0];
        if (!lot) {
          issues.push(`${t.date}: ${left / U} units transferred beyond the units purchased in the statement`);
          matches.push({
            units: left,
            acquired: null,
            cost: null,
            stamp: null,
            lotKind: 'unmatched',
            transferred: t.date,
            transferType: t.type,
            value,
            stt,
          });
          break;
        }
        const m = Math.min(left, lot.units);
        const v = share(value, m, left);
        const s = share(stt, m, left);
        const c = lot.cost === null ? null : share(lot.cost, m, lot.units);
        const sd = share(lot.stamp, m, lot.units);
        matches.push({
          units: m,
          acquired: lot.date,
          cost: c,
          stamp: lot.cost === null ? null : sd,
          lotKind: lot.kind,
          transferred: t.date,
          transferType: t.type,
          value: v,
          stt: s,
        });
        value -= v;
        stt -= s;
        left -= m;
        lot.units -= m;
        if (lot.cost !== null) lot.cost -= c!;
        lot.stamp -= sd;
        if (lot.units === 0) lots.shift();
      }
    } else {
      issues.push(`${t.date}: a ${t.type} row of ${t.units} units is neither a purchase nor a transfer; ignored`);
    }
  }
  return { matches, issues };
}

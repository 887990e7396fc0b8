/**
 * XIRR: the annual rate r at which the dated cash flows are worth nothing today,
 *   f(r) = sum_i cf_i / (1 + r)^(t_i),  t_i = (day_i - day_0) / 365,
 * solved by Newton's method from 10%, and by bisection when Newton leaves the domain (r <= -1),
 * stalls or does not converge. No solution is said, never guessed: every answer is either a rate or
 * `null` with the reason (flows of one sign, all on one day, no rate in the bracket).
 */

export interface Flow {
  /** `YYYY-MM-DD`. */
  date: string;
  /** Money to the investor positive, money from the investor negative. */
  amount: number;
}

export interface XirrResult {
  rate: number | null;
  reason: string | null;
  method: 'newton' | 'bisection' | null;
}

const DAY = 86_400_000;
const days = (a: string, b: string): number => (Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY;

/** The flows' present value at rate r and its derivative, the times in years from the first flow. */
function npv(flows: { t: number; cf: number }[], r: number): { f: number; df: number } {
  let f = 0;
  let df = 0;
  for (const { t, cf } of flows) {
    const d = Math.pow(1 + r, -t);
    f += cf * d;
    df += (-t * cf * d) / (1 + r);
  }
  return { f, df };
}

/** Lowest rate tried: -99.9999% a year. */
export const MIN_RATE = -0.999999;
/** Highest rate tried: 1,000,000% a year. */
export const MAX_RATE = 1e4;

function bisect(flows: { t: number; cf: number }[]): number | null {
  let lo = MIN_RATE;
  let hi = 1;
  let flo = npv(flows, lo).f;
  let fhi = npv(flows, hi).f;
  // Widen upwards until the sign changes (f falls as r rises when the money goes in first).
  while (Math.sign(flo) === Math.sign(fhi) && hi < MAX_RATE) {
    lo = hi;
    flo = fhi;
    hi *= 4;
    fhi = npv(flows, hi).f;
  }
  if (!Number.isFinite(flo) || !Number.isFinite(fhi) || Math.sign(flo) === Math.sign(fhi)) return null;
  for (let i = 0; i < 300 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    const fm = npv(flows, mid).f;
    if (fm === 0) return mid;
    if (Math.sign(fm) === Math.sign(flo)) {
      lo = mid;
      flo = fm;
    } else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Newton's method from `guess`; null when it leaves the domain, stalls or does not converge in 100 steps. */
export function newton(flows: { t: number; cf: number }[], guess = 0.1): number | null {
  let r = guess;
  for (let i = 0; i < 100; i++) {
    const { f, df } = npv(flows, r);
    if (!Number.isFinite(f) || !Number.isFinite(df) || df === 0) return null;
    const next = r - f / df;
    if (!Number.isFinite(next) || next <= -1) return null;
    if (Math.abs(next - r) < 1e-12 * Math.max(1, Math.abs(r))) return next;
    r = next;
  }
  return null;
}

/** Flows as (years from the first, amount), merged by day, sorted. */
export function timed(flows: Flow[]): { t: number; cf: number }[] {
  const sorted = [...flows].sort((a, b) => a.date.localeCompare(b.date));
  const first = sorted[0]?.date;
  return sorted.map((f) => ({ t: days(first, f.date) / 365, cf: f.amount }));
}

export function xirr(flows: Flow[], opts: { method?: 'newton' | 'bisection' } = {}): XirrResult {
  const live = flows.filter((f) => f.amount !== 0);
  if (!live.length) return { rate: null, reason: 'no cash flows', method: null };
  if (!live.some((f) => f.amount < 0))
    return { rate: null, reason: 'no money went in (every cash flow is money out to the investor): there is no rate', method: null };
  if (!live.some((f) => f.amount > 0))
    return { rate: null, reason: 'nothing came back and nothing is held: every cash flow is money in, there is no rate', method: null };
  const dates = new Set(live.map((f) => f.date));
  if (dates.size === 1) return { rate: null, reason: 'every cash flow is on one day: no time passed for a return', method: null };
  const t = timed(live);
  if (opts.method !== 'bisection') {
    const r = newton(t);
    // Newton's root must be a root (|f| small against the money moved), else fall back.
    const scale = live.reduce((a, f) => a + Math.abs(f.amount), 0);
    if (r !== null && r > MIN_RATE && r < MAX_RATE && Math.abs(npv(t, r).f) <= 1e-7 * scale)
      return { rate: r, reason: null, method: 'newton' };
    if (opts.method === 'newton') return { rate: null, reason: 'Newton did not converge', method: null };
  }
  const b = bisect(t);
  if (b === null)
    return {
      rate: null,
      reason: `no rate between ${(MIN_RATE * 100).toFixed(4)}% and ${(MAX_RATE * 100).toLocaleString('en-IN')}% a year makes these cash flows worth nothing`,
      method: null,
    };
  return { rate: b, reason: null, method: 'bisection' };
}

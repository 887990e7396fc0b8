/**
 * Realised capital gains from Parsed statements (no new parsing): FIFO per folio and scheme
 * (fifo.ts), the class of each scheme (classify.ts), the rules by date (rules.ts), grandfathering of
 * equity units acquired before 1 February 2018 from a user-supplied NAV file.
 */
import type {
  GainRow,
  GainsAssetClass,
  GainsFlag,
  GainsIssue,
  GainsReport,
  GainsScheme,
  GainsTotals,
  GainsYear,
  ParsedStatement,
  Scheme,
  Transaction,
} from '../schema/index.js';
import { classifyScheme } from './classify.js';
import { fifo, U, type Lot, type Match } from './fifo.js';
import { equityLtcgExemption, fyOf, GRANDFATHER_BEFORE, treatment } from './rules.js';

export { classifyScheme, parseFmvFile, parseSchemeTypes } from './classify.js';
export { fyOf, treatment, addCalendarMonths, equityLtcgExemption } from './rules.js';

export interface GainsOptions {
  /** Keep one financial year, `2025-26`. */
  fy?: string;
  /** Class by ISIN (the `--scheme-types` file). */
  schemeTypes?: Map<string, GainsAssetClass>;
  /** NAV of 31 January 2018 by ISIN (the `--fmv` file). */
  fmv?: Map<string, number>;
}

/** Normalise `2025-26`, `FY2025-26`, `2025-2026` or `2025` to `2025-26`. */
export function normaliseFy(fy: string): string | null {
  const m = /^(?:FY\s*)?(\d{4})(?:\s*[-/]\s*(\d{2}|\d{4}))?$/i.exec(fy.trim());
  if (!m) return null;
  const start = Number(m[1]);
  const end = m[2] ? Number(m[2].slice(-2)) : (start + 1) % 100;
  if (end !== (start + 1) % 100) return null;
  return `${start}-${String(end).padStart(2, '0')}`;
}

const rupees = (paise: number): number => Math.round(paise) / 100;

interface SchemeInput {
  folio: string;
  amc: string;
  scheme: Scheme;
  transactions: Transaction[];
  open: number | null;
}

/** One entry per folio and scheme across the statements; the same scheme in several files is merged, duplicate rows dropped. */
function collect(statements: ParsedStatement[]): SchemeInput[] {
  const byKey = new Map<string, SchemeInput & { seen: Set<string> }>();
  const out: (SchemeInput & { seen: Set<string> })[] = [];
  for (const st of statements) {
    for (const f of st.mutual_funds) {
      for (const s of f.schemes) {
        const key = `${f.folio_number.replace(/\s+/g, '')}|${s.isin ?? s.name}`;
        const sig = (t: Transaction): string => `${t.date}|${t.type}|${t.units}|${t.amount}|${t.description}`;
        const prev = byKey.get(key);
        if (!prev) {
          const e = {
            folio: f.folio_number,
            amc: f.amc,
            scheme: s,
            transactions: [...s.transactions],
            open: s.additional_info.open_units,
            seen: new Set(s.transactions.map(sig)),
          };
          byKey.set(key, e);
          out.push(e);
          continue;
        }
        // A later statement of the same folio: its rows not already seen; the earlier opening balance stays.
        for (const t of s.transactions) if (!prev.seen.has(sig(t))) prev.transactions.push(t);
        if ((s.additional_info.open_units ?? 0) > 0 && prev.transactions.length === 0) prev.open = s.additional_info.open_units;
      }
    }
  }
  return out;
}

export function computeGains(statements: ParsedStatement[], opts: GainsOptions = {}): GainsReport {
  const fyWanted = opts.fy ? normaliseFy(opts.fy) : null;
  if (opts.fy && !fyWanted) throw new Error(`--fy '${opts.fy}': give a financial year like 2025-26`);
  const issues: GainsIssue[] = [];
  const schemesByFy = new Map<string, GainsScheme[]>();

  // Mergers of schemes (s.47(xix)): the lots a SWITCH_OUT_MERGER takes leave with their dates and costs
  // (s.49(2AD), s.2(42A)(hf)) into the one SWITCH_IN_MERGER of the same folio and date.
  const schemes = collect(statements);
  const folioKey = (f: string): string => f.replace(/\s+/g, '');
  const outs = new Map<string, Match[][]>();
  const ins = new Map<string, number>();
  for (const s of schemes) {
    if (s.transactions.some((t) => t.type === 'SWITCH_OUT_MERGER')) {
      const byDate = new Map<string, Match[]>();
      for (const m of fifo(s.transactions, s.open).matches)
        if (m.transferType === 'SWITCH_OUT_MERGER') byDate.set(m.transferred, [...(byDate.get(m.transferred) ?? []), m]);
      for (const [d, ms] of byDate) outs.set(`${folioKey(s.folio)}|${d}`, [...(outs.get(`${folioKey(s.folio)}|${d}`) ?? []), ms]);
    }
    for (const t of s.transactions)
      if (t.type === 'SWITCH_IN_MERGER') ins.set(`${folioKey(s.folio)}|${t.date}`, (ins.get(`${folioKey(s.folio)}|${t.date}`) ?? 0) + 1);
  }
  const carriedFor =
    (folio: string) =>
    (t: { date: string }): Lot[] | undefined => {
      const key = `${folioKey(folio)}|${t.date}`;
      const o = outs.get(key);
      if (!o || o.length !== 1 || ins.get(key) !== 1) return undefined;
      return o[0].map((m) => ({
        date: m.acquired,
        units: m.units,
        cost: m.cost,
        stamp: m.stamp ?? 0,
        kind: m.acquired === null ? 'opening' : m.lotKind === 'segregation' ? 'segregation' : 'purchase',
      }));
    };

  for (const s of schemes) {
    const cls = classifyScheme(s.scheme.name, s.scheme.type, s.scheme.isin, opts.schemeTypes);
    const where = { folio: s.folio, scheme: s.scheme.name, isin: s.scheme.isin };
    const { matches, issues: fifoIssues } = fifo(s.transactions, s.open, carriedFor(s.folio));
    if (!matches.length) continue;
    // The scheme's issues are reported when it has rows in the years kept.
    const mine: GainsIssue[] = [];
    if (cls.note) mine.push({ ...where, message: cls.note });
    for (const m of fifoIssues) mine.push({ ...where, message: m });
    const perFy = new Map<string, GainRow[]>();
    for (const m of matches) {
      const tr = treatment(cls.asset_class, m.acquired, m.transferred);
      const flags: GainsFlag[] = [...tr.flags];
      if (m.lotKind === 'opening') flags.push('opening_balance');
      if (m.lotKind === 'unmatched') flags.push('units_unmatched');
      if (m.lotKind === 'segregation') flags.push('segregated_units');
      // s.47(xix): the consolidation of schemes is not a transfer; cost and date carry to the new scheme (s.49(2AD), s.2(42A)).
      if (m.transferType === 'SWITCH_OUT_MERGER' || m.lotKind === 'merger') flags.push('merger');
      let cost: number | null = m.cost;
      let fmvNav: number | null = null;
      let fmv: number | null = null;
      let gf: number | null = null;
      // s.112A(2) / s.55(2)(ac): cost = max(actual cost, min(FMV on 31 Jan 2018, sale value)), long-term equity acquired before 1 Feb 2018.
      if (
        cls.asset_class === 'equity' &&
        m.acquired !== null &&
        m.acquired < GRANDFATHER_BEFORE &&
        tr.term === 'long' &&
        tr.tax_class !== 'equity_ltcg_exempt' &&
        m.cost !== null
      ) {
        const nav = s.scheme.isin ? opts.fmv?.get(s.scheme.isin.toUpperCase()) : undefined;
        if (nav === undefined) {
          flags.push('fmv_missing');
          cost = null;
        } else {
          fmvNav = nav;
          fmv = Math.round((m.units * nav * 100) / U);
          gf = Math.max(m.cost, Math.min(fmv, m.value));
          cost = gf;
        }
      }
      const gain = cost === null ? null : m.value - cost;
      const fy = fyOf(m.transferred);
      if (fyWanted && fy !== fyWanted) continue;
      const row: GainRow = {
        fy,
        folio: s.folio,
        amc: s.amc,
        scheme: s.scheme.name,
        isin: s.scheme.isin,
        asset_class: cls.asset_class,
        units: m.units / U,
        acquisition_date: m.acquired,
        acquisition_cost: m.cost === null ? null : rupees(m.cost),
        stamp_duty: m.stamp === null ? null : rupees(m.stamp),
        transfer_date: m.transferred,
        transfer_type: m.transferType,
        transfer_value: rupees(m.value),
        stt: rupees(m.stt),
        fmv_nav: fmvNav,
        fmv: fmv === null ? null : rupees(fmv),
        grandfathered_cost: gf === null ? null : rupees(gf),
        cost: cost === null ? null : rupees(cost),
        gain: gain === null ? null : rupees(gain),
        term: tr.term,
        tax_class: tr.tax_class,
        rate: tr.rate,
        flags: [...new Set(flags)],
      };
      if (!perFy.has(fy)) perFy.set(fy, []);
      perFy.get(fy)!.push(row);
    }
    if (matches.some((m) => m.lotKind === 'opening'))
      mine.push({
        ...where,
        message: `units from the opening balance (${s.open}) were transferred: their acquisition date and cost are not in this statement; give a statement from the first purchase`,
      });
    if (matches.some((m) => m.transferType === 'SWITCH_OUT_MERGER'))
      mine.push({
        ...where,
        message:
          'a merger of schemes (s.47(xix)) is not a transfer: the rows flagged merger are left out of the totals; the cost and dates of these units carry to the new scheme',
      });
    if (matches.some((m) => m.lotKind === 'merger'))
      mine.push({
        ...where,
        message:
          "units from a merger whose old scheme is not in the statements (same folio and date): their cost and date should be the old units'; the rows flagged merger are left out of the totals",
      });
    if (
      matches.some((m) => m.acquired !== null && m.acquired < GRANDFATHER_BEFORE) &&
      cls.asset_class === 'equity' &&
      !opts.fmv?.has((s.scheme.isin ?? '').toUpperCase())
    ) {
      mine.push({
        ...where,
        message: 'units acquired before 1 Feb 2018 need the NAV of 31 Jan 2018: give --fmv FILE (the NAV history download)',
      });
    }
    if (perFy.size) issues.push(...mine);
    for (const [fy, rows] of perFy) {
      const sum = (term: 'short' | 'long'): number =>
        rupees(
          rows
            .filter((r) => r.term === term && r.gain !== null && !r.flags.includes('merger'))
            .reduce((a, r) => a + Math.round(r.gain! * 100), 0),
        );
      const entry: GainsScheme = {
        folio: s.folio,
        amc: s.amc,
        scheme: s.scheme.name,
        isin: s.scheme.isin,
        asset_class: cls.asset_class,
        class_source: cls.source,
        rows,
        stcg: sum('short'),
        ltcg: sum('long'),
      };
      if (!schemesByFy.has(fy)) schemesByFy.set(fy, []);
      schemesByFy.get(fy)!.push(entry);
    }
  }

  const years: GainsYear[] = [...schemesByFy.keys()].sort().map((fy) => {
    const schemes = schemesByFy.get(fy)!;
    const totals: GainsTotals[] = [];
    for (const c of ['equity', 'debt', 'other', 'unknown'] as GainsAssetClass[]) {
      const rows = schemes.filter((s) => s.asset_class === c).flatMap((s) => s.rows);
      if (!rows.length) continue;
      const done = rows.filter((r) => r.gain !== null && r.term !== null && !r.flags.includes('merger'));
      const p = (f: (r: GainRow) => number): number => rupees(done.reduce((a, r) => a + Math.round(f(r) * 100), 0));
      totals.push({
        asset_class: c,
        transfer_value: p((r) => r.transfer_value),
        cost: p((r) => r.cost!),
        stcg: p((r) => (r.term === 'short' ? r.gain! : 0)),
        ltcg: p((r) => (r.term === 'long' ? r.gain! : 0)),
        incomplete_rows: rows.length - done.length,
      });
    }
    return { fy, schemes, totals, equity_ltcg_exemption: equityLtcgExemption(fy) };
  });
  return { years, issues };
}

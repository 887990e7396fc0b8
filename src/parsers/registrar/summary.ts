/** `Consolidated Account Summary`: one row per scheme, no transactions. */
import { DocumentError } from '../../errors.js';
import type { PdfDocument } from '../../pdf/model.js';
import { allLines } from '../../pdf/model.js';
import { matchHeader, splitCells, type Column } from '../../pdf/table.js';
import { exactSum, parseDate, parseNumber, round } from '../../pdf/numbers.js';
import type { MutualFundFolio, ParsedStatement, ParseWarning } from '../../schema/index.js';
import { emptyStatement, schemeType, type ParseResult } from '../common.js';
import { parseInvestorBlock } from './investor.js';

const HEADER = [
  { name: 'folio', label: 'Folio No', align: 'left' as const },
  { name: 'isin', label: 'ISIN', align: 'left' as const },
  { name: 'name', label: 'Scheme Name', align: 'left' as const },
  { name: 'cost', label: 'Cost Value', align: 'right' as const },
  { name: 'units', label: 'Unit Balance', align: 'right' as const },
  { name: 'navDate', label: 'NAV Date', align: 'left' as const },
  { name: 'nav', label: 'NAV', align: 'right' as const },
  { name: 'value', label: 'Market Value', align: 'right' as const },
  { name: 'registrar', label: 'Registrar', align: 'left' as const },
];

export function parseSummaryForm(doc: PdfDocument): ParseResult<ParsedStatement> {
  const warnings: ParseWarning[] = [];
  const out = emptyStatement('REGISTRAR_A_REGISTRAR_B');
  const lines = allLines(doc);
  for (const l of lines.slice(0, 20)) {
    const m = /As\s+On\s+(\d{1,2}-[A-Za-z]{3}-\d{4})/i.exec(l.text);
    if (m) {
      out.meta.statement_period = { from: null, to: parseDate(m[1]) ?? '1970-01-01' };
      break;
    }
  }
  const { investor } = parseInvestorBlock(doc, lines);
  Object.assign(out.investor, investor);

  let cols: Column[] | null = null;
  let amc = '';
  const folios: MutualFundFolio[] = [];
  let current: MutualFundFolio | undefined;
  let lastScheme: MutualFundFolio['schemes'][number] | undefined;
  for (const line of lines) {
    const header = matchHeader(line, HEADER);
    if (header) {
      cols = header;
      continue;
    }
    if (!cols) continue;
    const t = line.text.replace(/\s{2,}/g, ' ').trim();
    if (/^Total\b/i.test(t)) {
      lastScheme = undefined;
      continue;
    }
    if (line.pieces.length === 1 && /Mutual\s+Fund$/i.test(t) && line.pieces[0].x0 < cols[1].x0) {
      amc = t;
      lastScheme = undefined;
      continue;
    }
    const cells = splitCells(line, cols);
    if (cells.folio && cells.isin && /^IN[A-Z0-9]{10}$/.test(cells.isin)) {
      if (!current || current.folio_number !== cells.folio || current.amc !== amc) {
        current = { folio_number: cells.folio, amc, registrar: cells.registrar ?? null, value: 0, linked_holders: [], schemes: [], additional_info: { pan: null, pankyc: null, kyc: null } };
        folios.push(current);
      }
      const units = parseNumber(cells.units) ?? 0;
      const value = parseNumber(cells.value) ?? 0;
      const cost = parseNumber(cells.cost);
      const abs = cost === null ? null : round(value - cost, 2);
      lastScheme = {
        isin: cells.isin,
        name: cells.name ?? '',
        type: 'Other',
        units,
        nav: parseNumber(cells.nav),
        value,
        cost,
        gain: { absolute: abs, percentage: abs !== null && cost ? round((abs / cost) * 100, 2) : null },
        transactions: [],
        nominees: [],
        additional_info: { advisor: null, rta_code: null, amfi: null, is_demat: false, open_units: null, close_units: units },
      };
      current.schemes.push(lastScheme);
      continue;
    }
    // A wrapped scheme name: only text in the Scheme Name column.
    if (lastScheme && cells.name && Object.keys(cells).length === 1) lastScheme.name = `${lastScheme.name} ${cells.name}`.replace(/\s+/g, ' ');
  }
  for (const f of folios) {
    for (const s of f.schemes) {
      s.name = s.name.replace(/\(\s*(?:Non[\s-]*)?Demat\s*\)/gi, ' ').replace(/\(\s*formerly[^)]*\)/gi, ' ').replace(/\s+/g, ' ').trim();
      s.type = schemeType(s.name);
      if (s.nav !== null && Math.abs(s.units * s.nav - s.value) > Math.max(1, s.value * 0.001)) {
        warnings.push({ code: 'ValueMismatch', message: `folio ${f.folio_number}, scheme '${s.name}': ${s.units} units x NAV ${s.nav} != value ${s.value}` });
      }
    }
    f.value = exactSum(f.schemes.map((s) => s.value), 2);
  }
  if (!folios.length) throw new DocumentError('UnsupportedDocument', 'no folio rows found under the "Folio No. | ISIN | Scheme Name" table of this summary statement');
  out.mutual_funds = folios;
  const total = exactSum(folios.map((f) => f.value), 2);
  out.summary.total_value = total;
  out.summary.accounts.mutual_funds = { count: folios.length, total_value: total };
  return { data: out, warnings };
}

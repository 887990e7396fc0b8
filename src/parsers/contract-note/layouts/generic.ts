/**
 * Fallback for other brokers: the trade table is found by standard labels in any order
 * (each column by its first matching synonym), charges by the standard row names.
 */
import type { Line } from '../../../pdf/model.js';
import type { Column } from '../../../pdf/table.js';
import type { ChargeKey } from './types.js';

const SYNONYMS: [string, 'left' | 'right', RegExp][] = [
  ['orderNo', 'left', /^order\s*(no\.?|number)$/i],
  ['orderTime', 'left', /^order\s*time$/i],
  ['tradeNo', 'left', /^trade\s*(no\.?|number)$/i],
  ['tradeTime', 'left', /^trade\s*time$/i],
  ['security', 'left', /^(security|scrip|instrument|contract)(\s*(name|description|\/\s*contract description))?$/i],
  ['bs', 'left', /^(buy\s*\/\s*sell|b\s*\/\s*s|side|buy\(b\)\s*\/\s*sell\(s\))$/i],
  ['exchange', 'left', /^(exchange|exch\.?)$/i],
  ['qty', 'right', /^(quantity|qty\.?)$/i],
  ['rate', 'right', /^(rate|price|trade price|market rate|gross rate.*)$/i],
  ['bpu', 'right', /^brokerage(\s*per\s*unit)?$/i],
  ['netRate', 'right', /^net\s*(rate|price)(\s*per\s*unit)?$/i],
  ['closing', 'right', /^closing\s*(rate|price).*$/i],
  ['netTotal', 'right', /^(total|net\s*(total|amount|value).*)$/i],
  ['remarks', 'left', /^remarks?$/i],
];

/** A header line whose pieces name at least the core trade columns. */
export function genericTradeHeader(line: Line): Column[] | null {
  const cols: Column[] = [];
  for (const p of line.pieces) {
    const s = SYNONYMS.find(([name, , re]) => re.test(p.text.trim()) && !cols.some((c) => c.name === name));
    if (s) cols.push({ name: s[0], x0: p.x0, x1: p.x1, align: s[1] });
  }
  const need = ['tradeNo', 'security', 'bs', 'qty', 'netTotal'];
  return need.every((n) => cols.some((c) => c.name === n)) ? cols : null;
}

export const GENERIC_CHARGES: [ChargeKey, RegExp][] = [
  ['obligation', /^(pay\s*in\s*\/\s*pay\s*out|obligation)/i],
  ['brokerage', /^(taxable value|brokerage)/i],
  ['exchange', /^(exchange\s*)?transaction charges/i],
  ['clearing', /^clearing/i],
  ['cgst', /^cgst/i],
  ['sgst', /^sgst/i],
  ['igst', /^igst/i],
  ['stt', /^(securities transaction tax|stt)\b/i],
  ['sebi', /^sebi/i],
  ['stamp', /^stamp/i],
  ['net', /^net amount/i],
];

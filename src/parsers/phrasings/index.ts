/**
 * Transaction phrasings: the one place that turns a statement's transaction wording into a SPEC
 * transaction type. Each institution's table is data (registrar.ts: registrar_a / registrar_b);
 * `findPhrasing` walks a table and returns the first phrasing that matches; `classifyRegistrar` is
 * the registrar table's type (types.ts holds the shape of an entry).
 */
import type { TransactionType } from '../../schema/index.js';
import { REGISTRAR_PHRASINGS } from './registrar.js';
import type { Phrasing, UnitsDirection } from './types.js';

export type { Phrasing, UnitsDirection };

export { REGISTRAR_PHRASINGS };

const compiled = new WeakMap<Phrasing, RegExp>();
function regex(p: Phrasing): RegExp {
  let r = compiled.get(p);
  if (!r) compiled.set(p, (r = new RegExp(p.pattern)));
  return r;
}

export function direction(units: number | null): Exclude<UnitsDirection, 'any'> {
  return units === null ? 'none' : units > 0 ? 'in' : units < 0 ? 'out' : 'zero';
}

/** The first phrasing of `table` matching the description and the units' direction, or undefined. */
export function findPhrasing(
  table: readonly Phrasing[],
  desc: string,
  units: number | null,
  registrar?: string | null,
): Phrasing | undefined {
  const d = desc.toLowerCase().replace(/\s+/g, ' ');
  const dir = direction(units);
  const reg = registrar?.toUpperCase().startsWith('KFIN') || registrar?.toUpperCase() === 'KARVY' ? 'KFINTECH' : registrar?.toUpperCase();
  return table.find((p) => (p.units === 'any' || p.units === dir) && (!p.registrar || !reg || p.registrar === reg) && regex(p).test(d));
}

/** A registrar transaction's type from its description, units and (when known) registrar. */
export function classifyRegistrar(desc: string, units: number | null, registrar?: string | null): TransactionType {
  return findPhrasing(REGISTRAR_PHRASINGS, desc, units, registrar)?.type ?? 'UNKNOWN';
}

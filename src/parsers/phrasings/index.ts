/**
 * Transaction phrasings: the one place that turns a statement's transaction wording into a SPEC
 * transaction type. Each institution's table is data (registrar.ts: registrar_a / registrar_b);
 * `classifyPhrasing` walks a table and returns the first phrasing that matches.
 */
import type { TransactionType } from '../../schema/index.js';
import { REGISTRAR_PHRASINGS } from './registrar.js';

/** Which way the row's units go: in (> 0), out (< 0), zero, none printed, or any of these. */
export type UnitsDirection = 'in' | 'out' | 'zero' | 'none' | 'any';

export interface Phrasing {
  /** A regular expression source over the lower-cased description ('' matches every description). */
  pattern: string;
  units: UnitsDirection;
  type: TransactionType;
  /** The registrar that prints this phrasing when only one does (then it applies to its statements, or when the registrar is not known). */
  registrar?: 'CAMS' | 'KFINTECH';
  /** Descriptions as printed (test/phrasings.test.ts classifies each). */
  examples: readonly string[];
}

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

/** The shape of a phrasing table's entries (src/parsers/phrasings). */
import type { TransactionType } from '../../schema/index.js';

/** Which way the row's units go: in (> 0), out (< 0), zero, none printed, or any of these. */
export type UnitsDirection = 'in' | 'out' | 'zero' | 'none' | 'any';

export interface Phrasing {
  /** A regular expression source over the lower-cased description ('' matches every description). */
  pattern: string;
  units: UnitsDirection;
  type: TransactionType;
  /** The registrar that prints this phrasing when only one does (then it applies to its statements, or when the registrar is not known). */
  registrar?: 'CAMS' | 'KFINTECH';
  /** Descriptions as printed (test/parsers/phrasings.test.ts classifies each). */
  examples: readonly string[];
}

/** Dispatch from an extracted document to the parser of its kind (one per registry format). Pure. */
import { DocumentError } from '../errors.js';
import { SUPPORTED, type FormatId } from '../formats/index.js';
import type { PdfDocument } from '../pdf/model.js';
import type { BrokerType, ContractNote, ParsedStatement } from '../schema/index.js';
import type { ParseResult } from './common.js';
import { detect, reprintHint, type Detection, type StatementKind } from './detect/index.js';
import { parseRegistrar } from './registrar/index.js';
import { parseDepositoryA } from './depository-a/index.js';
import { parseDepositoryB } from './depository-b/index.js';
import { parseContractNote } from './contract-note/index.js';

export { detect, resolveType, SUPPORTED, TYPE_ALIASES, type Detection, type StatementKind } from './detect/index.js';
export type { ParseResult } from './common.js';

export interface ParseOptions {
  type?: StatementKind;
  broker?: BrokerType;
}

export type AnyResult = ParseResult<ParsedStatement | ContractNote> & { detection: Detection };

type Parser = (doc: PdfDocument, opts: ParseOptions) => ParseResult<ParsedStatement | ContractNote>;

/** The parser of each registry format: a format without one does not compile. */
const PARSERS = {
  registrar: (doc) => parseRegistrar(doc),
  depository_a: (doc) => parseDepositoryA(doc),
  depository_b: (doc) => parseDepositoryB(doc),
  contract_note: (doc, opts) => parseContractNote(doc, { broker: opts.broker }),
} satisfies Record<FormatId, Parser>;

export function parseDocument(doc: PdfDocument, opts: ParseOptions = {}): AnyResult {
  let detection: Detection;
  try {
    detection = detect(doc);
  } catch (err) {
    if (!opts.type) throw withHint(err, doc);
    detection = { type: opts.type, issuer: opts.type, form: null, broker: opts.broker ?? null, evidence: ['--type given'] };
  }
  if (opts.type && opts.type !== detection.type && detection.evidence[0] !== '--type given') {
    throw new DocumentError(
      'TypeMismatch',
      `--type ${opts.type} was given, but the document is a ${detection.issuer} ${detection.type.replace('_', ' ')} (${detection.evidence.join('; ')})`,
    );
  }
  const kind = opts.type ?? detection.type;
  // Typed callers cannot name a format without a parser; a type from an untyped caller can.
  const parser: Parser | undefined = Object.hasOwn(PARSERS, kind) ? PARSERS[kind] : undefined;
  if (!parser) throw new DocumentError('UnsupportedDocument', `unknown statement type '${kind}'. Supported: ${SUPPORTED}`);
  try {
    return { ...parser(doc, opts), detection };
  } catch (err) {
    throw withHint(err, doc);
  }
}

/** A parse error of a re-saved copy says so (the producer alone never refuses a file). */
function withHint(err: unknown, doc: PdfDocument): unknown {
  const hint = reprintHint(doc);
  if (hint && err instanceof DocumentError && !err.message.includes(hint)) err.message += hint;
  return err;
}

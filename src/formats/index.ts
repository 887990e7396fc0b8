/**
 * The statement-format registry: one descriptor per statement format and one per contract-note
 * broker. Everything that lists formats or brokers reads this file: detection and the parser
 * table (src/parsers), the CLI's `--type` / `--broker` choices and completions, the server's parse
 * endpoints and its OpenAPI document, the schema enums (checked against it in
 * test/registry.test.ts), and the layout families and fixtures of the tests.
 *
 * Pure data with no imports, so that `cas --help` can read it without loading a parser or zod.
 * The parse functions and detection rules sit beside each parser and are keyed by these ids
 * (`satisfies Record<FormatId, ...>`), so a format without a parser does not compile.
 */

export const FORMAT_IDS = ['registrar', 'depository_a', 'depository_b', 'contract_note'] as const;
export type FormatId = (typeof FORMAT_IDS)[number];

export const BROKER_IDS = ['broker_a', 'broker_b', 'broker_c', 'broker_d'] as const;
export type BrokerId = (typeof BROKER_IDS)[number];

export interface StatementFormat {
  id: FormatId;
  /** What it is, in one phrase (errors, help). */
  label: string;
  /** SPEC.md names of the institutions that issue it (`detection.issuer`). */
  issuers: readonly string[];
  /** Other names `--type` accepts (real names, short forms); matched case-insensitively, `-` = `_`. */
  aliases: readonly string[];
  /** `meta.cas_type` of its parsed statement (null: not a unified statement). */
  casType: 'REGISTRAR_A_REGISTRAR_B' | 'DEPOSITORY_A' | 'DEPOSITORY_B' | null;
  /** Name of its response schema in `cas schema` (src/schema RESOURCES). */
  schema: 'parsed-statement' | 'contract-note';
  /** Its own parse endpoint (SPEC.md), and how the service bills and answers it. */
  endpoint: {
    path: string;
    operationId: string;
    /** Billing feature charged on success. */
    feature: 'parse' | 'contract_note';
    /** Multipart field names that may carry the PDF. */
    fileFields: readonly string[];
    /** Expected-JSON fixture the sandbox key answers with (fixtures/expected/<name>.json). */
    sample: string;
    /** A password is required (contract notes are always encrypted). */
    passwordRequired: boolean;
  };
  /** Layout families of the property suite (test/layouts/families, `family.id`). */
  families: readonly string[];
  /** Canonical fixture folder under fixtures/. */
  fixtureDir: string;
}

export interface BrokerFormat {
  id: BrokerId;
  /** The broker's trade name (evidence, messages). */
  name: string;
  /** Its `broker_type` value in the real dialect. */
  realValue: string;
  /** Other names `--broker` accepts. */
  aliases: readonly string[];
  /** Text that identifies the broker on a note (name or legal entity). */
  markers: readonly RegExp[];
  /** Layout family of the property suite. */
  family: string;
  /** Expected-JSON fixture of its canonical note. */
  sample: string;
}

export const FORMATS: readonly StatementFormat[] = [
  {
    id: 'registrar',
    label: 'registrar statement (registrar_a / registrar_b, detailed or summary)',
    issuers: ['registrar_a', 'registrar_b'],
    aliases: ['registrar_a', 'registrar_b', 'registrar_a_registrar_b', 'cams', 'kfintech', 'kfin', 'karvy', 'cams_kfintech', 'mf'],
    casType: 'REGISTRAR_A_REGISTRAR_B',
    schema: 'parsed-statement',
    endpoint: { path: '/v4/registrar_a_registrar_b/parse', operationId: 'registrarParse', feature: 'parse', fileFields: ['pdf_file'], sample: 'registrar-detailed', passwordRequired: false },
    families: ['registrar-detailed', 'registrar-summary'],
    fixtureDir: 'registrar',
  },
  {
    id: 'depository_a',
    label: 'depository_a statement',
    issuers: ['depository_a'],
    aliases: ['cdsl'],
    casType: 'DEPOSITORY_A',
    schema: 'parsed-statement',
    endpoint: { path: '/v4/depository_a/parse', operationId: 'depositoryAParse', feature: 'parse', fileFields: ['pdf_file'], sample: 'depository_a', passwordRequired: false },
    families: ['depository-a'],
    fixtureDir: 'depository_a',
  },
  {
    id: 'depository_b',
    label: 'depository_b statement',
    issuers: ['depository_b'],
    aliases: ['nsdl'],
    casType: 'DEPOSITORY_B',
    schema: 'parsed-statement',
    endpoint: { path: '/v4/depository_b/parse', operationId: 'depositoryBParse', feature: 'parse', fileFields: ['pdf_file'], sample: 'depository_b', passwordRequired: false },
    families: ['depository-b'],
    fixtureDir: 'depository_b',
  },
  {
    id: 'contract_note',
    label: 'broker contract note',
    issuers: ['broker_a', 'broker_b', 'broker_c', 'broker_d', 'unknown'],
    aliases: ['contract-note', 'cn'],
    casType: null,
    schema: 'contract-note',
    endpoint: { path: '/v4/contract_note/parse', operationId: 'parseContractNote', feature: 'contract_note', fileFields: ['pdf_file'], sample: 'contract-note-broker_a', passwordRequired: true },
    families: ['contract-note-broker-a', 'contract-note-broker-b', 'contract-note-broker-c', 'contract-note-broker-d', 'contract-note-generic'],
    fixtureDir: 'contract_note',
  },
];

export const BROKERS: readonly BrokerFormat[] = [
  { id: 'broker_a', name: 'Zerodha', realValue: 'zerodha', aliases: ['zerodha'], markers: [/Zerodha/i], family: 'contract-note-broker-a', sample: 'contract-note-broker_a' },
  { id: 'broker_b', name: 'Groww', realValue: 'groww', aliases: ['groww'], markers: [/Groww/i, /Nextbillion Technology/i], family: 'contract-note-broker-b', sample: 'contract-note-broker_b' },
  { id: 'broker_c', name: 'Upstox', realValue: 'upstox', aliases: ['upstox'], markers: [/Upstox/i, /RKSV Securities/i], family: 'contract-note-broker-c', sample: 'contract-note-broker_c' },
  { id: 'broker_d', name: 'ICICI Securities', realValue: 'icici', aliases: ['icici', 'icicidirect', 'icici_direct'], markers: [/ICICI\s+Securities/i, /ICICI\s*direct/i], family: 'contract-note-broker-d', sample: 'contract-note-broker_d' },
];

/** One line naming what is supported (errors, help). */
export const SUPPORTED = 'registrar statements (registrar_a / registrar_b, detailed or summary), depository_a and depository_b statements, and broker contract notes';

const key = (s: string): string => s.trim().toLowerCase().replace(/-/g, '_');

/** A `--type` value (id or alias, any case, `-` or `_`) -> format id. */
export function resolveFormat(name: string): FormatId | undefined {
  const k = key(name);
  return FORMATS.find((f) => f.id === k || f.aliases.some((a) => key(a) === k))?.id;
}

/** A `--broker` / `broker_type` value (id, real value or alias) -> broker id. */
export function resolveBroker(name: string): BrokerId | undefined {
  const k = key(name);
  return BROKERS.find((b) => b.id === k || key(b.realValue) === k || b.aliases.some((a) => key(a) === k))?.id;
}

export function formatById(id: FormatId): StatementFormat {
  return FORMATS.find((f) => f.id === id)!;
}

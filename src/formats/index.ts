/**
 * The statement-format registry: one descriptor per statement format and one per contract-note
 * broker. Everything that lists formats or brokers reads this file: detection and the parser
 * table (src/parsers), the contract-note parser's broker labels, the CLI's `--type` / `--broker`
 * choices and completions, the server's parse endpoints and its OpenAPI document, the schema enums
 * (src/schema: `BrokerType`, `CasType`, `DematType`, `StatementSource` are built from the ids
 * here), the real-dialect names, and the layout families and fixtures of the tests
 * (test/formats/registry.test.ts checks each of them against this file).
 *
 * Pure data with no imports beyond its own folder (no parser, pdf.js or zod), so that `cas --help`
 * can read it cheaply. The parse functions and detection rules sit beside each parser and are keyed
 * by these ids (`satisfies Record<FormatId, ...>`), so a format without a parser does not compile.
 *
 * Adding a broker: one file `src/formats/brokers/<id>.ts` (`defineBroker({...})`: id, names,
 * aliases, the markers that identify its notes, its notes' labels) and its import in `BROKERS`
 * below; then its fixtures: its render layout in test/fixtures/contract-render.ts (`LAYOUTS`, keyed
 * by broker id, so the build asks for it) and `npm run fixtures` (writes
 * fixtures/contract_note/<id>.pdf and fixtures/expected/<sample>.json); its layout family follows
 * from `family`. Detection, the contract-note parser, `--broker`, completions, the schema enum and
 * the contract-note endpoint's `broker_type` and the real-dialect tables (src/schema/names.ts: its
 * `realValue` and `display`) pick it up from here.
 *
 * Adding a statement format: its id in `FORMAT_IDS`, its descriptor in `FORMATS`, then the
 * compiler asks for its parser (src/parsers/index.ts `PARSERS`) and detection rule
 * (src/parsers/detect `RULES`).
 */
import { brokerA } from './brokers/broker-a.js';
import { brokerB } from './brokers/broker-b.js';
import { brokerC } from './brokers/broker-c.js';
import { brokerD } from './brokers/broker-d.js';

export { defineBroker, type BrokerFormat, type BrokerLabels, type ChargeKey, type ColKey, type FactKey } from './types.js';

/** Every contract-note broker with a layout of its own (first marker match wins, in this order). */
export const BROKERS = [brokerA, brokerB, brokerC, brokerD] as const;
export type BrokerId = (typeof BROKERS)[number]['id'];
export const BROKER_IDS: readonly BrokerId[] = BROKERS.map((b) => b.id);

export const FORMAT_IDS = ['registrar', 'depository_a', 'depository_b', 'contract_note'] as const;
export type FormatId = (typeof FORMAT_IDS)[number];

/** `meta.cas_type` values of parsed statements (SPEC.md order). */
export const CAS_TYPES = ['DEPOSITORY_A', 'DEPOSITORY_B', 'REGISTRAR_A_REGISTRAR_B'] as const;
export type CasTypeId = (typeof CAS_TYPES)[number];
/** `demat_accounts[].demat_type` values: the cas types of the depositories. */
export const DEMAT_TYPES = ['DEPOSITORY_A', 'DEPOSITORY_B'] as const satisfies readonly CasTypeId[];
export type DematTypeId = (typeof DEMAT_TYPES)[number];
/** Issuers of statements (mailbox/inbound `cas_type`, `allowed_sources`), SPEC.md order. */
export const STATEMENT_SOURCES = ['depository_a', 'depository_b', 'registrar_a', 'registrar_b'] as const;
export type StatementSourceId = (typeof STATEMENT_SOURCES)[number];

export interface StatementFormat {
  id: FormatId;
  /** What it is, in one phrase (errors, help). */
  label: string;
  /** SPEC.md names of the institutions that issue it (`detection.issuer`). */
  issuers: readonly (StatementSourceId | BrokerId | 'unknown')[];
  /** Other names `--type` accepts (real names, short forms); matched case-insensitively, `-` = `_`. */
  aliases: readonly string[];
  /** `meta.cas_type` of its parsed statement (null: not a unified statement). */
  casType: CasTypeId | null;
  /** `demat_type` of the demat accounts this depository keeps (null: not a depository). */
  dematType: DematTypeId | null;
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

export const FORMATS: readonly StatementFormat[] = [
  {
    id: 'registrar',
    label: 'registrar statement (registrar_a / registrar_b, detailed or summary)',
    issuers: ['registrar_a', 'registrar_b'],
    aliases: ['registrar_a', 'registrar_b', 'registrar_a_registrar_b', 'cams', 'kfintech', 'kfin', 'karvy', 'cams_kfintech', 'mf'],
    casType: 'REGISTRAR_A_REGISTRAR_B',
    dematType: null,
    schema: 'parsed-statement',
    endpoint: {
      path: '/v4/registrar_a_registrar_b/parse',
      operationId: 'registrarParse',
      feature: 'parse',
      fileFields: ['pdf_file'],
      sample: 'registrar-detailed',
      passwordRequired: false,
    },
    families: ['registrar-detailed', 'registrar-summary'],
    fixtureDir: 'registrar',
  },
  {
    id: 'depository_a',
    label: 'depository_a statement',
    issuers: ['depository_a'],
    aliases: ['cdsl'],
    casType: 'DEPOSITORY_A',
    dematType: 'DEPOSITORY_A',
    schema: 'parsed-statement',
    endpoint: {
      path: '/v4/depository_a/parse',
      operationId: 'depositoryAParse',
      feature: 'parse',
      fileFields: ['pdf_file'],
      sample: 'depository_a',
      passwordRequired: false,
    },
    families: ['depository-a'],
    fixtureDir: 'depository_a',
  },
  {
    id: 'depository_b',
    label: 'depository_b statement',
    issuers: ['depository_b'],
    aliases: ['nsdl'],
    casType: 'DEPOSITORY_B',
    dematType: 'DEPOSITORY_B',
    schema: 'parsed-statement',
    endpoint: {
      path: '/v4/depository_b/parse',
      operationId: 'depositoryBParse',
      feature: 'parse',
      fileFields: ['pdf_file'],
      sample: 'depository_b',
      passwordRequired: false,
    },
    families: ['depository-b'],
    fixtureDir: 'depository_b',
  },
  {
    id: 'contract_note',
    label: 'broker contract note',
    issuers: [...BROKER_IDS, 'unknown'],
    aliases: ['contract-note', 'cn'],
    casType: null,
    dematType: null,
    schema: 'contract-note',
    endpoint: {
      path: '/v4/contract_note/parse',
      operationId: 'parseContractNote',
      feature: 'contract_note',
      fileFields: ['pdf_file'],
      sample: 'contract-note-broker_a',
      passwordRequired: true,
    },
    families: [...BROKERS.map((b) => b.family), 'contract-note-generic'],
    fixtureDir: 'contract_note',
  },
];

/** One line naming what is supported (errors, help). */
export const SUPPORTED =
  'registrar statements (registrar_a / registrar_b, detailed or summary), depository_a and depository_b statements, and broker contract notes';

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

/** The broker whose marker is found first in a note's text (brokers in `BROKERS` order). */
export function brokerIn(text: string): (typeof BROKERS)[number] | undefined {
  return BROKERS.find((b) => b.markers.some((re) => re.test(text)));
}

export function formatById(id: FormatId): StatementFormat {
  return FORMATS.find((f) => f.id === id)!;
}

export function brokerById(id: BrokerId): (typeof BROKERS)[number] {
  return BROKERS.find((b) => b.id === id)!;
}

/**
 * The one table from SPEC.md's neutral names to the real ones (REAL-WORLD.md section 1; the
 * hosted service's public OpenAPI document for where each name appears).
 *
 * The parsers and the stored data only ever use the neutral names. Real names exist at the edges:
 * the service answers a request that arrived on a real-name path (or any shared path on a server
 * started with `--names real`) in real names, and `cas parse --names real` prints them. Real names
 * are accepted on input everywhere. Everything that speaks real names reads this file (through
 * `dialect.ts`); nothing else spells them. Pure data; it imports only the registry (src/formats, pure data too): it sits on the parse path.
 */

import { BROKERS, type BrokerId } from '../formats/index.js';

export type Names = 'spec' | 'real';
export const NAMES: readonly Names[] = ['spec', 'real'];

/** Value domains: neutral value -> real value. */
export const VALUES = {
  /** `meta.cas_type` of a parsed statement. */
  cas_type: { DEPOSITORY_A: 'CDSL', DEPOSITORY_B: 'NSDL', REGISTRAR_A_REGISTRAR_B: 'CAMS_KFINTECH' },
  /** `demat_accounts[].demat_type`. */
  demat_type: { DEPOSITORY_A: 'CDSL', DEPOSITORY_B: 'NSDL' },
  /** Statement sources: mailbox/inbound `cas_type`, `cas_types`, `allowed_sources`, file-name prefixes. */
  source: { depository_a: 'cdsl', depository_b: 'nsdl', registrar_a: 'cams', registrar_b: 'kfintech' },
  /** Contract-note `broker_info.broker_type` and the `broker_type` request field (each broker's `realValue` in src/formats/brokers). */
  broker: { ...(Object.fromEntries(BROKERS.map((b) => [b.id, b.realValue])) as Record<BrokerId, string>), unknown: 'unknown' },
  /** KYC registration agencies: `active_kra` and the keys of `kras`. */
  kra: { kra_a: 'cvl', kra_b: 'ndml', kra_c: 'cams', kra_d: 'karvy', kra_e: 'kfin' },
  /** `kyc_mode`. */
  kyc_mode: { normal: 'normal', locker: 'digilocker', ekyc: 'ekyc', paper: 'paper', unknown: 'unknown' },
  /** Regulator verification `authority`. */
  authority: { regulator: 'SEBI' },
  /** Identity-locker documents (`documents`, `fetch_documents`, keys of the fetched records, `verified`). */
  locker_document: { pan: 'pan', national_id: 'aadhaar', driving_licence: 'driving_licence' },
  /** Billing feature names (`enabled_features`, usage logs) that carry an institution's name. */
  feature: { regulator: 'sebi', locker: 'digilocker' },
} as const satisfies Record<string, Record<string, string>>;

export type ValueDomain = keyof typeof VALUES;

/** How messages name each institution in the real dialect (a broker's is its `display` in src/formats/brokers). */
export const DISPLAY: Record<string, string> = {
  depository_a: 'CDSL',
  depository_b: 'NSDL',
  registrar_a: 'CAMS',
  registrar_b: 'KFintech',
  ...Object.fromEntries(BROKERS.map((b) => [b.id, b.display])),
  kra_a: 'CVL KRA',
  kra_b: 'NDML KRA',
  kra_c: 'CAMS KRA',
  kra_d: 'Karvy KRA',
  kra_e: 'KFin KRA',
};

const INSTITUTION = new RegExp(`\\b(${Object.keys(DISPLAY).join('|')})\\b`, 'g');

/** A human-readable message with the neutral institution names replaced by the real ones. */
export function realText(text: string): string {
  return text.replace(INSTITUTION, (m) => DISPLAY[m] ?? m);
}

/** Field names: neutral key -> real key (each applies only where `dialect.ts` says). */
export const FIELDS = {
  /** Contract note `broker_info`. */
  regulator_registration: 'sebi_registration',
  /** Contract note `charges_summary`. */
  regulator_turnover_fees: 'sebi_turnover_fees',
  /** Locker verified identity. */
  locker_id: 'digilocker_id',
  /** Locker national-ID e-record. */
  masked_national_id: 'masked_aadhaar',
  /** Locker session request. */
  purpose: 'consent_purpose',
  /** Locker result: the parsed documents. */
  records: 'fetched',
} as const;

/**
 * Paths: neutral path (or path prefix, matched at a `/` boundary) -> real path. Paths that are
 * the same in both (`/v4/smart/parse`, `/v4/contract_note/parse`, inbox, inbound email, KYC status,
 * account) are "shared": they answer in the server's `--names` dialect.
 */
export const PATHS: readonly (readonly [neutral: string, real: string])[] = [
  ['/v4/depository_a/parse', '/v4/cdsl/parse'],
  ['/v4/depository_b/parse', '/v4/nsdl/parse'],
  ['/v4/registrar_a_registrar_b/parse', '/v4/cams_kfintech/parse'],
  ['/v4/depository_a/fetch', '/v4/cdsl/fetch'],
  ['/v4/registrar_b/generate', '/v4/kfintech/generate'],
  ['/v4/registrar_b/generate', '/v4/generate'],
  ['/v1/kyc/locker', '/v1/kyc/digilocker'],
  ['/v1/verify/regulator', '/v1/verify/sebi'],
];

/** Real value of a neutral one in a domain (unchanged when the domain has no entry for it). */
export function realValue(domain: ValueDomain, neutral: string): string {
  return (VALUES[domain] as Record<string, string>)[neutral] ?? neutral;
}

/** Neutral value of a real (or neutral) one in a domain, case-insensitively; undefined when unknown. */
export function neutralValue(domain: ValueDomain, value: string): string | undefined {
  const table = VALUES[domain] as Record<string, string>;
  const v = value.trim();
  for (const [n, r] of Object.entries(table))
    if (n === v || r.toLowerCase() === v.toLowerCase() || n.toLowerCase() === v.toLowerCase()) return n;
  return undefined;
}

const under = (path: string, prefix: string): string | undefined =>
  path === prefix ? '' : path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;

/**
 * Which dialect a request path is in: `real` for a real-name path (with the neutral path it
 * stands for), `spec` for a neutral-only path, `shared` for a path both name sets use.
 */
export function pathDialect(path: string): { names: Names | 'shared'; neutral: string } {
  for (const [neutral, real] of PATHS) {
    const rest = under(path, real);
    if (rest !== undefined) return { names: 'real', neutral: neutral + rest };
  }
  for (const [neutral] of PATHS) if (under(path, neutral) !== undefined) return { names: 'spec', neutral: path };
  return { names: 'shared', neutral: path };
}

/** The real-name path of a neutral path (the first listed), or the path itself when shared. */
export function realPath(neutralPath: string): string {
  for (const [neutral, real] of PATHS) {
    const rest = under(neutralPath, neutral);
    if (rest !== undefined) return real + rest;
  }
  return neutralPath;
}

/** Every real-name path (and prefix) of a neutral one. */
export function realPaths(neutralPath: string): string[] {
  const out: string[] = [];
  for (const [neutral, real] of PATHS) {
    const rest = under(neutralPath, neutral);
    if (rest !== undefined) out.push(real + rest);
  }
  return out;
}

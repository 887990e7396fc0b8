/**
 * KYC status across the five KYC registration agencies.
 *
 * Each agency has an adapter that reads its own raw answer into a common shape; a normaliser
 * maps raw codes and texts (REAL-WORLD.md section 6) to SPEC.md's enums: the exact table first
 * (raw_status stays null), then fuzzy matching (raw_status keeps the original text), else
 * `unknown` (raw_status set). Agencies that were not asked or failed are `not_checked`.
 *
 * Aggregation (documented rule): the active agency is the one with the strongest status, in the
 * order validated > registered > legacy > under_process > on_hold > rejected > unknown; ties go
 * to the most recent last_updated_on, then to agency order. When no agency has a record
 * (all not_available / not_checked) there is no active agency and kyc_status is
 * `not_available` if any agency said so, else `unknown`. kyc_compliant is true exactly when
 * the active status is validated or registered.
 *
 * Modes: 0 normal, 1 OTP e-KYC -> ekyc, 2 biometric -> ekyc, 3 online -> normal,
 * 4 offline national-ID -> paper, 5 document locker -> locker, 6 other -> unknown.
 * Codes: 000 / 888 not_checked, 001 / 011 under_process, 002 registered, 003 / 013 on_hold,
 * 004 / 014 rejected, 005 not_available, 006 (deactivated) on_hold, 007 validated,
 * 012 / 022 legacy, 999 (invalid PAN) not_available; a leading 1-5 names the agency.
 */
import { parseDate } from '../../pdf/numbers.js';
import type { KycAgencyStatus, KycStatusResponse } from '../../schema/index.js';

export const KRAS = ['kra_a', 'kra_b', 'kra_c', 'kra_d', 'kra_e'] as const;
export type Kra = (typeof KRAS)[number];
type Status = KycAgencyStatus['status'];
type Mode = NonNullable<KycAgencyStatus['kyc_mode']>;

export interface RawKra {
  code?: string | null;
  text?: string | null;
  registered_on?: string | null;
  last_updated_on?: string | null;
  mode?: string | number | null;
  remarks?: string[] | string | null;
}

const CODES: Record<string, Status> = {
  '000': 'not_checked',
  '001': 'under_process',
  '002': 'registered',
  '003': 'on_hold',
  '004': 'rejected',
  '005': 'not_available',
  '006': 'on_hold',
  '007': 'validated',
  '011': 'under_process',
  '012': 'legacy',
  '013': 'on_hold',
  '014': 'rejected',
  '022': 'legacy',
  '888': 'not_checked',
  '999': 'not_available',
};

const TEXTS: Record<string, Status> = {
  'KYC REGISTD': 'registered',
  'KYC REGISTERED': 'registered',
  'KYC REGISTERED - NEW KYC': 'registered',
  REGISTERED: 'registered',
  REGISTD: 'registered',
  VALIDATED: 'validated',
  'KYC VALIDATED': 'validated',
  'CVLMF REGISTD': 'legacy',
  'CVLMF REGISTERED': 'legacy',
  UNDERPROCESS: 'under_process',
  'UNDER PROCESS': 'under_process',
  'KYC UNDER PROCESS': 'under_process',
  SUBMITTED: 'under_process',
  ONHOLD: 'on_hold',
  'ON HOLD': 'on_hold',
  'KYC ON HOLD': 'on_hold',
  INCOMPLETE: 'on_hold',
  HOLD: 'on_hold',
  REJTED: 'rejected',
  REJECTED: 'rejected',
  'KYC REJECTED': 'rejected',
  'NOT AVAILABLE': 'not_available',
  'KYC NOT AVAILABLE': 'not_available',
};

function canon(t: string): string {
  return t
    .toUpperCase()
    .replace(/\bVALIDATION PENDING WITH\b.*$/, '')
    .replace(/\s+AT\s+.*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function lev(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length];
}

/** Raw code and/or text -> status, with raw_status set exactly when the match was not exact. */
export function normalizeStatus(code?: string | null, text?: string | null): { status: Status; raw_status: string | null } {
  const c = code?.trim();
  if (c && /^\d{3}$/.test(c)) {
    const key = CODES[c] ? c : /^[1-5]\d\d$/.test(c) ? `0${c.slice(1)}` : '';
    if (CODES[key]) return { status: CODES[key], raw_status: null };
  }
  const t = text?.trim();
  if (!t) return { status: 'unknown', raw_status: c ?? null };
  const k = canon(t);
  if (TEXTS[k]) return { status: TEXTS[k], raw_status: null };
  // Fuzzy: nearest known text by edit distance on letters only.
  const letters = k.replace(/[^A-Z]/g, '');
  let best: Status | null = null;
  let bestScore = 0;
  for (const [key, st] of Object.entries(TEXTS)) {
    const kl = key.replace(/[^A-Z]/g, '');
    const score = 1 - lev(letters, kl) / Math.max(letters.length, kl.length);
    if (score > bestScore) {
      bestScore = score;
      best = st;
    }
  }
  if (best && bestScore >= 0.75) return { status: best, raw_status: t };
  const kw: [RegExp, Status][] = [
    [/NOT\s*AVAIL/, 'not_available'],
    [/VALID/, 'validated'],
    [/REGIS/, 'registered'],
    [/HOLD/, 'on_hold'],
    [/REJ/, 'rejected'],
    [/PROCES/, 'under_process'],
  ];
  const hit = kw.find(([re]) => re.test(k));
  return { status: hit ? hit[1] : 'unknown', raw_status: t };
}

export function normalizeMode(m: string | number | null | undefined): Mode | null {
  if (m === null || m === undefined || m === '') return null;
  const s = String(m).trim().toLowerCase();
  const byCode: Record<string, Mode> = {
    '0': 'normal',
    '1': 'ekyc',
    '2': 'ekyc',
    '3': 'normal',
    '4': 'paper',
    '5': 'locker',
    '6': 'unknown',
  };
  if (byCode[s]) return byCode[s];
  if (/digi\s*locker|locker/.test(s)) return 'locker';
  if (/e-?kyc|otp|aadhaar|biometric/.test(s)) return 'ekyc';
  if (/offline|paper/.test(s)) return 'paper';
  if (/normal|physical|online/.test(s)) return 'normal';
  return 'unknown';
}

const INFORMATIONAL = /^(FATCA NOT APPLICABLE|NA|NIL|-)$/i;

export function agencyStatus(raw: RawKra | null): KycAgencyStatus {
  if (!raw) return { status: 'not_checked', registered_on: null, last_updated_on: null, kyc_mode: null, remarks: null, raw_status: null };
  const { status, raw_status } = normalizeStatus(raw.code, raw.text);
  if (status === 'not_checked' || status === 'not_available')
    return { status, registered_on: null, last_updated_on: null, kyc_mode: null, remarks: null, raw_status };
  const list = (Array.isArray(raw.remarks) ? raw.remarks : (raw.remarks ?? '').split(','))
    .map((r) => r.trim())
    .filter((r) => r && !INFORMATIONAL.test(r));
  return {
    status,
    registered_on: parseDate(raw.registered_on ?? null),
    last_updated_on: parseDate(raw.last_updated_on ?? null),
    kyc_mode: normalizeMode(raw.mode),
    remarks: list.length ? list.join(', ') : null,
    raw_status,
  };
}

const RANK: Status[] = ['validated', 'registered', 'legacy', 'under_process', 'on_hold', 'rejected', 'unknown'];

export function aggregate(pan: string, kras: Record<Kra, KycAgencyStatus>): KycStatusResponse {
  let active: Kra | null = null;
  for (const k of KRAS) {
    const s = kras[k];
    const r = RANK.indexOf(s.status);
    if (r < 0) continue;
    if (!active) {
      active = k;
      continue;
    }
    const cur = kras[active];
    const rc = RANK.indexOf(cur.status);
    if (r < rc || (r === rc && (s.last_updated_on ?? '') > (cur.last_updated_on ?? ''))) active = k;
  }
  if (!active) {
    const anyNa = KRAS.some((k) => kras[k].status === 'not_available');
    return {
      status: 'success',
      pan,
      kyc_compliant: false,
      kyc_status: anyNa ? 'not_available' : 'unknown',
      kyc_mode: null,
      active_kra: null,
      registered_on: null,
      last_updated_on: null,
      kras,
    };
  }
  const a = kras[active];
  return {
    status: 'success',
    pan,
    kyc_compliant: a.status === 'validated' || a.status === 'registered',
    kyc_status: a.status as KycStatusResponse['kyc_status'],
    kyc_mode: a.kyc_mode,
    active_kra: active,
    registered_on: a.registered_on,
    last_updated_on: a.last_updated_on,
    kras,
  };
}

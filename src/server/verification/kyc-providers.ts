/**
 * Where KYC answers come from (recorded raw answers, or the sandbox sample) and `kycStatus`: every
 * agency asked at once, each within the time limit, read by its adapter and aggregated (kyc.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { KycAgencyStatus, KycStatusResponse } from '../../schema/index.js';
import { agencyStatus, aggregate, KRAS, type Kra, type RawKra } from './kyc.js';

/** One adapter per agency: each reads its own answer format. */
type Adapter = (raw: Record<string, any>) => RawKra;
const s = (v: unknown): string | null => (v === undefined || v === null ? null : String(v));
export const ADAPTERS: Record<Kra, Adapter> = {
  // CVL-style: APP_* fields with numeric status codes.
  kra_a: (r) => ({
    code: s(r.APP_STATUS),
    text: s(r.APP_STATUS_DESC),
    registered_on: s(r.APP_ENTRYDT),
    last_updated_on: s(r.APP_STATUSDT),
    mode: s(r.APP_KYC_MODE),
    remarks: s(r.APP_HOLD_DEACTIVE_RMKS),
  }),
  // NDML-style: camelCase JSON, remarks as a list.
  kra_b: (r) => ({
    code: s(r.statusCode),
    text: s(r.kycStatus),
    registered_on: s(r.registeredOn),
    last_updated_on: s(r.lastUpdated),
    mode: s(r.kycMode),
    remarks: Array.isArray(r.remarks) ? r.remarks.map(String) : s(r.remarks),
  }),
  // CAMS KRA: upper-case keys, text statuses such as `Validated at CAMS KRA`.
  kra_c: (r) => ({
    code: null,
    text: s(r.KYC_STATUS),
    registered_on: s(r.REG_DATE),
    last_updated_on: s(r.MOD_DATE),
    mode: s(r.KYC_MODE),
    remarks: s(r.REMARKS),
  }),
  // Karvy KRA (legacy KFintech): lower-case keys.
  kra_d: (r) => ({
    code: s(r.statuscode),
    text: s(r.status),
    registered_on: s(r.regdate),
    last_updated_on: s(r.moddate),
    mode: s(r.mode),
    remarks: s(r.remarks),
  }),
  // KFin KRA: Pascal-case keys.
  kra_e: (r) => ({
    code: s(r.StatusCode),
    text: s(r.Status),
    registered_on: s(r.RegisteredOn),
    last_updated_on: s(r.UpdatedOn),
    mode: s(r.Mode),
    remarks: s(r.Remarks),
  }),
};

export interface KycProvider {
  readonly name: string;
  raw(kra: Kra, pan: string): Promise<Record<string, unknown> | null>;
}

/** Recorded raw answers: DIR/<kra>/<PAN>.json; a missing file means "not asked"; {"__error": ...} a failed agency. */
export class RecordedKycProvider implements KycProvider {
  readonly name = 'recorded';
  constructor(private readonly dir: string) {}
  async raw(kra: Kra, pan: string): Promise<Record<string, unknown> | null> {
    const text = await readFile(path.join(this.dir, kra, `${pan}.json`), 'utf8').catch(() => null);
    if (text === null) return null;
    const json = JSON.parse(text) as Record<string, unknown>;
    if (json.__error) throw new Error(String(json.__error));
    return json;
  }
}

/** Sandbox sample: validated at kra_a by DigiLocker, on hold at kra_c, not available elsewhere. */
export class SandboxKycProvider implements KycProvider {
  readonly name = 'sandbox';
  async raw(kra: Kra): Promise<Record<string, unknown> | null> {
    if (kra === 'kra_a')
      return {
        APP_STATUS: '007',
        APP_ENTRYDT: '10-02-2019',
        APP_STATUSDT: '15-03-2024',
        APP_KYC_MODE: '5',
        APP_HOLD_DEACTIVE_RMKS: 'FATCA NOT APPLICABLE',
      };
    if (kra === 'kra_c')
      return {
        KYC_STATUS: 'ONHOLD',
        REG_DATE: '01/06/2017',
        MOD_DATE: '01/06/2020',
        KYC_MODE: '0',
        REMARKS: 'Mobile number not validated',
      };
    if (kra === 'kra_b') return { statusCode: '005', kycStatus: 'Not available' };
    return { status: 'Not available' };
  }
}

export async function kycStatus(provider: KycProvider, pan: string, timeoutMs: number): Promise<KycStatusResponse> {
  const entries = await Promise.all(
    KRAS.map(async (k): Promise<[Kra, KycAgencyStatus]> => {
      try {
        const raw = await Promise.race([
          provider.raw(k, pan),
          new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timeout')), timeoutMs).unref()),
        ]);
        return [k, agencyStatus(raw ? ADAPTERS[k](raw as Record<string, any>) : null)];
      } catch {
        return [k, agencyStatus(null)];
      }
    }),
  );
  return aggregate(pan, Object.fromEntries(entries) as Record<Kra, KycAgencyStatus>);
}

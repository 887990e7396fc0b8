/** KYC status across the five KYC registration agencies (kra_a .. kra_e). */
import { z } from 'zod';
import { IsoDate, Pan } from './common.js';

export const KycStatus = z.enum(['validated', 'registered', 'under_process', 'on_hold', 'rejected', 'legacy', 'not_available', 'unknown']);
export const KycAgencyStatusValue = z.enum([
  'validated',
  'registered',
  'under_process',
  'on_hold',
  'rejected',
  'legacy',
  'not_available',
  'not_checked',
  'unknown',
]);
export const KycMode = z.enum(['normal', 'locker', 'ekyc', 'paper', 'unknown']);
export const Kra = z.enum(['kra_a', 'kra_b', 'kra_c', 'kra_d', 'kra_e']);

export const KycAgencyStatus = z
  .object({
    status: KycAgencyStatusValue,
    registered_on: IsoDate.nullable(),
    last_updated_on: IsoDate.nullable(),
    kyc_mode: KycMode.nullable(),
    remarks: z.string().nullable(),
    raw_status: z.string().nullable(),
  })
  .strict();

export const KycStatusRequest = z.object({ pan_no: z.string() });

export const KycStatusResponse = z.object({
  status: z.literal('success'),
  pan: Pan,
  kyc_compliant: z.boolean(),
  kyc_status: KycStatus,
  kyc_mode: KycMode.nullable(),
  active_kra: Kra.nullable(),
  registered_on: IsoDate.nullable(),
  last_updated_on: IsoDate.nullable(),
  kras: z
    .object({ kra_a: KycAgencyStatus, kra_b: KycAgencyStatus, kra_c: KycAgencyStatus, kra_d: KycAgencyStatus, kra_e: KycAgencyStatus })
    .strict(),
});

export type KycStatusResponse = z.infer<typeof KycStatusResponse>;
export type KycAgencyStatus = z.infer<typeof KycAgencyStatus>;

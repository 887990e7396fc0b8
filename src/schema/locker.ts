/** Identity-locker records (SPEC.md "Identity locker records"); every field may be null. */
import { z } from 'zod';
import { IsoDate, IsoDateTime } from './common.js';

const s = z.string().nullable();

export const VerifiedIdentity = z.object({
  locker_id: s,
  username: s,
  name: s,
  dob: s,
  gender: s,
  care_of: s,
  address: s,
  email: s,
  mobile: z
    .string()
    .regex(/^[X*\d+ -]*$/, 'mobile must be partially masked')
    .nullable(),
  verified: z.object({ pan: z.string().optional(), national_id: z.string().optional(), driving_licence: z.string().optional() }),
});

export const NationalIdRecord = z.object({
  name: s,
  dob: s,
  gender: z.enum(['M', 'F', 'T']).nullable(),
  care_of: s,
  address: s,
  masked_national_id: z
    .string()
    .regex(/^[X*x]{8}\d{4}$/, 'only the last 4 digits may be visible')
    .nullable(),
  photo_base64: s,
  session_id: s,
});

export const SignatureProvenance = z.object({
  signature_present: z.boolean(),
  certificate: z
    .object({ subject: z.string(), issuer: z.string(), serial_number: z.string(), valid_from: z.string(), valid_until: z.string() })
    .nullable(),
});

export const PanCertificate = z.object({
  pan: s,
  name: s,
  dob: s,
  gender: s,
  father_name: s,
  status: s,
  verified_on: s,
  signature: SignatureProvenance.nullable(),
});

export const DrivingLicence = z.object({
  dl_number: s,
  name: s,
  father_name: s,
  dob: IsoDate.nullable(),
  gender: s,
  issue_date: s,
  valid_from: s,
  expiry_date: s,
  issued_at: s,
  status: s,
  permanent_address: s,
  present_address: s,
  categories: z.array(z.object({ code: s, abbreviation: s, description: s, issue_date: s })),
  signature: SignatureProvenance.nullable(),
});

export const LockerDocument = z.object({
  uri: z.string(),
  name: s,
  doctype: z.string().length(5).nullable(),
  issuer: s,
  issuerid: s,
  type: s,
  mime: z.array(z.string()),
  date: IsoDate.nullable(),
});

export const ConsentReceipt = z.object({ consented_at: IsoDateTime.nullable(), purpose: s });

/** POST /v1/kyc/locker/session response. */
export const LockerSessionResponse = z.object({
  status: z.literal('success'),
  session_id: z.string(),
  authorization_url: z.url(),
  expires_in: z.number().int(),
});

/** POST /v1/kyc/locker/result/{session_id} response: the identity, consent, documents and the parsed records. */
export const LockerResultResponse = z.object({
  status: z.literal('success'),
  session_id: z.string(),
  identity: VerifiedIdentity,
  consent: ConsentReceipt,
  documents: z.array(LockerDocument),
  records: z.object({
    pan: PanCertificate.nullable(),
    national_id: NationalIdRecord.nullable(),
    driving_licence: DrivingLicence.nullable(),
  }),
});

export type VerifiedIdentity = z.infer<typeof VerifiedIdentity>;

/** Regulator (market regulator) registration verification. */
import { z } from 'zod';
import { IsoDate } from './common.js';

export const RegulatorCategory = z.enum([
  'investment-adviser',
  'research-analyst',
  'portfolio-manager',
  'stock-broker',
  'merchant-banker',
  'registrar-transfer-agent',
  'mutual-fund',
  'alternative-investment-fund',
  'credit-rating-agency',
  'custodian',
  'debenture-trustee',
  'venture-capital-fund',
  'foreign-venture-capital-investor',
  'foreign-portfolio-investor',
  'kyc-registration-agency',
  'infrastructure-investment-trust',
  'real-estate-investment-trust',
  'esg-rating-provider',
  'vault-manager',
]);

/** Short aliases accepted for `type` (SPEC.md). */
export const REGULATOR_ALIASES: Record<string, z.infer<typeof RegulatorCategory>> = {
  ria: 'investment-adviser',
  ra: 'research-analyst',
  pms: 'portfolio-manager',
  broker: 'stock-broker',
  rta: 'registrar-transfer-agent',
  mf: 'mutual-fund',
  aif: 'alternative-investment-fund',
  cra: 'credit-rating-agency',
  vcf: 'venture-capital-fund',
  fvci: 'foreign-venture-capital-investor',
  fpi: 'foreign-portfolio-investor',
  kra: 'kyc-registration-agency',
  invit: 'infrastructure-investment-trust',
  reit: 'real-estate-investment-trust',
};

export const RegulatorRequest = z
  .object({
    registration_number: z.string().trim().min(1).optional(),
    name: z.string().trim().min(1).optional(),
    type: z.string().optional(),
  })
  .refine((r) => r.registration_number || (r.name && r.type), 'give registration_number, or name plus type');

/** Every property present on HTTP 200, null where not applicable (REAL-WORLD.md section 9). */
export const RegulatorResponse = z.object({
  status: z.literal('success'),
  verified: z.boolean(),
  type: RegulatorCategory,
  registration_status: z.enum(['ACTIVE', 'EXPIRED', 'NOT_FOUND']),
  registration_number: z.string().nullable(),
  authority: z.literal('regulator'),
  category: RegulatorCategory,
  category_label: z.string(),
  detected_by: z.enum(['registration_number', 'type']),
  name: z.string().nullable(),
  valid_from: IsoDate.nullable(),
  valid_till: IsoDate.nullable(),
  is_perpetual: z.boolean().nullable(),
  address: z.string().nullable(),
  email: z.string().nullable(),
  telephone: z.string().nullable(),
  contact_person: z.string().nullable(),
});

export type RegulatorCategory = z.infer<typeof RegulatorCategory>;
export type RegulatorResponse = z.infer<typeof RegulatorResponse>;

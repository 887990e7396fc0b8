/**
 * The Parsed statement: the response of every parse endpoint (SPEC.md "Parsed statement").
 *
 * Decisions on what SPEC.md leaves "not shown":
 * - `meta.cas_type`: `DEPOSITORY_A`, `DEPOSITORY_B`, `REGISTRAR_A_REGISTRAR_B`.
 * - Transaction `type`: the de-facto enum of REAL-WORLD.md section 4.
 * - Scheme `type`: `Equity`, `Debt`, `Hybrid`, `Other`.
 * - Values a statement does not print are `null` (never invented): e.g. a stamp-duty row has
 *   no units, NAV or balance; a registrar statement has no `cas_id`.
 * - Money is rounded to the paisa (2 decimals), units to the printed precision (3-4 decimals).
 */
import { z } from 'zod';
import { CAS_TYPES, DEMAT_TYPES } from '../formats/index.js';
import { IsoDate, IsoDateTime } from './common.js';

/** The registry's cas types (src/formats). */
export const CasType = z.enum(CAS_TYPES);
/** The registry's depositories' demat types (src/formats). */
export const DematType = z.enum(DEMAT_TYPES);

export const TransactionType = z.enum([
  'PURCHASE',
  'PURCHASE_SIP',
  'REDEMPTION',
  'SWITCH_IN',
  'SWITCH_IN_MERGER',
  'SWITCH_OUT',
  'SWITCH_OUT_MERGER',
  'DIVIDEND_PAYOUT',
  'DIVIDEND_REINVEST',
  'SEGREGATION',
  'STAMP_DUTY_TAX',
  'TDS_TAX',
  'STT_TAX',
  'MISC',
  'REVERSAL',
  'UNKNOWN',
]);
export const SchemeType = z.enum(['Equity', 'Debt', 'Hybrid', 'Other']);

const num = z.number().finite();
const numOrNull = num.nullable();
const strOrNull = z.string().nullable();

export const TransactionAdditionalInfo = z.object({
  credit: numOrNull,
  debit: numOrNull,
  stamp_duty: numOrNull,
  price: numOrNull,
  income_distribution: numOrNull,
  capital_withdrawal: numOrNull,
  order_no: strOrNull,
});

export const Transaction = z.object({
  date: IsoDate,
  description: z.string(),
  type: TransactionType,
  amount: numOrNull,
  units: numOrNull,
  nav: numOrNull,
  balance: numOrNull,
  dividend_rate: numOrNull,
  additional_info: TransactionAdditionalInfo,
});

export const LinkedHolder = z.object({ name: z.string(), pan: strOrNull });

export const Holding = z.object({
  isin: z.string(),
  name: z.string(),
  units: num,
  value: num,
  transactions: z.array(Transaction),
  additional_info: z.object({ open_units: numOrNull, close_units: numOrNull }),
});

export const Holdings = z.object({
  equities: z.array(Holding),
  corporate_bonds: z.array(Holding),
  government_securities: z.array(Holding),
  aifs: z.array(Holding),
  demat_mutual_funds: z.array(Holding),
});

export const DematAccountAdditionalInfo = z.object({
  bo_status: strOrNull.optional(),
  bo_sub_status: strOrNull.optional(),
  bo_type: strOrNull.optional(),
  bsda: strOrNull.optional(),
  status: strOrNull.optional(),
  nominee: strOrNull.optional(),
  email: z.email().nullable().optional(),
  linked_pans: z.array(z.string()).optional(),
});

export const DematAccount = z.object({
  demat_type: DematType,
  dp_id: z.string(),
  dp_name: z.string(),
  client_id: z.string(),
  bo_id: strOrNull,
  value: num,
  linked_holders: z.array(LinkedHolder),
  holdings: Holdings,
  additional_info: DematAccountAdditionalInfo,
});

export const Scheme = z.object({
  isin: strOrNull,
  name: z.string(),
  type: SchemeType,
  units: num,
  nav: numOrNull,
  value: num,
  cost: numOrNull,
  gain: z.object({ absolute: numOrNull, percentage: numOrNull }),
  transactions: z.array(Transaction),
  nominees: z.array(z.string()),
  additional_info: z.object({
    advisor: strOrNull,
    rta_code: strOrNull,
    amfi: strOrNull,
    is_demat: z.boolean(),
    open_units: numOrNull,
    close_units: numOrNull,
  }),
});

export const MutualFundFolio = z.object({
  folio_number: z.string(),
  amc: z.string(),
  registrar: strOrNull,
  value: num,
  linked_holders: z.array(LinkedHolder),
  schemes: z.array(Scheme),
  additional_info: z.object({ pan: strOrNull, pankyc: strOrNull, kyc: strOrNull }),
});

export const LifeInsurancePolicy = z.object({
  policy_number: z.string(),
  provider: z.string(),
  policy_name: z.string(),
  life_assured: z.string(),
  status: z.string(),
  premium_frequency: z.string(),
  sum_assured: num,
  premium_amount: num,
  additional_info: z.record(z.string(), z.unknown()),
});

export const Insurance = z.object({ life_insurance_policies: z.array(LifeInsurancePolicy) });

export const NpsFund = z.object({
  name: z.string(),
  units: num,
  nav: num,
  value: num,
  cost: numOrNull,
  additional_info: z.object({ tier: z.number().int().min(1).max(2), manager: z.string() }),
});

export const NpsAccount = z.object({
  pran: z.string(),
  cra: z.string(),
  value: num,
  funds: z.array(NpsFund),
  linked_holders: z.array(LinkedHolder),
  additional_info: z.record(z.string(), z.unknown()),
});

const AccountTotal = z.object({ count: z.number().int().min(0), total_value: num });

export const Summary = z.object({
  total_value: num,
  accounts: z.object({
    demat: AccountTotal,
    mutual_funds: AccountTotal,
    insurance: AccountTotal,
    nps: AccountTotal,
  }),
});

export const Meta = z.object({
  cas_type: CasType,
  statement_period: z.object({ from: IsoDate.nullable(), to: IsoDate }),
  generated_at: IsoDateTime.nullable(),
});

export const Investor = z.object({
  name: z.string(),
  pan: strOrNull,
  email: z.email().nullable(),
  address: strOrNull,
  pincode: strOrNull,
  mobile: strOrNull,
  cas_id: strOrNull,
});

export const ParsedStatement = z.object({
  meta: Meta,
  investor: Investor,
  summary: Summary,
  demat_accounts: z.array(DematAccount),
  mutual_funds: z.array(MutualFundFolio),
  insurance: Insurance,
  nps: z.array(NpsAccount),
});

export type CasType = z.infer<typeof CasType>;
export type TransactionType = z.infer<typeof TransactionType>;
export type SchemeType = z.infer<typeof SchemeType>;
export type Transaction = z.infer<typeof Transaction>;
export type Holding = z.infer<typeof Holding>;
export type Holdings = z.infer<typeof Holdings>;
export type DematAccount = z.infer<typeof DematAccount>;
export type Scheme = z.infer<typeof Scheme>;
export type MutualFundFolio = z.infer<typeof MutualFundFolio>;
export type LinkedHolder = z.infer<typeof LinkedHolder>;
export type NpsAccount = z.infer<typeof NpsAccount>;
export type LifeInsurancePolicy = z.infer<typeof LifeInsurancePolicy>;
export type Summary = z.infer<typeof Summary>;
export type Meta = z.infer<typeof Meta>;
export type Investor = z.infer<typeof Investor>;
export type ParsedStatement = z.infer<typeof ParsedStatement>;

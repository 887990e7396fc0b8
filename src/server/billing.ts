/**
 * Billing features: a closed set, so a route naming a feature that does not exist does not compile.
 * Prices per feature in credits (SPEC.md fixes mailbox search and regulator verification; the rest
 * are ours, documented in the README):
 *
 * | feature            | credits | charged                 |
 * | parse              | 1       | on success              |
 * | contract_note      | 1       | on success              |
 * | fetch              | 1       | on success (OTP verify) |
 * | mailback           | 0.5     | on success              |
 * | inbox_search       | 0.2     | always (once valid)     |
 * | regulator          | 0.25    | on success              |
 * | kyc                | 0.5     | on success              |
 * | the others         | 0       |                         |
 *
 * A charge is reserved atomically once the request is authenticated and valid (so concurrent
 * requests can never overdraw a key) and refunded afterwards when the outcome is not billable
 * (src/server/auth.ts).
 */

export const FEATURES = [
  'parse',
  'contract_note',
  'fetch',
  'mailback',
  'inbox_search',
  'regulator',
  'kyc',
  'fetch_session',
  'inbox_connect',
  'inbox_status',
  'inbox_disconnect',
  'inbound_email',
  'locker',
  'credits',
  'usage',
  'token',
] as const;
export type Feature = (typeof FEATURES)[number];

export interface Price {
  credits: number;
  always: boolean;
}

export const PRICES: Record<Feature, Price | null> = {
  parse: { credits: 1, always: false },
  contract_note: { credits: 1, always: false },
  fetch: { credits: 1, always: false },
  mailback: { credits: 0.5, always: false },
  inbox_search: { credits: 0.2, always: true },
  regulator: { credits: 0.25, always: false },
  kyc: { credits: 0.5, always: false },
  fetch_session: null,
  inbox_connect: null,
  inbox_status: null,
  inbox_disconnect: null,
  inbound_email: null,
  locker: null,
  credits: null,
  usage: null,
  token: null,
};

/** The billed features (`enabled_features` of the credits endpoint), in price-table order. */
export const BILLED: Feature[] = FEATURES.filter((f) => PRICES[f]);

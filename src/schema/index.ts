/** Every SPEC.md resource as a zod schema; all types in the code are inferred from these. */
import { z } from 'zod';
import * as common from './common.js';
import * as statement from './statement.js';
import * as contract from './contract-note.js';
import * as mail from './mail.js';
import * as kyc from './kyc.js';
import * as regulator from './regulator.js';
import * as locker from './locker.js';
import * as account from './account.js';
import * as retrieval from './retrieval.js';
import * as gains from './gains.js';
import * as portfolio from './portfolio.js';

export * from './common.js';
export * from './statement.js';
export * from './contract-note.js';
export * from './mail.js';
export * from './kyc.js';
export * from './regulator.js';
export * from './locker.js';
export * from './account.js';
export * from './retrieval.js';
export * from './gains.js';
export * from './portfolio.js';

/** Names accepted by `cas schema NAME` (kebab-case resource names). */
export const SCHEMAS: Record<string, { schema: z.ZodType; description: string }> = {
  error: { schema: common.ErrorBody, description: 'Common error body {status: failed, msg}' },
  'mailbox-error': { schema: common.MailboxErrorBody, description: 'Mailbox error body {status: error, msg, requires_reconnect}' },
  'detail-error': { schema: common.DetailErrorBody, description: 'Usage-log token rejection {detail}' },
  'request-id': { schema: common.RequestId, description: 'X-Request-ID header value' },
  'parsed-statement': { schema: statement.ParsedStatement, description: 'Unified parsed statement (every statement parse)' },
  transaction: { schema: statement.Transaction, description: 'One transaction of a scheme or holding' },
  holding: { schema: statement.Holding, description: 'One demat holding' },
  'demat-account': { schema: statement.DematAccount, description: 'One demat account' },
  'mutual-fund-folio': { schema: statement.MutualFundFolio, description: 'One mutual fund folio' },
  scheme: { schema: statement.Scheme, description: 'One scheme of a folio' },
  'contract-note': { schema: contract.ContractNote, description: 'Contract note parse response' },
  'email-statement-file': { schema: mail.EmailStatementFile, description: 'A statement file found by mailbox or inbound email' },
  'inbound-email': { schema: mail.InboundEmail, description: 'Forwarding address' },
  'inbound-email-list': { schema: mail.InboundEmailList, description: 'GET /v4/inbound-email response' },
  'inbound-webhook-payload': { schema: mail.InboundWebhookPayload, description: 'Webhook body sent to callback_url' },
  'kyc-status': { schema: kyc.KycStatusResponse, description: 'KYC status of a PAN across five agencies' },
  'kyc-agency-status': { schema: kyc.KycAgencyStatus, description: "One agency's KYC status" },
  'regulator-request': { schema: regulator.RegulatorRequest, description: 'POST /v1/verify/regulator body' },
  'regulator-response': { schema: regulator.RegulatorResponse, description: 'Regulator verification response' },
  'verified-identity': { schema: locker.VerifiedIdentity, description: 'Locker: verified identity' },
  'national-id-record': { schema: locker.NationalIdRecord, description: 'Locker: national-ID e-record' },
  'pan-certificate': { schema: locker.PanCertificate, description: 'Locker: PAN certificate' },
  'driving-licence': { schema: locker.DrivingLicence, description: 'Locker: driving licence' },
  signature: { schema: locker.SignatureProvenance, description: 'Locker: signature provenance' },
  'locker-document': { schema: locker.LockerDocument, description: 'Locker: issued document' },
  'consent-receipt': { schema: locker.ConsentReceipt, description: 'Locker: consent receipt' },
  'usage-log-entry': { schema: account.UsageLogEntry, description: 'One usage log entry' },
  'usage-response': { schema: account.UsageResponse, description: 'POST /v1/usage response' },
  'usage-summary': { schema: account.UsageSummaryResponse, description: 'POST /v1/usage/summary response' },
  credits: { schema: account.CreditsResponse, description: 'POST /v1/credits response' },
  'access-token': { schema: account.AccessToken, description: 'Access token string (at_...)' },
  'token-response': { schema: account.TokenResponse, description: 'POST /v1/token response' },
  'token-verify': { schema: account.TokenVerifyResponse, description: 'POST /v1/token/verify response' },
  'fetch-request': { schema: retrieval.FetchRequest, description: 'POST /v4/depository_a/fetch body' },
  'fetch-verify-response': { schema: retrieval.FetchVerifyResponse, description: 'OTP verify response' },
  gains: { schema: gains.GainsReport, description: 'Realised capital gains of mutual fund units (cas gains, /v4/smart/gains)' },
  portfolio: {
    schema: portfolio.Portfolio,
    description: 'One portfolio merged from many statements, with XIRR (cas portfolio, /v4/smart/portfolio)',
  },
  'mailback-request': { schema: retrieval.MailbackRequest, description: 'POST /v4/registrar_b/generate body' },
};

/** JSON Schema (draft 2020-12) of a named resource. */
export function jsonSchemaOf(name: string): Record<string, unknown> | undefined {
  const entry = SCHEMAS[name];
  if (!entry) return undefined;
  const out = z.toJSONSchema(entry.schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...out, title: name, description: entry.description };
}

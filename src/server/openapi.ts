/**
 * GET /openapi.json: an OpenAPI 3.1 document generated from the zod schemas. Every operation is
 * listed under SPEC.md's path and, where the hosted service names it differently, under its
 * real-name path too (names.ts), with the real-name response schema (dialect.ts), so a client
 * generator pointed here produces an SDK that also speaks to the hosted service. Shared paths are
 * documented in the server's `--names` dialect.
 */
import { z } from 'zod';
import * as S from '../schema/index.js';
import { realJsonSchema, type Shape } from '../schema/dialect.js';
import { realPaths, type Names } from '../schema/names.js';

const cached = new Map<Names, Record<string, unknown>>();

interface Op {
  method: 'get' | 'post' | 'delete';
  path: string;
  id: string;
  summary: string;
  response?: z.ZodType;
  shape?: Shape;
  body?: Record<string, unknown>;
  params?: Record<string, unknown>[];
  status?: number;
  /** operationIds of the real-name paths, in names.ts order (the hosted document's, where it has one). */
  realIds?: string[];
  /** Request body of the real-name paths, when it differs. */
  realBody?: Record<string, unknown>;
}

/**
 * JSON Schema of a response, open to members it does not list (`additionalProperties: false`
 * dropped, as in the hosted API's document): the service adds documented extensions such as
 * `received_at` or `webhook_secret`, and generated clients must keep working when it adds more.
 */
const open = (s: unknown): unknown => {
  if (Array.isArray(s)) return s.map(open);
  if (!s || typeof s !== 'object') return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) if (!(k === 'additionalProperties' && v === false)) out[k] = open(v);
  return out;
};
const jsonOf = (schema: z.ZodType): Record<string, unknown> => open(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' })) as Record<string, unknown>;
const obj = (properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> => ({ type: 'object', properties, ...(required.length ? { required } : {}) });
const str = { type: 'string' };
const pathParam = (name: string) => ({ name, in: 'path', required: true, schema: str });
const inboxToken = { name: 'x-inbox-token', in: 'header', required: true, schema: str };

export function openapiDocument(names: Names = 'spec'): Record<string, unknown> {
  const hit = cached.get(names);
  if (hit) return hit;
  const parseJson = obj({ pdf_file: { type: 'string', contentEncoding: 'base64' }, pdf_url: { type: 'string', format: 'uri' }, password: str, broker_type: str });
  const parseBody = { 'application/json': { schema: parseJson }, 'multipart/form-data': { schema: obj({ pdf_file: { type: 'string', format: 'binary' }, pdf_url: { type: 'string', format: 'uri' }, password: str, broker_type: str }) } };
  const json = (schema: z.ZodType | Record<string, unknown>) => ({ 'application/json': { schema: schema instanceof z.ZodType ? jsonOf(schema) : schema } });
  const ops: Op[] = [
    { method: 'post', path: '/v4/smart/parse', id: 'smartParse', summary: 'Detect the statement type and parse', response: S.ParsedStatement, shape: 'statement', body: { 'multipart/form-data': { schema: obj({ file: { type: 'string', format: 'binary' }, pdf_file: { type: 'string', format: 'binary' }, password: str }) }, 'application/json': { schema: parseJson } } },
    { method: 'post', path: '/v4/depository_a/parse', id: 'depositoryAParse', realIds: ['cdslParse'], summary: 'Parse a depository_a statement', response: S.ParsedStatement, shape: 'statement', body: parseBody },
    { method: 'post', path: '/v4/depository_b/parse', id: 'depositoryBParse', realIds: ['nsdlParse'], summary: 'Parse a depository_b statement', response: S.ParsedStatement, shape: 'statement', body: parseBody },
    { method: 'post', path: '/v4/registrar_a_registrar_b/parse', id: 'registrarParse', realIds: ['camsKfintechParse'], summary: 'Parse a registrar statement', response: S.ParsedStatement, shape: 'statement', body: parseBody },
    { method: 'post', path: '/v4/contract_note/parse', id: 'parseContractNote', summary: 'Parse a broker contract note', response: S.ContractNote, shape: 'contract_note', body: parseBody },
    { method: 'post', path: '/v4/smart/gains', id: 'smartGains', summary: 'Realised capital gains of a detailed registrar statement (FIFO, Indian tax rules by date); billed like smart parse', response: S.GainsReport, params: [{ name: 'fy', in: 'query', schema: { type: 'string', pattern: '^\\d{4}-\\d{2}$' } }], body: { 'application/json': { schema: obj({ pdf_file: { type: 'string', contentEncoding: 'base64' }, pdf_url: { type: 'string', format: 'uri' }, password: str, fy: str, scheme_types: { type: 'string', description: 'CSV lines ISIN,equity|debt|other' }, fmv: { type: 'string', description: 'NAV history download text holding the NAVs of 31 Jan 2018' } }) }, 'multipart/form-data': { schema: obj({ file: { type: 'string', format: 'binary' }, pdf_file: { type: 'string', format: 'binary' }, password: str }) } } },
    { method: 'post', path: '/v4/depository_a/fetch', id: 'depositoryAFetchRequestOtp', realIds: ['cdslFetchRequestOTP'], summary: 'OTP fetch, step 1: send the OTP', response: S.FetchResponse, body: json(S.FetchRequest) },
    { method: 'post', path: '/v4/depository_a/fetch/{session_id}/verify', id: 'depositoryAFetchVerifyOtp', realIds: ['cdslFetchVerifyOTP'], summary: 'OTP fetch, step 2: verify and list the statements', response: S.FetchVerifyResponse, body: json(S.FetchVerifyRequest), params: [pathParam('session_id')] },
    { method: 'post', path: '/v4/registrar_b/generate', id: 'registrarBGenerate', realIds: ['kfintechGenerateCas', 'generateCas'], summary: 'Mailback request to registrar_b', response: S.MailbackResponse, body: json(S.MailbackRequest) },
    { method: 'post', path: '/v4/inbox/connect', id: 'inboxConnect', summary: 'Connect a mailbox (OAuth URL, or IMAP)', response: S.InboxConnectResponse, body: json(S.InboxConnectRequest) },
    { method: 'post', path: '/v4/inbox/status', id: 'inboxStatus', summary: 'Mailbox connection status', response: S.InboxStatusResponse, shape: 'inbox_status', params: [inboxToken] },
    { method: 'post', path: '/v4/inbox/cas', id: 'inboxCasList', summary: 'Statement files in the mailbox', response: S.InboxSearchResponse, shape: 'email_files', body: json(S.InboxSearchRequest), params: [inboxToken] },
    { method: 'post', path: '/v4/inbox/disconnect', id: 'inboxDisconnect', summary: 'Revoke mailbox access', response: S.MailbackResponse, params: [inboxToken] },
    { method: 'post', path: '/v4/inbound-email', id: 'createInboundEmail', summary: 'Create a forwarding address', response: S.InboundEmail, shape: 'inbound_email', body: json(S.InboundEmailCreateRequest), status: 201 },
    { method: 'get', path: '/v4/inbound-email', id: 'listInboundEmails', summary: 'List forwarding addresses', response: S.InboundEmailList, shape: 'inbound_list', params: [{ name: 'status', in: 'query', schema: { type: 'string', enum: ['active', 'paused', 'all'] } }, { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } }, { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } }] },
    { method: 'get', path: '/v4/inbound-email/{inbound_email_id}', id: 'getInboundEmail', summary: 'One forwarding address', response: S.InboundEmail, shape: 'inbound_email', params: [pathParam('inbound_email_id')] },
    { method: 'delete', path: '/v4/inbound-email/{inbound_email_id}', id: 'deleteInboundEmail', summary: 'Delete a forwarding address', response: S.MailbackResponse, params: [pathParam('inbound_email_id')] },
    { method: 'get', path: '/v4/inbound-email/{inbound_email_id}/files', id: 'listInboundEmailFiles', summary: 'Statement files received', response: S.InboxSearchResponse.extend({ cursor: z.string().nullable() }), shape: 'email_files', params: [pathParam('inbound_email_id'), { name: 'since', in: 'query', schema: { type: 'string', format: 'date-time' } }, { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } }] },
    { method: 'post', path: '/v1/credits', id: 'checkCredits', summary: 'Remaining credits', response: S.CreditsResponse, shape: 'credits' },
    { method: 'post', path: '/v1/usage', id: 'getUsageLogs', summary: 'Usage logs', response: S.UsageResponse, shape: 'usage', body: json(S.UsageRequest) },
    { method: 'post', path: '/v1/usage/summary', id: 'getUsageSummary', summary: 'Usage by feature', response: S.UsageSummaryResponse, shape: 'usage_summary', body: json(S.UsageRequest) },
    { method: 'post', path: '/v1/token', id: 'generateAccessToken', summary: 'Create an access token', response: S.TokenResponse, body: json(S.TokenRequest) },
    { method: 'post', path: '/v1/token/verify', id: 'verifyAccessToken', summary: 'Check an access token (the one in x-api-key, or access_token in the body)', response: S.TokenVerifyResponse, shape: 'token_verify' },
    { method: 'post', path: '/v1/verify/regulator', id: 'verifyRegulatorIntermediary', realIds: ['verifySebiIntermediary'], summary: 'Verify a market-regulator registration', response: S.RegulatorResponse, shape: 'regulator', body: json(obj({ registration_number: str, name: str, type: str })) },
    { method: 'post', path: '/v1/kyc/pan/status', id: 'checkKycPanStatus', summary: 'KYC status of a PAN across the five agencies', response: S.KycStatusResponse, shape: 'kyc', body: json(obj({ pan_no: str }, ['pan_no'])) },
    { method: 'post', path: '/v1/kyc/locker/session', id: 'startLockerSession', realIds: ['startDigilockerSession'], realBody: json(obj({ consent: { type: 'boolean' }, consent_purpose: { type: 'string', minLength: 20 }, redirect_url: { type: 'string', format: 'uri' }, documents: { type: 'array', items: { type: 'string', enum: ['aadhaar', 'pan', 'driving_licence', 'email', 'mobile'] } } }, ['consent', 'consent_purpose', 'redirect_url'])), summary: 'Start a document-locker consent session', body: json(obj({ consent: { type: 'boolean' }, purpose: str, redirect_url: { type: 'string', format: 'uri' }, documents: { type: 'array', items: { type: 'string', enum: ['pan', 'national_id', 'driving_licence'] } } }, ['consent', 'purpose', 'redirect_url'])) },
    { method: 'post', path: '/v1/kyc/locker/result/{session_id}', id: 'lockerResult', realIds: ['digilockerResult'], summary: 'Identity, documents and records of a locker session', shape: 'locker_result', params: [pathParam('session_id')] },
  ];

  const components: Record<string, unknown> = {};
  const error = { $ref: '#/components/schemas/ErrorBody' };
  components.ErrorBody = jsonOf(S.ErrorBody);
  const errors = { 400: { description: 'bad request', content: { 'application/json': { schema: error } } }, 401: { description: 'missing API key', content: { 'application/json': { schema: error } } }, 402: { description: 'insufficient credits', content: { 'application/json': { schema: error } } }, 403: { description: 'invalid key or quota exceeded', content: { 'application/json': { schema: error } } }, 500: { description: 'server error', content: { 'application/json': { schema: error } } } };
  // Each response schema is one component, named as in src/schema (ParsedStatement, ContractNote, ...);
  // its real-name form is `<name>Real`.
  const named = new Map<unknown, string>();
  for (const [k, v] of Object.entries(S)) if (v instanceof z.ZodType && !named.has(v)) named.set(v, k);
  const responseSchema = (op: Op, real: boolean): Record<string, unknown> => {
    const name = (op.response && named.get(op.response)) || `${op.id[0].toUpperCase()}${op.id.slice(1)}Response`;
    components[name] ??= op.response ? jsonOf(op.response) : { type: 'object' };
    if (!real || !op.shape) return { $ref: `#/components/schemas/${name}` };
    components[`${name}Real`] ??= realJsonSchema(op.shape, components[name]);
    return { $ref: `#/components/schemas/${name}Real` };
  };
  const operation = (op: Op, real: boolean, id: string) => ({
    operationId: id,
    summary: op.summary,
    security: [{ apiKey: [] }],
    ...(op.params ? { parameters: op.params } : {}),
    ...((real && op.realBody) || op.body ? { requestBody: { required: false, content: (real && op.realBody) || op.body } } : {}),
    responses: { [op.status ?? 200]: { description: 'success', content: { 'application/json': { schema: responseSchema(op, real) } } }, ...errors },
  });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ops) {
    const reals = realPaths(op.path);
    (paths[op.path] ??= {})[op.method] = operation(op, reals.length === 0 && names === 'real', op.id);
    reals.forEach((p, i) => {
      (paths[p] ??= {})[op.method] = operation(op, true, op.realIds?.[i] ?? `${op.id}Real${i ? i + 1 : ''}`);
    });
  }
  const doc = {
    openapi: '3.1.0',
    info: { title: 'cas service', version: '1', description: `Statement parsing, retrieval and verification service (see SPEC.md). Every response carries X-Request-ID. Real-name paths answer in real names; shared paths answer in this server's dialect (${names}).` },
    components: { schemas: components, securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    paths,
  };
  cached.set(names, doc);
  return doc;
}

/** GET /openapi.json: an OpenAPI 3.1 document generated from the zod schemas. */
import { z } from 'zod';
import * as S from '../schema/index.js';

let cached: Record<string, unknown> | undefined;

export function openapiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const components: Record<string, unknown> = {};
  const ref = (name: string, schema: z.ZodType): { $ref: string } => {
    if (!components[name]) components[name] = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' });
    return { $ref: `#/components/schemas/${name}` };
  };
  const error = ref('ErrorBody', S.ErrorBody);
  const errors = { 400: { description: 'bad request', content: { 'application/json': { schema: error } } }, 401: { description: 'missing API key', content: { 'application/json': { schema: error } } }, 402: { description: 'insufficient credits', content: { 'application/json': { schema: error } } }, 403: { description: 'invalid key or quota exceeded', content: { 'application/json': { schema: error } } }, 500: { description: 'server error', content: { 'application/json': { schema: error } } } };
  const op = (summary: string, response: { $ref: string }, body?: Record<string, unknown>) => ({
    post: {
      summary, security: [{ apiKey: [] }],
      ...(body ? { requestBody: { required: true, content: body } } : {}),
      responses: { 200: { description: 'success', content: { 'application/json': { schema: response } } }, ...errors },
    },
  });
  const parseBody = { 'application/json': { schema: { type: 'object', properties: { pdf_file: { type: 'string', contentEncoding: 'base64' }, pdf_url: { type: 'string', format: 'uri' }, password: { type: 'string' } } } }, 'multipart/form-data': { schema: { type: 'object', properties: { pdf_file: { type: 'string', format: 'binary' }, password: { type: 'string' } } } } };
  const statement = ref('ParsedStatement', S.ParsedStatement);
  cached = {
    openapi: '3.1.0',
    info: { title: 'cas service', version: '1', description: 'Statement parsing, retrieval and verification service (see SPEC.md). Every response carries X-Request-ID.' },
    components: { schemas: components, securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    paths: {
      '/v4/smart/parse': op('Detect the statement type and parse', statement, { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' }, password: { type: 'string' } } } }, 'application/json': parseBody['application/json'] }),
      '/v4/depository_a/parse': op('Parse a depository_a statement', statement, parseBody),
      '/v4/depository_b/parse': op('Parse a depository_b statement', statement, parseBody),
      '/v4/registrar_a_registrar_b/parse': op('Parse a registrar statement', statement, parseBody),
      '/v4/contract_note/parse': op('Parse a broker contract note', ref('ContractNote', S.ContractNote), parseBody),
      '/v1/credits': op('Remaining credits', ref('CreditsResponse', S.CreditsResponse)),
      '/v1/usage': op('Usage logs', ref('UsageResponse', S.UsageResponse), { 'application/json': { schema: ref('UsageRequest', S.UsageRequest) } }),
      '/v1/usage/summary': op('Usage by feature', ref('UsageSummaryResponse', S.UsageSummaryResponse)),
      '/v1/token': op('Create an access token', ref('TokenResponse', S.TokenResponse), { 'application/json': { schema: ref('TokenRequest', S.TokenRequest) } }),
      '/v1/token/verify': op('Check an access token', ref('TokenVerifyResponse', S.TokenVerifyResponse)),
    },
  };
  return cached;
}

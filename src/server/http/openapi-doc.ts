/**
 * The OpenAPI 3.1 document (src/server/openapi.ts prints it without a server), generated from the
 * route declarations the server registers (each section's `*_ROUTES`, http/sections.ts): each route's request schemas (body, query, path, headers) and response
 * schemas as declared on it in zod. Every operation is listed under SPEC.md's path and, where the
 * hosted service names it differently, under its real-name path too (names.ts), with the real-name
 * response schema (`<Name>Real`, dialect.ts), so a client generator pointed here produces an SDK
 * that also speaks to the hosted service. Shared paths are documented in the server's `--names` dialect.
 */
import { z } from 'zod';
import * as S from '../../schema/index.js';
import { realJsonSchema, type Shape } from '../../schema/dialect.js';
import { realPaths, type Names } from '../../schema/names.js';
import type { RouteDecl } from '../context.js';

/** One route, as the document needs it: its declaration (context.ts). */
export type RouteDoc = RouteDecl;

type Obj = Record<string, unknown>;

/**
 * JSON Schema of a zod schema, open to members it does not list (`additionalProperties: false`
 * dropped, as in the hosted API's document): the service adds documented extensions such as
 * `received_at` or `webhook_secret`, and generated clients must keep working when it adds more.
 */
const open = (s: unknown): unknown => {
  if (Array.isArray(s)) return s.map(open);
  if (!s || typeof s !== 'object') return s;
  const out: Obj = {};
  for (const [k, v] of Object.entries(s)) if (!(k === 'additionalProperties' && v === false) && k !== '$schema') out[k] = open(v);
  return out;
};
const jsonOf = (schema: z.ZodType, io: 'input' | 'output' = 'output'): Obj =>
  open(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' })) as Obj;
const errorBody = { $ref: '#/components/schemas/ErrorBody' };
const ERRORS: Record<number, string> = {
  400: 'bad request',
  401: 'missing API key',
  402: 'insufficient credits',
  403: 'invalid key or quota exceeded',
  500: 'server error',
};

/** Parameters of one location from an object schema (`path`, `query`, `header`). */
function parameters(schema: z.ZodType | undefined, where: 'path' | 'query' | 'header'): Obj[] {
  if (!schema) return [];
  const json = jsonOf(schema, 'input') as { properties?: Record<string, Obj>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    ...(where === 'path' || json.required?.includes(name) ? { required: true } : {}),
    schema: s,
  }));
}

/** The document of a set of routes; shared paths in the `names` dialect. */
export function buildDocument(routes: readonly RouteDoc[], names: Names): Obj {
  const components: Obj = { ErrorBody: jsonOf(S.ErrorBody) };
  // Each response schema is one component, named as in src/schema (ParsedStatement, ContractNote, ...)
  // or after its operation; its real-name form is `<name>Real`.
  const named = new Map<unknown, string>();
  for (const [k, v] of Object.entries(S)) if (v instanceof z.ZodType && !named.has(v)) named.set(v, k);
  const component = (schema: z.ZodType, fallback: string, shape: Shape | undefined, real: boolean): Obj => {
    const name = named.get(schema) ?? fallback;
    components[name] ??= jsonOf(schema);
    if (!real || !shape) return { $ref: `#/components/schemas/${name}` };
    components[`${name}Real`] ??= realJsonSchema(shape, components[name]);
    return { $ref: `#/components/schemas/${name}Real` };
  };

  const operation = (r: RouteDoc, real: boolean, id: string): Obj => {
    const s = r.schema ?? {};
    const shape: Shape | undefined = r.config?.meta?.shape === 'parse' ? 'statement' : r.config?.meta?.shape;
    const secured = Boolean(r.config?.meta && r.config.meta.auth !== 'none');
    const base = `${(s.operationId ?? id)[0].toUpperCase()}${(s.operationId ?? id).slice(1)}`;
    const params = [...parameters(s.params, 'path'), ...parameters(s.querystring, 'query'), ...parameters(s.headers, 'header')];
    const content: Obj = {};
    if (s.body) content['application/json'] = { schema: (real && r.config?.doc?.realBody) || jsonOf(s.body, 'input') };
    if (s.body && r.config?.doc?.fileFields) {
      // The same fields as a form, the PDF as a file in any of the file fields.
      const { properties = {} } = jsonOf(s.body, 'input') as { properties?: Obj };
      const { pdf_file: _b64, ...fields } = properties;
      content['multipart/form-data'] = {
        schema: {
          type: 'object',
          properties: { ...Object.fromEntries(r.config.doc.fileFields.map((f) => [f, { type: 'string', format: 'binary' }])), ...fields },
        },
      };
    }
    const responses: Obj = {};
    for (const [status, schema] of Object.entries(s.response ?? {})) {
      const code = Number(status);
      const description = schema.description ?? 'success';
      if (code >= 300 && code < 400) responses[status] = { description };
      else if (r.url.startsWith('/files/'))
        responses[status] = { description, content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } };
      else
        responses[status] = { description, content: { 'application/json': { schema: component(schema, `${base}Response`, shape, real) } } };
    }
    for (const [code, description] of Object.entries(ERRORS)) {
      if (!secured && code !== '400' && code !== '500') continue;
      responses[code] ??= { description, content: { 'application/json': { schema: errorBody } } };
    }
    return {
      operationId: id,
      ...(s.summary ? { summary: s.summary } : {}),
      security: secured ? [{ apiKey: [] }] : [],
      ...(params.length ? { parameters: params } : {}),
      ...(Object.keys(content).length ? { requestBody: { required: false, content } } : {}),
      responses,
    };
  };

  const paths: Record<string, Obj> = {};
  for (const r of routes) {
    const p = r.url.replace(/:(\w+)/g, '{$1}');
    const id =
      r.schema?.operationId ?? `${r.method}${p.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`;
    const reals = realPaths(p);
    (paths[p] ??= {})[r.method] = operation(r, reals.length === 0 && names === 'real', id);
    reals.forEach((rp, i) => {
      (paths[rp] ??= {})[r.method] = operation(r, true, r.config?.doc?.realIds?.[i] ?? `${id}Real${i ? i + 1 : ''}`);
    });
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'cas service',
      version: '1',
      description: `Statement parsing, retrieval and verification service (see SPEC.md). Every response carries X-Request-ID. Real-name paths answer in real names; shared paths answer in this server's dialect (${names}).`,
    },
    components: { schemas: components, securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    paths,
  };
}

/**
 * `openapiDocument(names)`: the OpenAPI document of `cas serve --names <names>` (what its
 * GET /openapi.json answers), written from the route declarations of every section
 * (http/sections.ts) by http/openapi-doc.ts: no app, no store, no listening server. `cas openapi` prints it.
 */
import type { Names } from '../schema/names.js';
import { ROUTES } from './http/sections.js';
import { buildDocument } from './http/openapi-doc.js';

export { buildDocument, type RouteDoc } from './http/openapi-doc.js';

const cached = new Map<Names, Record<string, unknown>>();

export function openapiDocument(names: Names = 'spec'): Promise<Record<string, unknown>> {
  let doc = cached.get(names);
  if (!doc) cached.set(names, (doc = buildDocument(ROUTES, names)));
  return Promise.resolve(doc);
}

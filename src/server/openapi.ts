/**
 * `openapiDocument(names)`: the OpenAPI document of `cas serve --names <names>` (what its
 * GET /openapi.json answers), built without a listening server or a database: the route plugins
 * are registered on an app whose store is never opened, and the document is generated from the
 * routes they register (src/server/openapi-doc.ts). `cas openapi` prints it.
 */
import type { Names } from '../schema/names.js';
import { buildApp } from './http/app.js';
import { defaultConfig } from './config.js';
import { buildDocument } from './http/openapi-doc.js';

export { buildDocument, type RouteDoc } from './http/openapi-doc.js';

const cached = new Map<Names, Promise<Record<string, unknown>>>();

export function openapiDocument(names: Names = 'spec'): Promise<Record<string, unknown>> {
  let hit = cached.get(names);
  if (!hit) {
    hit = (async () => {
      const unused = new Proxy(
        {},
        {
          get: () => {
            throw new Error('openapiDocument: the routes are only registered, never called');
          },
        },
      );
      const f = await buildApp({
        db: unused as never,
        instanceId: 'openapi',
        pool: unused as never,
        files: unused as never,
        config: defaultConfig({ names }),
        providers: { fetch: null, mailback: null },
      });
      await f.ready();
      const doc = buildDocument(f.casRoutes, names);
      await f.close();
      return doc;
    })();
    cached.set(names, hit);
  }
  return hit;
}

/** Meta: health, and the OpenAPI document of every route this server registers. */
import { ping } from '../store/settings.js';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { route, type Section } from '../context.js';
import { buildDocument } from './openapi-doc.js';

const health = route({
  method: 'get',
  url: '/health',
  schema: {
    operationId: 'health',
    summary: 'The service is up and its store answers (503 naming the store when it does not)',
    response: { 200: z.object({ status: z.literal('success') }) },
  },
});

const openapi = route({
  method: 'get',
  url: '/openapi.json',
  schema: {
    operationId: 'openapi',
    summary: "This document (shared paths in the server's --names dialect)",
    response: { 200: z.record(z.string(), z.unknown()).describe('OpenAPI 3.1 document') },
  },
});

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const META_ROUTES = [health, openapi] as const;

export const metaRoutes: Section = async (f, { app }) => {
  f.route({
    ...health,
    handler: async (_req, reply) => {
      // A load balancer must take an instance whose store cannot answer out of rotation.
      try {
        await ping(app.db);
      } catch (err) {
        const store = app.db.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite';
        return (reply as unknown as FastifyReply)
          .code(503)
          .header('Retry-After', '2')
          .send({
            status: 'failed',
            msg: `the store (${store}, ${app.db.label}) cannot answer: ${(err as Error).message.split('\n')[0]}`,
          });
      }
      return { status: 'success' as const };
    },
  });

  let doc: Record<string, unknown> | undefined;
  f.route({
    ...openapi,
    handler: async () => (doc ??= buildDocument(f.casRoutes, app.config.names)),
  });
};

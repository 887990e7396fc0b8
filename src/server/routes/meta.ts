/** Meta: health, and the OpenAPI document of every route this server registers. */
import { z } from 'zod';
import type { Section } from '../context.js';
import { buildDocument } from '../openapi-doc.js';

export const metaRoutes: Section = async (f, { app }) => {
  f.get(
    '/health',
    {
      schema: { operationId: 'health', summary: 'The service is up', response: { 200: z.object({ status: z.literal('success') }) } },
    },
    async () => ({ status: 'success' as const }),
  );

  let doc: Record<string, unknown> | undefined;
  f.get(
    '/openapi.json',
    {
      schema: {
        operationId: 'openapi',
        summary: "This document (shared paths in the server's --names dialect)",
        response: { 200: z.record(z.string(), z.unknown()).describe('OpenAPI 3.1 document') },
      },
    },
    async () => (doc ??= buildDocument(f.casRoutes, app.config.names)),
  );
};

/** `cas openapi`: the service's OpenAPI document. */
import type { CommandInput, Handler } from '../command.js';
import type { openapiSpec } from '../definitions/schema.js';

/** The document the service serves at GET /openapi.json, built without starting it (the one CLI path besides `cas serve` that loads server code). */
export const openapi: Handler<CommandInput<typeof openapiSpec>> = async (_ctx, { names }) => {
  const { openapiDocument } = await import('../../server/openapi.js');
  const doc = await openapiDocument(names ?? 'spec');
  return { data: doc, format: 'json', pretty: true };
};

/** `cas schema` and `cas openapi`: the definitions. */
import { defineSpec } from '../command.js';
import { NAMES_CHOICES } from './parse.js';

export const schemaSpec = defineSpec({
  name: 'schema',
  args: ['[name]'],
  examples: ['cas schema', 'cas schema parsed-statement > parsed-statement.schema.json'],
});

export const openapiSpec = defineSpec({
  name: 'openapi',
  examples: ['cas openapi > openapi.json', 'cas openapi --names real | jq ".paths | keys"'],
  options: [
    {
      flags: '--names <names>',
      description: 'dialect of the shared paths: spec (SPEC.md names) or real',
      choices: NAMES_CHOICES,
      strict: true,
      default: 'spec',
    },
  ],
});

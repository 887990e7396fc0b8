/**
 * The `postgres` project on a machine without PostgreSQL (vitest.config.ts puts this file in place of
 * the server suite): one skipped test that names the tool, and the stderr line of test/helpers/tools.ts.
 */
import { expect, it } from 'vitest';
import { needs } from '../helpers/tools.js';

const postgres = needs('postgres');

it.skipIf(postgres.skip)(`the server suite on PostgreSQL${postgres.note}`, () => {
  // Only reached when PostgreSQL appeared after vitest.config.ts looked for it.
  expect(postgres.skip, 'PostgreSQL was installed during the run: run `npm test` again').toBe(true);
});

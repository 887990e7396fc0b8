/** `cas verify-regulator`, `cas kyc`, `cas locker session|result`: the definitions. */
import { defineSpec } from '../command.js';

/** Category slugs and aliases the service accepts (it resolves them; listed for help and completion). */
const REGULATOR_TYPES = ['ria', 'ra', 'pms', 'broker', 'rta', 'mf', 'aif', 'cra', 'vcf', 'fvci', 'fpi', 'kra', 'invit', 'reit'];

export const verifyRegulatorSpec = defineSpec({
  name: 'verify-regulator',
  args: ['[registration_number]'],
  examples: [
    'cas verify-regulator INA000012345',
    'cas verify-regulator --name "Acme Advisors" --type ria',
    'cas verify-regulator MF/001/93/0 --type mf --json',
  ],
  options: [
    { flags: '--name <name>', description: 'registrant name (with --type)' },
    { flags: '--type <category>', description: `category slug or alias: ${REGULATOR_TYPES.join(', ')}`, choices: REGULATOR_TYPES },
  ],
});

export const kycSpec = defineSpec({
  name: 'kyc',
  args: ['<pan>'],
  examples: ['cas kyc ABCPM1234K', 'cas kyc ABCPM1234K --json | jq .kyc_compliant'],
});

export const lockerSessionSpec = defineSpec({
  name: 'session',
  summary: 'start a consent session and print the locker URL',
  examples: [
    'cas locker session --consent --purpose "Account opening KYC verification" --redirect-url https://app.example/done --documents pan,national_id',
  ],
  options: [
    { flags: '--consent', description: 'the user agrees to share the documents' },
    { flags: '--purpose <text>', description: 'why (20+ characters)' },
    { flags: '--redirect-url <url>', description: 'where the user returns' },
    { flags: '--documents <list>', description: 'pan,national_id,driving_licence (default all)' },
  ],
});
export const lockerResultSpec = defineSpec({
  name: 'result',
  summary: 'fetch the identity, documents and records of a session',
  args: ['<session_id>'],
  examples: ['cas locker result lk_0123abcd'],
});

export const lockerSpec = defineSpec({
  name: 'locker',
  examples: [
    'cas locker session --consent --purpose "Account opening KYC verification" --redirect-url https://app.example/done',
    'cas locker result lk_0123abcd --json',
  ],
  subcommands: [lockerSessionSpec, lockerResultSpec],
});

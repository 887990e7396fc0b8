/** `cas serve` and its administration sub-commands: the definitions. Nothing here loads server code. */
import { defineOptions, defineSpec } from '../command.js';
import { NAMES_CHOICES } from './parse.js';

/** Where the administration commands find the database. */
const DB_OPTIONS = defineOptions([
  { flags: '--database <url|file>', description: 'postgres:// URL or SQLite file (env CAS_DATABASE_URL; default DATA_DIR/cas.db)' },
  { flags: '--db <file>', description: 'SQLite database file' },
  { flags: '--data-dir <dir>', description: 'data folder' },
]);

const PROVIDERS = ['sandbox', 'http', 'none'];

/** `cas serve` itself (the service); serveSpec adds the administration sub-commands. */
export const serveServiceSpec = defineSpec({
  name: 'serve',
  examples: [
    'cas serve --port 8080 --data-dir ./cas-data',
    'CAS_DATABASE_URL=postgres://cas@db/cas CAS_SECRET_KEY=... cas serve --port 8081 --files-dir /mnt/cas-files',
    'cas serve keys create --credits 100 --rate 60/min',
    'cas serve keys list',
    'cas serve credits add 1 50',
  ],
  options: [
    { flags: '--host <host>', description: 'address to listen on', default: '127.0.0.1' },
    { flags: '--port <port>', description: 'port (0 picks a free one)', default: '8080' },
    {
      flags: '--database <url|file>',
      description: 'store: a postgres:// URL (several instances) or a SQLite file (env CAS_DATABASE_URL; default DATA_DIR/cas.db)',
    },
    { flags: '--db <file>', description: 'SQLite database file (default DATA_DIR/cas.db)' },
    { flags: '--data-dir <dir>', description: 'data folder (default ./cas-data or CAS_DATA_DIR)' },
    {
      flags: '--files-dir <dir>',
      description: 'stored statement files, one folder for every instance (env CAS_FILES_DIR; default DATA_DIR/files)',
    },
    { flags: '--sandbox-key <key>', description: 'sandbox key (default cas_sandbox_public_key or CAS_SANDBOX_KEY)' },
    { flags: '--allow-fetch-host <host...>', description: 'hosts pdf_url may reach even on private addresses (tests, intranets)' },
    {
      flags: '--fetch-provider <name>',
      description: 'depository_a fetch upstream: sandbox, http or none (env CAS_FETCH_PROVIDER)',
      choices: PROVIDERS,
    },
    {
      flags: '--mailback-provider <name>',
      description: 'registrar_b mailback upstream: sandbox, http or none (env CAS_MAILBACK_PROVIDER)',
      choices: PROVIDERS,
    },
    { flags: '--upstream-url <url>', description: 'base URL of the http providers (env CAS_UPSTREAM_URL)' },
    {
      flags: '--kyc-provider <name>',
      description: 'KYC agencies: sandbox, recorded or none (env CAS_KYC_PROVIDER)',
      choices: ['sandbox', 'recorded', 'none'],
    },
    { flags: '--kyc-dir <dir>', description: 'recorded agency answers for --kyc-provider recorded (env CAS_KYC_RECORDED_DIR)' },
    { flags: '--locker-url <url>', description: 'document locker base URL (env CAS_LOCKER_URL)' },
    { flags: '--smtp-port <port>', description: 'run the inbound SMTP receiver on this port (env CAS_SMTP_PORT; 0 picks one)' },
    { flags: '--inbound-domain <domain>', description: 'domain of forwarding addresses (env CAS_INBOUND_DOMAIN)' },
    {
      flags: '--names <names>',
      description:
        'dialect of the shared paths (smart parse, contract notes, inbox, inbound email, KYC): spec or real (env CAS_NAMES); real-name paths always answer in real names',
      choices: NAMES_CHOICES,
      strict: true,
    },
    {
      flags: '--public-url <url>',
      description: 'the only base of the links the service hands out (env CAS_PUBLIC_URL; default the listening address)',
    },
    {
      flags: '--secret-key-file <file>',
      description:
        'file holding the 32-byte key that encrypts stored secrets, base64 or hex (env CAS_SECRET_KEY / CAS_SECRET_KEY_FILE; default a key file beside the database)',
    },
  ],
});

export const keysCreateSpec = defineSpec({
  name: 'create',
  summary: 'create a key (shown once)',
  examples: ['cas serve keys create --credits 100 --rate 60/min', 'cas serve keys create --unlimited'],
  options: [
    { flags: '--credits <n>', description: 'starting credits' },
    { flags: '--unlimited', description: 'no credit limit' },
    { flags: '--rate <n/min>', description: 'requests per minute' },
    { flags: '--name <name>', description: 'a label' },
    ...DB_OPTIONS,
  ],
});
export const keysListSpec = defineSpec({
  name: 'list',
  summary: 'list keys (never the secrets)',
  examples: ['cas serve keys list'],
  options: DB_OPTIONS,
});
export const keysRevokeSpec = defineSpec({
  name: 'revoke',
  summary: 'revoke a key by id',
  args: ['<id>'],
  examples: ['cas serve keys revoke 3'],
  options: DB_OPTIONS,
});
export const registryImportSpec = defineSpec({
  name: 'import',
  summary: 'import a CSV or JSON list of registrations (idempotent)',
  args: ['<file>'],
  examples: ['cas serve registry import investment-advisers.csv --data-dir ./cas-data'],
  options: DB_OPTIONS,
});
export const creditsAddSpec = defineSpec({
  name: 'add',
  summary: 'add credits to key ID',
  args: ['<id>', '<credits>'],
  examples: ['cas serve credits add 1 100'],
  options: DB_OPTIONS,
});

/** `cas serve` and its administration groups. */
export const serveSpec = defineSpec({
  ...serveServiceSpec,
  alsoRuns: true,
  subcommands: [
    defineSpec({
      name: 'keys',
      summary: 'create, list and revoke API keys',
      examples: ['cas serve keys create --credits 100'],
      subcommands: [keysCreateSpec, keysListSpec, keysRevokeSpec],
    }),
    defineSpec({
      name: 'registry',
      summary: 'load the regulator registry',
      examples: ['cas serve registry import registry.csv'],
      subcommands: [registryImportSpec],
    }),
    defineSpec({
      name: 'credits',
      summary: 'add credits to a key',
      examples: ['cas serve credits add 1 100'],
      subcommands: [creditsAddSpec],
    }),
  ],
});

/**
 * The command index of `cas`: every top-level command in help order with its one-line summary,
 * and the global options. Each command's full definition (arguments, options, examples,
 * sub-commands) loads only when the command is named, so `cas --help` reads this file alone and
 * `cas parse --help` adds parse's definition; src/cli/handlers.ts binds the handlers.
 */
import type { CommandEntry, OptionDef } from '../command.js';

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'parse',
    summary: 'Parse statement PDFs locally into the unified JSON structure',
    load: () => import('./parse.js').then((m) => m.parseSpec),
  },
  {
    name: 'smart',
    summary: 'Detect the statement type, report the evidence, and parse',
    load: () => import('./parse.js').then((m) => m.smartSpec),
  },
  {
    name: 'gains',
    summary: 'Realised capital gains of mutual fund units (FIFO, Indian tax rules by date; Schedule 112A CSV)',
    load: () => import('./gains.js').then((m) => m.gainsSpec),
  },
  {
    name: 'portfolio',
    summary: 'One portfolio from many statements: holdings merged and de-duplicated, gaps, XIRR',
    load: () => import('./portfolio.js').then((m) => m.portfolioSpec),
  },
  {
    name: 'schema',
    summary: 'Print the JSON Schema (draft 2020-12) of a resource, or list resource names',
    load: () => import('./schema.js').then((m) => m.schemaSpec),
  },
  {
    name: 'config',
    summary: 'Read and write the config file (api_key, base_url, pan, inbox_token)',
    load: () => import('./config.js').then((m) => m.configSpec),
  },
  {
    name: 'fetch',
    summary: 'Fetch depository_a statements with an OTP (asks for it on a terminal)',
    load: () => import('./retrieval.js').then((m) => m.fetchSpec),
  },
  {
    name: 'verify-otp',
    summary: 'Complete a depository_a fetch with its OTP (the scripted second step)',
    load: () => import('./retrieval.js').then((m) => m.verifyOtpSpec),
  },
  {
    name: 'mailback',
    summary: 'Ask registrar_b to email a statement (password-protected with your password)',
    load: () => import('./retrieval.js').then((m) => m.mailbackSpec),
  },
  {
    name: 'verify-regulator',
    summary: 'Verify a market-regulator registration by number, or by name and category',
    load: () => import('./verify.js').then((m) => m.verifyRegulatorSpec),
  },
  {
    name: 'kyc',
    summary: 'KYC status of a PAN across the five KYC registration agencies',
    load: () => import('./verify.js').then((m) => m.kycSpec),
  },
  {
    name: 'locker',
    summary: 'Identity documents from the document locker (consent, then records)',
    load: () => import('./verify.js').then((m) => m.lockerSpec),
  },
  {
    name: 'inbound',
    summary: 'Forwarding addresses: create, list, pause, and read the statement files they receive',
    load: () => import('./inbound.js').then((m) => m.inboundSpec),
  },
  {
    name: 'inbox',
    summary: 'Connected mailbox: find statement emails and download their PDFs',
    load: () => import('./inbox.js').then((m) => m.inboxSpec),
  },
  { name: 'credits', summary: 'Show the remaining credits of your API key', load: () => import('./account.js').then((m) => m.creditsSpec) },
  {
    name: 'usage',
    summary: 'Show usage logs, or usage by feature with --summary',
    load: () => import('./account.js').then((m) => m.usageSpec),
  },
  { name: 'token', summary: 'Create or check short-lived access tokens', load: () => import('./account.js').then((m) => m.tokenSpec) },
  {
    name: 'serve',
    summary: 'Run the cas service (HTTP and SMTP; SQLite or PostgreSQL), or administer its keys',
    load: () => import('./serve.js').then((m) => m.serveSpec),
  },
  {
    name: 'openapi',
    summary: "Print the service's OpenAPI document (JSON), without starting the service",
    load: () => import('./schema.js').then((m) => m.openapiSpec),
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh, fish)',
    load: () => import('./completion.js').then((m) => m.completionSpec),
  },
];

/** `-V, --version` is added by commander (listed here for the completion scripts). */
export const VERSION_OPTION: OptionDef = { flags: '-V, --version', description: 'output the version number' };

export const GLOBAL_OPTIONS: readonly OptionDef[] = [
  { flags: '--json', description: 'JSON output (the default when stdout is not a terminal)' },
  { flags: '--table', description: 'table output (the default on a terminal)' },
  { flags: '-o, --output <file>', description: 'write data to FILE (atomically) instead of stdout' },
  { flags: '--api-key <key>', description: 'API key (prefer CAS_API_KEY or `cas config set api_key -`)' },
  { flags: '--api-key-file <file>', description: 'read the API key from FILE (- for stdin)' },
  { flags: '--base-url <url>', description: 'service base URL (env CAS_BASE_URL)' },
  { flags: '--no-color', description: 'disable colour (NO_COLOR is honoured too)' },
  { flags: '--no-input', description: 'never prompt; fail with a clear error instead' },
  { flags: '-q, --quiet', description: 'print nothing but data and errors' },
  { flags: '--verbose', description: 'print diagnostic detail on stderr' },
];

export const PROGRAM = {
  name: 'cas',
  summary: 'Parse, fetch and verify Indian investor statements into one unified JSON structure.',
  examples: [
    'cas parse statement.pdf',
    'cas parse statement.pdf | jq .summary.total_value',
    'cas smart --detect-only statement.pdf',
    'cas schema parsed-statement',
  ],
} as const;

/**
 * The `cas` program. Commands are declared once here (name, options, examples) and their
 * modules are loaded only when run, so `cas --help` never loads pdf.js.
 */
import { Command, CommanderError, Option } from 'commander';
import { createRequire } from 'node:module';
import { CasError, ExitCode } from '../errors.js';
import { makeContext, type Context, type GlobalOptions } from './context.js';

const require = createRequire(import.meta.url);
const pkg = require('../../package.json') as { version: string };

export interface CommandSpec {
  name: string;
  summary: string;
  args?: string[];
  examples: string[];
  options?: Option[];
  /** Sub-commands (e.g. `config get`). */
  subcommands?: CommandSpec[];
  load?: () => Promise<{ run: (ctx: Context, args: unknown[], opts: Record<string, unknown>) => Promise<number | void> }>;
}

const PARSE_TYPES = 'registrar | depository_a | depository_b | contract_note (aliases: cams, kfintech, cdsl, nsdl, ...)';

function parseOptions(): Option[] {
  return [
    new Option('-t, --type <type>', `statement type, skipping detection: ${PARSE_TYPES}`),
    new Option('--broker <broker>', 'contract-note broker (broker_a..broker_d, or zerodha, groww, upstox, icici), overriding detection'),
    new Option('--names <names>', 'names in the JSON: spec (SPEC.md\'s neutral names) or real (CDSL, NSDL, CAMS_KFINTECH, zerodha, ...)').choices(['spec', 'real']).default('spec'),
    new Option('-p, --password <password>', 'PDF password (prefer --password-file or CAS_PDF_PASSWORD)'),
    new Option('--password-file <file>', 'read the PDF password from a file (- for stdin)'),
    new Option('--csv <what>', 'write CSV instead of JSON').choices(['holdings', 'transactions']),
    new Option('--transactions', 'include transactions in table output'),
    new Option('-j, --jobs <n>', 'parallel workers for several files (default: number of cores)'),
    new Option('--out-dir <dir>', 'write each file\'s JSON to DIR/<name>.json (atomically) instead of stdout'),
    new Option('--debug-layout', 'print the text lines with their positions instead of parsing (to report a layout)'),
    new Option('--redact', 'with --debug-layout: mask digits and words that are not statement labels'),
  ];
}

export const COMMANDS: CommandSpec[] = [
  {
    name: 'parse',
    summary: 'Parse statement PDFs locally into the unified JSON structure',
    args: ['<files...>'],
    examples: [
      'cas parse statement.pdf',
      'cas parse statement.pdf | jq .summary.total_value',
      'cas parse --type cams --password-file pw.txt cas.pdf',
      'cas parse statements/ --csv transactions --output tx.csv',
      'cas parse statements/ --out-dir parsed/',
      'cas parse --debug-layout --redact statement.pdf > layout.txt',
      'cat cas.pdf | cas parse -',
    ],
    options: parseOptions(),
    load: () => import('./commands/parse.js'),
  },
  {
    name: 'smart',
    summary: 'Detect the statement type, report the evidence, and parse',
    args: ['<files...>'],
    examples: ['cas smart statement.pdf', 'cas smart --detect-only statement.pdf'],
    options: [...parseOptions(), new Option('--detect-only', 'print only the detection as JSON')],
    load: () => import('./commands/smart.js'),
  },
  {
    name: 'gains',
    summary: 'Realised capital gains of mutual fund units (FIFO, Indian tax rules by date; Schedule 112A CSV)',
    args: ['<files...>'],
    examples: ['cas gains cas.pdf --fy 2025-26 --table', 'cas gains cas.pdf --fy 2025-26 --format csv -o 112a.csv', 'cas gains cas.pdf --fmv nav-2018-01-31.txt --scheme-types types.csv --json'],
    options: [
      new Option('--fy <year>', 'one financial year, e.g. 2025-26'),
      new Option('--format <format>', 'json, table, or csv (Schedule 112A; with -o FILE the other rows go to FILE-other.csv)').choices(['json', 'table', 'csv']),
      new Option('--scheme-types <file>', 'CSV of ISIN,equity|debt|other for schemes the name does not settle'),
      new Option('--fmv <file>', 'NAV history download holding the NAVs of 31 Jan 2018 (grandfathering)'),
      new Option('-p, --password <password>', 'PDF password (prefer --password-file or CAS_PDF_PASSWORD)'),
      new Option('--password-file <file>', 'read the PDF password from a file'),
    ],
    load: () => import('./commands/gains.js'),
  },
  {
    name: 'schema',
    summary: 'Print the JSON Schema (draft 2020-12) of a resource, or list resource names',
    args: ['[name]'],
    examples: ['cas schema', 'cas schema parsed-statement > parsed-statement.schema.json'],
    load: () => import('./commands/schema.js'),
  },
  {
    name: 'config',
    summary: 'Read and write the config file (api_key, base_url, pan, inbox_token)',
    examples: ['cas config set base_url http://127.0.0.1:8080', 'printf %s "$KEY" | cas config set api_key -', 'cas config list', 'cas config path'],
    subcommands: [
      { name: 'get', summary: 'print one value (secrets masked unless --reveal)', args: ['<key>'], examples: ['cas config get base_url', 'cas config get base_url --effective'], options: [new Option('--reveal', 'print a secret in clear'), new Option('--effective', 'the value in force: flag > env > config file (source on stderr)')], load: () => import('./commands/config.js') },
      { name: 'set', summary: 'set a value (for secrets: - reads stdin; no value prompts hidden)', args: ['<key>', '[value]'], examples: ['cas config set pan ABCDE1234F'], load: () => import('./commands/config.js') },
      { name: 'unset', summary: 'remove a value', args: ['<key>'], examples: ['cas config unset api_key'], load: () => import('./commands/config.js') },
      { name: 'list', summary: 'list all values (secrets masked)', examples: ['cas config list --json'], load: () => import('./commands/config.js') },
      { name: 'path', summary: 'print the config file path', examples: ['cas config path'], load: () => import('./commands/config.js') },
    ],
  },
  {
    name: 'fetch',
    summary: 'Fetch depository_a statements with an OTP (asks for it on a terminal)',
    examples: ['cas fetch --pan ABCDE1234F --bo-id 1208160000123456 --dob 1990-01-31 --out-dir statements --parse', 'cas --no-input fetch --pan ABCDE1234F --bo-id 1208160000123456 --dob 1990-01-31   # prints the session'],
    options: [new Option('--pan <pan>', 'PAN of the first holder'), new Option('--bo-id <id>', '16-digit BO ID'), new Option('--dob <date>', 'date of birth, YYYY-MM-DD'), new Option('--periods <n>', 'monthly statements, 1-6 (default 6)'), new Option('--out-dir <dir>', 'where to save the PDFs (default .)'), new Option('--parse', 'parse each PDF and print the unified JSON')],
    load: () => import('./commands/retrieval.js'),
  },
  {
    name: 'verify-otp',
    summary: 'Complete a depository_a fetch with its OTP (the scripted second step)',
    args: ['<session_id>'],
    examples: ['cas verify-otp fs_0123abcd --otp 123456 --out-dir statements --parse --pan ABCDE1234F', 'printf 123456 | cas verify-otp fs_0123abcd --otp -'],
    options: [new Option('--otp <otp>', 'the OTP (- reads stdin)'), new Option('--periods <n>', 'monthly statements, 1-6 (default 6)'), new Option('--out-dir <dir>', 'where to save the PDFs (default .)'), new Option('--parse', 'parse each PDF and print the unified JSON'), new Option('--pan <pan>', 'PAN, the password of the PDFs (for --parse)')],
    load: () => import('./commands/retrieval.js'),
  },
  {
    name: 'mailback',
    summary: 'Ask registrar_b to email a statement (password-protected with your password)',
    examples: ['cas mailback --email me@example.com --from 2025-04-01 --to 2026-03-31 --password-file pw.txt', 'printf %s "$PW" | cas mailback --email me@example.com --from 2025-04-01 --to 2026-03-31'],
    options: [new Option('--email <email>', 'where the statement is sent'), new Option('--from <date>', 'period start, YYYY-MM-DD'), new Option('--to <date>', 'period end, YYYY-MM-DD'), new Option('--pan <pan>', 'PAN (optional)'), new Option('--password-file <file>', 'the PDF password to set (- for stdin; otherwise stdin or a hidden prompt)')],
    load: () => import('./commands/retrieval.js'),
  },
  {
    name: 'verify-regulator',
    summary: 'Verify a market-regulator registration by number, or by name and category',
    args: ['[registration_number]'],
    examples: ['cas verify-regulator INA000012345', 'cas verify-regulator --name "Acme Advisors" --type ria', 'cas verify-regulator MF/001/93/0 --type mf --json'],
    options: [new Option('--name <name>', 'registrant name (with --type)'), new Option('--type <category>', 'category slug or alias: ria, ra, pms, broker, rta, mf, aif, cra, vcf, fvci, fpi, kra, invit, reit')],
    load: () => import('./commands/verify.js'),
  },
  {
    name: 'kyc',
    summary: 'KYC status of a PAN across the five KYC registration agencies',
    args: ['<pan>'],
    examples: ['cas kyc ABCDE1234F', 'cas kyc ABCDE1234F --json | jq .kyc_compliant'],
    load: () => import('./commands/verify.js'),
  },
  {
    name: 'locker',
    summary: 'Identity documents from the document locker (consent, then records)',
    examples: ['cas locker session --consent --purpose "Account opening KYC verification" --redirect-url https://app.example/done', 'cas locker result lk_0123abcd --json'],
    subcommands: [
      { name: 'session', summary: 'start a consent session and print the locker URL', examples: ['cas locker session --consent --purpose "Account opening KYC verification" --redirect-url https://app.example/done --documents pan,national_id'], options: [new Option('--consent', 'the user agrees to share the documents'), new Option('--purpose <text>', 'why (20+ characters)'), new Option('--redirect-url <url>', 'where the user returns'), new Option('--documents <list>', 'pan,national_id,driving_licence (default all)')], load: () => import('./commands/verify.js').then((m) => ({ run: m.runLocker })) },
      { name: 'result', summary: 'fetch the identity, documents and records of a session', args: ['<session_id>'], examples: ['cas locker result lk_0123abcd'], load: () => import('./commands/verify.js').then((m) => ({ run: m.runLocker })) },
    ],
  },
  {
    name: 'inbound',
    summary: 'Forwarding addresses: create, list, pause, and read the statement files they receive',
    examples: ['cas inbound create --alias aarav --callback-url https://app.example/hooks/cas', 'cas inbound files ie_0123 --download statements/', 'cas inbound verify-signature --secret-file whsec.txt --header "$SIG" --body-file body.json'],
    subcommands: [
      { name: 'create', summary: 'create an address (prints its webhook secret once)', examples: ['cas inbound create --alias aarav --source registrar_a --source registrar_b'], options: [new Option('--alias <alias>', 'local part of the address'), new Option('--reference <ref>', 'your own reference'), new Option('--callback-url <url>', 'webhook target'), new Option('--source <source...>', 'allowed sources (depository_a, depository_b, registrar_a, registrar_b); default all'), new Option('--meta <key=value...>', 'metadata pairs (at most 10)')], load: () => import('./commands/inbound.js') },
      { name: 'list', summary: 'list addresses', examples: ['cas inbound list --status paused'], options: [new Option('--status <status>', 'active, paused or all').default('all'), new Option('--limit <n>', '1-100').default('20'), new Option('--offset <n>', '0 or more').default('0')], load: () => import('./commands/inbound.js') },
      { name: 'get', summary: 'show one address', args: ['<id>'], examples: ['cas inbound get ie_0123'], load: () => import('./commands/inbound.js') },
      { name: 'delete', summary: 'delete an address (final)', args: ['<id>'], examples: ['cas inbound delete ie_0123'], load: () => import('./commands/inbound.js') },
      { name: 'pause', summary: 'stop accepting mail', args: ['<id>'], examples: ['cas inbound pause ie_0123'], load: () => import('./commands/inbound.js') },
      { name: 'resume', summary: 'accept mail again', args: ['<id>'], examples: ['cas inbound resume ie_0123'], load: () => import('./commands/inbound.js') },
      { name: 'files', summary: 'list received statement files (and download them)', args: ['<id>'], examples: ['cas inbound files ie_0123 --since 2026-04-01T00:00:00Z --download statements/'], options: [new Option('--since <time>', 'ISO date-time'), new Option('--limit <n>', '1-100'), new Option('--download <dir>', 'save the PDFs here')], load: () => import('./commands/inbound.js') },
      { name: 'verify-signature', summary: 'check a webhook body against its X-Cas-Signature header (exit 0 valid, 1 not)', examples: ['cas inbound verify-signature --secret-file whsec.txt --header "t=...,v1=..." < body.json'], options: [new Option('--secret-file <file>', 'file holding the webhook secret (or env CAS_WEBHOOK_SECRET)'), new Option('--header <value>', 'the X-Cas-Signature header'), new Option('--body-file <file>', 'the raw body (default stdin)'), new Option('--tolerance <seconds>', 'maximum age of the timestamp (default 300; 0 = any)').default('300')], load: () => import('./commands/inbound.js') },
    ],
  },
  {
    name: 'inbox',
    summary: 'Connected mailbox: find statement emails and download their PDFs',
    examples: ['cas inbox connect --provider gmail', 'cas inbox connect --provider imap --host imap.example.com --user me@example.com --password-file app-pw.txt', 'cas inbox list --from 2026-01-01 --type registrar_a', 'cas inbox download --out-dir statements --parse', 'cas inbox disconnect'],
    subcommands: [
      { name: 'connect', summary: 'connect a mailbox (gmail: browser consent; imap: host, user, app password)', examples: ['cas inbox connect --provider imap --host imap.example.com --user me@example.com --password-file app-pw.txt'], options: [new Option('--provider <provider>', 'gmail or imap').default('gmail'), new Option('--host <host>', 'IMAP host'), new Option('--port <port>', 'IMAP port (default 993)'), new Option('--no-tls', 'plain IMAP (local servers only)'), new Option('--user <user>', 'mailbox user'), new Option('--password-file <file>', 'app password file (- for stdin)'), new Option('--show-token', 'also print the inbox token')], load: () => import('./commands/inbox.js') },
      { name: 'status', summary: 'is the mailbox connected?', examples: ['cas inbox status'], load: () => import('./commands/inbox.js') },
      { name: 'list', summary: 'search for statement files (0.2 credits a search)', examples: ['cas inbox list --from 2026-01-01 --to 2026-03-31'], options: [new Option('--from <date>', 'start, YYYY-MM-DD (default 30 days ago)'), new Option('--to <date>', 'end, YYYY-MM-DD (default today)'), new Option('--type <type...>', 'depository_a, depository_b, registrar_a, registrar_b')], load: () => import('./commands/inbox.js') },
      { name: 'download', summary: 'search and save the PDFs (and parse them)', examples: ['cas inbox download --out-dir statements --parse'], options: [new Option('--from <date>', 'start, YYYY-MM-DD'), new Option('--to <date>', 'end, YYYY-MM-DD'), new Option('--type <type...>', 'statement sources'), new Option('--out-dir <dir>', 'where to save (default .)'), new Option('--parse', 'parse each PDF (password: CAS_PDF_PASSWORD or the configured PAN)')], load: () => import('./commands/inbox.js') },
      { name: 'disconnect', summary: 'revoke the mailbox access', examples: ['cas inbox disconnect'], load: () => import('./commands/inbox.js') },
    ],
  },
  {
    name: 'credits',
    summary: 'Show the remaining credits of your API key',
    examples: ['cas credits', 'cas credits --json | jq .remaining'],
    load: () => import('./commands/account.js'),
  },
  {
    name: 'usage',
    summary: 'Show usage logs, or usage by feature with --summary',
    examples: ['cas usage --limit 20', 'cas usage --from 2026-04-01 --to 2026-04-30 --summary'],
    options: [new Option('--from <date>', 'start (YYYY-MM-DD or ISO date-time)'), new Option('--to <date>', 'end (YYYY-MM-DD or ISO date-time)'), new Option('--limit <n>', 'at most n entries (1-1000)'), new Option('--summary', 'aggregate by feature')],
    load: () => import('./commands/account.js'),
  },
  {
    name: 'token',
    summary: 'Create or check short-lived access tokens',
    examples: ['cas token create --expiry 30', 'cas token verify at_...'],
    subcommands: [
      { name: 'create', summary: 'create an access token (usable in place of the key on /v4/*)', examples: ['cas token create --expiry 15'], options: [new Option('--expiry <minutes>', 'lifetime in minutes, 1-60 (default 60)')], load: () => import('./commands/account.js') },
      { name: 'verify', summary: 'check an access token (argument or stdin)', args: ['[token]'], examples: ['cas token verify at_abc', 'printf %s "$TOKEN" | cas token verify -'], load: () => import('./commands/account.js') },
    ],
  },
  {
    name: 'serve',
    summary: 'Run the cas service (HTTP, SQLite), or administer its keys',
    examples: ['cas serve --port 8080 --data-dir ./cas-data', 'cas serve keys create --credits 100 --rate 60/min', 'cas serve keys list', 'cas serve credits add 1 50'],
    options: [new Option('--host <host>', 'address to listen on').default('127.0.0.1'), new Option('--port <port>', 'port (0 picks a free one)').default('8080'), new Option('--db <file>', 'SQLite database file (default DATA_DIR/cas.db)'), new Option('--data-dir <dir>', 'data folder (default ./cas-data or CAS_DATA_DIR)'), new Option('--sandbox-key <key>', 'sandbox key (default cas_sandbox_public_key or CAS_SANDBOX_KEY)'), new Option('--allow-fetch-host <host...>', 'hosts pdf_url may reach even on private addresses (tests, intranets)'), new Option('--fetch-provider <name>', 'depository_a fetch upstream: sandbox, http or none (env CAS_FETCH_PROVIDER)'), new Option('--mailback-provider <name>', 'registrar_b mailback upstream: sandbox, http or none (env CAS_MAILBACK_PROVIDER)'), new Option('--upstream-url <url>', 'base URL of the http providers (env CAS_UPSTREAM_URL)'), new Option('--kyc-provider <name>', 'KYC agencies: sandbox, recorded or none (env CAS_KYC_PROVIDER)'), new Option('--kyc-dir <dir>', 'recorded agency answers for --kyc-provider recorded (env CAS_KYC_RECORDED_DIR)'), new Option('--locker-url <url>', 'document locker base URL (env CAS_LOCKER_URL)'), new Option('--smtp-port <port>', 'run the inbound SMTP receiver on this port (env CAS_SMTP_PORT; 0 picks one)'), new Option('--inbound-domain <domain>', 'domain of forwarding addresses (env CAS_INBOUND_DOMAIN)'), new Option('--names <names>', 'dialect of the shared paths (smart parse, contract notes, inbox, inbound email, KYC): spec or real (env CAS_NAMES); real-name paths always answer in real names').choices(['spec', 'real'])],
    load: () => import('./commands/serve.js'),
    subcommands: [
      {
        name: 'keys', summary: 'create, list and revoke API keys', examples: ['cas serve keys create --credits 100'],
        subcommands: [
          { name: 'create', summary: 'create a key (shown once)', examples: ['cas serve keys create --credits 100 --rate 60/min', 'cas serve keys create --unlimited'], options: [new Option('--credits <n>', 'starting credits'), new Option('--unlimited', 'no credit limit'), new Option('--rate <n/min>', 'requests per minute'), new Option('--name <name>', 'a label'), new Option('--db <file>', 'database file'), new Option('--data-dir <dir>', 'data folder')], load: () => import('./commands/serve.js') },
          { name: 'list', summary: 'list keys (never the secrets)', examples: ['cas serve keys list'], options: [new Option('--db <file>', 'database file'), new Option('--data-dir <dir>', 'data folder')], load: () => import('./commands/serve.js') },
          { name: 'revoke', summary: 'revoke a key by id', args: ['<id>'], examples: ['cas serve keys revoke 3'], options: [new Option('--db <file>', 'database file'), new Option('--data-dir <dir>', 'data folder')], load: () => import('./commands/serve.js') },
        ],
      },
      {
        name: 'registry', summary: 'load the regulator registry', examples: ['cas serve registry import registry.csv'],
        subcommands: [{ name: 'import', summary: 'import a CSV or JSON list of registrations (idempotent)', args: ['<file>'], examples: ['cas serve registry import investment-advisers.csv --data-dir ./cas-data'], options: [new Option('--db <file>', 'database file'), new Option('--data-dir <dir>', 'data folder')], load: () => import('./commands/serve.js') }],
      },
      {
        name: 'credits', summary: 'add credits to a key', examples: ['cas serve credits add 1 100'],
        subcommands: [{ name: 'add', summary: 'add credits to key ID', args: ['<id>', '<credits>'], examples: ['cas serve credits add 1 100'], options: [new Option('--db <file>', 'database file'), new Option('--data-dir <dir>', 'data folder')], load: () => import('./commands/serve.js') }],
      },
    ],
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh, fish)',
    args: ['<shell>'],
    examples: ['cas completion bash > /etc/bash_completion.d/cas', 'cas completion zsh > "${fpath[1]}/_cas"', 'cas completion fish > ~/.config/fish/completions/cas.fish'],
    load: () => import('./commands/completion.js'),
  },
];

function examplesText(examples: string[]): string {
  return `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`;
}

function addCommand(parent: Command, spec: CommandSpec, path: string[]): void {
  const cmd = parent.command(spec.name).description(spec.summary);
  cmd.addHelpText('before', examplesText(spec.examples));
  for (const a of spec.args ?? []) cmd.argument(a);
  for (const o of spec.options ?? []) cmd.addOption(o);
  if (spec.subcommands) {
    for (const sub of spec.subcommands) addCommand(cmd, sub, [...path, spec.name]);
  }
  const load = spec.load;
  if (!load) return;
  cmd.action(async (...raw: unknown[]) => {
    const command = raw[raw.length - 1] as Command;
    const opts = raw[raw.length - 2] as Record<string, unknown>;
    const args = raw.slice(0, -2);
    const ctx = makeContext(command.optsWithGlobals() as GlobalOptions);
    const mod = await load();
    // Options given to a parent (e.g. `cas serve --data-dir D keys list`, or after the sub-command) count too.
    const code = await mod.run(ctx, args, { ...command.optsWithGlobals(), ...opts, __command: [...path, spec.name].join(' ') });
    if (typeof code === 'number') process.exitCode = code;
  });
}

export function buildProgram(): Command {
  const program = new Command('cas');
  program
    .description('Parse, fetch and verify Indian investor statements into one unified JSON structure.')
    .version(pkg.version, '-V, --version')
    .option('--json', 'JSON output (the default when stdout is not a terminal)')
    .option('--table', 'table output (the default on a terminal)')
    .option('-o, --output <file>', 'write data to FILE (atomically) instead of stdout')
    .option('--api-key <key>', 'API key (prefer CAS_API_KEY or `cas config set api_key -`)')
    .option('--base-url <url>', 'service base URL (env CAS_BASE_URL)')
    .option('--no-color', 'disable colour (NO_COLOR is honoured too)')
    .option('--no-input', 'never prompt; fail with a clear error instead')
    .option('-q, --quiet', 'print nothing but data and errors')
    .option('--verbose', 'print diagnostic detail on stderr')
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: () => undefined })
    .exitOverride();
  program.addHelpText('before', examplesText([
    'cas parse statement.pdf',
    'cas parse statement.pdf | jq .summary.total_value',
    'cas smart --detect-only statement.pdf',
    'cas schema parsed-statement',
  ]));
  program.addHelpText('after', '\nExit codes: 0 ok, 1 unexpected, 2 usage, 3 document, 4 auth/credits, 5 service, 130 interrupted.\n');
  for (const spec of COMMANDS) addCommand(program, spec, []);
  const applyOverride = (c: Command): void => {
    c.exitOverride();
    c.configureOutput({ outputError: () => undefined });
    c.commands.forEach(applyOverride);
  };
  program.commands.forEach(applyOverride);
  return program;
}

function oneLine(s: string): string {
  return s.replace(/^error:\s*/i, '').split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
}

/** The one central error handler: typed errors -> one line on stderr + exit code. */
export function handleError(err: unknown): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.OK;
    if (err.code === 'commander.executeSubCommandAsync') return ExitCode.UNEXPECTED;
    process.stderr.write(`cas: ${oneLine(err.message)} (see cas --help)\n`);
    return ExitCode.USAGE;
  }
  if (err instanceof CasError) {
    process.stderr.write(`cas: ${oneLine(err.message)}\n`);
    return err.exitCode;
  }
  const e = err as { name?: string; message?: string; code?: string };
  if (e?.name === 'ExitPromptError' || e?.name === 'AbortPromptError') {
    process.stderr.write('cas: cancelled\n');
    return ExitCode.INTERRUPTED;
  }
  if (e?.code === 'EPIPE') return ExitCode.OK;
  if (e?.code === 'ENOENT' || e?.code === 'EACCES' || e?.code === 'EISDIR') {
    process.stderr.write(`cas: ${e.message}\n`);
    return ExitCode.UNEXPECTED;
  }
  process.stderr.write(`cas: unexpected error: ${oneLine(String(e?.message ?? err))}\n`);
  if (process.env.CAS_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  return ExitCode.UNEXPECTED;
}

export async function main(argv: string[]): Promise<void> {
  process.on('SIGINT', () => {
    process.stderr.write('\ncas: interrupted\n');
    process.exit(ExitCode.INTERRUPTED);
  });
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  const program = buildProgram();
  if (argv.length <= 2) {
    program.outputHelp();
    process.exitCode = ExitCode.OK;
    return;
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = handleError(err);
  }
}

/** `cas inbox ...`: the definitions. */
import { defineSpec } from '../command.js';
import { SOURCE_CHOICES } from './inbound.js';

export const inboxConnectSpec = defineSpec({
  name: 'connect',
  summary: 'connect a mailbox (gmail: browser consent; imap: host, user, app password)',
  examples: ['cas inbox connect --provider imap --host imap.example.com --user me@example.com --password-file app-pw.txt'],
  options: [
    { flags: '--provider <provider>', description: 'gmail or imap', choices: ['gmail', 'imap'], default: 'gmail' },
    { flags: '--host <host>', description: 'IMAP host' },
    { flags: '--port <port>', description: 'IMAP port (default 993)' },
    { flags: '--no-tls', description: 'plain IMAP (local servers only)' },
    { flags: '--user <user>', description: 'mailbox user' },
    { flags: '--password-file <file>', description: 'app password file (- for stdin)' },
    { flags: '--show-token', description: 'also print the inbox token' },
  ],
});

export const inboxListSpec = defineSpec({
  name: 'list',
  summary: 'search for statement files (0.2 credits a search)',
  examples: ['cas inbox list --from 2026-01-01 --to 2026-03-31'],
  options: [
    { flags: '--from <date>', description: 'start, YYYY-MM-DD (default 30 days ago)' },
    { flags: '--to <date>', description: 'end, YYYY-MM-DD (default today)' },
    { flags: '--type <type...>', description: SOURCE_CHOICES.join(', '), choices: SOURCE_CHOICES },
  ],
});

export const inboxDownloadSpec = defineSpec({
  name: 'download',
  summary: 'search and save the PDFs (and parse them)',
  examples: ['cas inbox download --out-dir statements --parse'],
  options: [
    { flags: '--from <date>', description: 'start, YYYY-MM-DD' },
    { flags: '--to <date>', description: 'end, YYYY-MM-DD' },
    { flags: '--type <type...>', description: 'statement sources', choices: SOURCE_CHOICES },
    { flags: '--out-dir <dir>', description: 'where to save (default .)' },
    { flags: '--parse', description: 'parse each PDF (password: CAS_PDF_PASSWORD or the configured PAN)' },
  ],
});

export const inboxStatusSpec = defineSpec({ name: 'status', summary: 'is the mailbox connected?', examples: ['cas inbox status'] });
export const inboxDisconnectSpec = defineSpec({
  name: 'disconnect',
  summary: 'revoke the mailbox access',
  examples: ['cas inbox disconnect'],
});

export const inboxSpec = defineSpec({
  name: 'inbox',
  examples: [
    'cas inbox connect --provider gmail',
    'cas inbox connect --provider imap --host imap.example.com --user me@example.com --password-file app-pw.txt',
    'cas inbox list --from 2026-01-01 --type registrar_a',
    'cas inbox download --out-dir statements --parse',
    'cas inbox disconnect',
  ],
  subcommands: [inboxConnectSpec, inboxStatusSpec, inboxListSpec, inboxDownloadSpec, inboxDisconnectSpec],
});

/** `cas inbound ...`: the definitions. */
import { defineSpec } from '../command.js';

/** The sources a forwarding address or a mailbox search can be limited to. */
export const SOURCE_CHOICES = ['depository_a', 'depository_b', 'registrar_a', 'registrar_b'];

export const inboundCreateSpec = defineSpec({
  name: 'create',
  summary: 'create an address (prints its webhook secret once)',
  examples: ['cas inbound create --alias aarav --source registrar_a --source registrar_b'],
  options: [
    { flags: '--alias <alias>', description: 'local part of the address' },
    { flags: '--reference <ref>', description: 'your own reference' },
    { flags: '--callback-url <url>', description: 'webhook target' },
    { flags: '--source <source...>', description: `allowed sources (${SOURCE_CHOICES.join(', ')}); default all`, choices: SOURCE_CHOICES },
    { flags: '--meta <key=value...>', description: 'metadata pairs (at most 10)' },
  ],
});

export const inboundListSpec = defineSpec({
  name: 'list',
  summary: 'list addresses',
  examples: ['cas inbound list --status paused'],
  options: [
    { flags: '--status <status>', description: 'active, paused or all', choices: ['active', 'paused', 'all'], default: 'all' },
    { flags: '--limit <n>', description: '1-100', default: '20' },
    { flags: '--offset <n>', description: '0 or more', default: '0' },
  ],
});

/** `cas inbound get|delete|pause|resume <id>`. */
const byIdSpec = (name: 'get' | 'delete' | 'pause' | 'resume', summary: string) =>
  defineSpec({ name, summary, args: ['<id>'], examples: [`cas inbound ${name} ie_0123`] });
export type InboundByIdSpec = ReturnType<typeof byIdSpec>;
export const inboundGetSpec = byIdSpec('get', 'show one address');
export const inboundDeleteSpec = byIdSpec('delete', 'delete an address (final)');
export const inboundPauseSpec = byIdSpec('pause', 'stop accepting mail');
export const inboundResumeSpec = byIdSpec('resume', 'accept mail again');

export const inboundFilesSpec = defineSpec({
  name: 'files',
  summary: 'list received statement files (and download them)',
  args: ['<id>'],
  examples: ['cas inbound files ie_0123 --since 2026-04-01T00:00:00Z --download statements/'],
  options: [
    { flags: '--since <time>', description: 'ISO date-time' },
    { flags: '--limit <n>', description: '1-100' },
    { flags: '--download <dir>', description: 'save the PDFs here' },
  ],
});

export const verifySignatureSpec = defineSpec({
  name: 'verify-signature',
  summary: 'check a webhook body against its X-Cas-Signature header (exit 0 valid, 1 not)',
  examples: ['cas inbound verify-signature --secret-file whsec.txt --header "t=...,v1=..." < body.json'],
  options: [
    { flags: '--secret-file <file>', description: 'file holding the webhook secret (or env CAS_WEBHOOK_SECRET)' },
    { flags: '--header <value>', description: 'the X-Cas-Signature header' },
    { flags: '--body-file <file>', description: 'the raw body (default stdin)' },
    { flags: '--tolerance <seconds>', description: 'maximum age of the timestamp (default 300; 0 = any)', default: '300' },
  ],
});

export const inboundSpec = defineSpec({
  name: 'inbound',
  examples: [
    'cas inbound create --alias aarav --callback-url https://app.example/hooks/cas',
    'cas inbound files ie_0123 --download statements/',
    'cas inbound verify-signature --secret-file whsec.txt --header "$SIG" --body-file body.json',
  ],
  subcommands: [
    inboundCreateSpec,
    inboundListSpec,
    inboundGetSpec,
    inboundDeleteSpec,
    inboundPauseSpec,
    inboundResumeSpec,
    inboundFilesSpec,
    verifySignatureSpec,
  ],
});

/** `cas inbound ...`: forwarding addresses, their files, and webhook signature checks. */
import path from 'node:path';
import { CasError, UsageError } from '../../errors.js';
import type { InboundEmail } from '../../schema/index.js';
import { clientFor } from '../client.js';
import type { CommandInput, Handler, Result } from '../command.js';
import type { InboundByIdSpec, inboundCreateSpec, inboundFilesSpec, inboundListSpec, verifySignatureSpec } from '../definitions/inbound.js';
import { ensureOutDir, readFlagFile } from '../io.js';

/** A webhook body to check: far larger than any delivery. */
const BODY_LIMIT = 10 * 1024 * 1024;
import { renderTable, writeFileAtomic } from '../output.js';

const one = (e: InboundEmail): string =>
  renderTable({
    head: ['id', 'email', 'status', 'callback', 'sources', 'reference'],
    rows: [[e.inbound_email_id, e.email, e.status, e.callback_url, e.allowed_sources.join(' ') || 'all', e.reference]],
  });

export const verifySignature: Handler<CommandInput<typeof verifySignatureSpec>> = async (ctx, opts) => {
  const { verifyWebhook } = await import('../../shared/webhook-signature.js');
  const secret = opts.secretFile ? (await readFlagFile(opts.secretFile, '--secret-file')).trim() : ctx.env.CAS_WEBHOOK_SECRET;
  if (!secret) throw new UsageError('give the webhook secret with --secret-file or CAS_WEBHOOK_SECRET');
  if (!opts.header) throw new UsageError('give the X-Cas-Signature header with --header');
  const body = await readFlagFile(opts.bodyFile ?? '-', '--body-file', BODY_LIMIT);
  const r = verifyWebhook(secret, opts.header, body, Number(opts.tolerance ?? 300));
  if (!r.ok) throw new CasError('InvalidSignature', `webhook signature invalid: ${r.reason}`, 1);
  return { notes: ['webhook signature valid'] };
};

export const create: Handler<CommandInput<typeof inboundCreateSpec>> = async (ctx, opts) => {
  const metadata: Record<string, string> = {};
  for (const kv of opts.meta ?? []) {
    const i = kv.indexOf('=');
    if (i < 1) throw new UsageError(`--meta takes key=value, not '${kv}'`);
    metadata[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const body = {
    ...(opts.alias ? { alias: opts.alias } : {}),
    ...(opts.reference ? { reference: opts.reference } : {}),
    ...(opts.callbackUrl ? { callback_url: opts.callbackUrl } : {}),
    ...(opts.source ? { allowed_sources: opts.source } : {}),
    ...(Object.keys(metadata).length ? { metadata } : {}),
  };
  const e = await clientFor(ctx).inboundCreate(body);
  return {
    data: e,
    table: () => `${one(e)}webhook secret (shown once): ${e.webhook_secret}\n`,
    notes: [`forward statements to ${e.email}`],
  };
};

export const list: Handler<CommandInput<typeof inboundListSpec>> = async (ctx, opts) => {
  const l = await clientFor(ctx).inboundList({ status: opts.status ?? 'all', limit: opts.limit ?? '20', offset: opts.offset ?? '0' });
  return {
    data: l,
    table: () =>
      renderTable({
        title: `${l.total} inbound emails`,
        head: ['id', 'email', 'status', 'callback', 'created'],
        rows: l.inbound_emails.map((e) => [e.inbound_email_id, e.email, e.status, e.callback_url, e.created_at]),
      }),
  };
};

/** `cas inbound get|delete|pause|resume <id>`. */
export function byId(verb: 'get' | 'delete' | 'pause' | 'resume'): Handler<CommandInput<InboundByIdSpec>> {
  return async (ctx, opts): Promise<Result> => {
    const client = clientFor(ctx);
    if (verb === 'delete') {
      const r = await client.inboundDelete(opts.id);
      ctx.log(r.msg);
      return { data: r, table: () => '' };
    }
    const e = verb === 'get' ? await client.inboundGet(opts.id) : await client.inboundSetState(opts.id, verb);
    return { data: e, table: () => one(e) };
  };
}

export const files: Handler<CommandInput<typeof inboundFilesSpec>> = async (ctx, opts) => {
  const client = clientFor(ctx);
  const found = await client.inboundFiles(opts.id, { since: opts.since, limit: opts.limit });
  if (opts.download) {
    const dir = path.resolve(opts.download);
    await ensureOutDir(dir, '--download');
    for (const f of found) {
      try {
        await writeFileAtomic(path.join(dir, f.filename), await client.download(f.url), 0o600);
      } catch (err) {
        throw err instanceof CasError ? err : new CasError('DownloadFailed', `could not save ${f.filename}`, 1);
      }
    }
    ctx.log(`${found.length} file(s) saved in ${dir}`);
  }
  return {
    data: { files: found, count: found.length },
    table: () =>
      renderTable({
        head: ['filename', 'type', 'sender', 'date', 'size', 'original'],
        rows: found.map((f) => [f.filename, f.cas_type, f.sender_email, f.message_date, f.size, f.original_filename]),
      }),
  };
};

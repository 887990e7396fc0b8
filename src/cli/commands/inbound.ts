/** `cas inbound ...`: forwarding addresses, their files, and webhook signature checks. */
import path from 'node:path';
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { CasError, UsageError } from '../../errors.js';
import * as S from '../../schema/index.js';
import { clientFor } from '../client.js';
import type { Context } from '../context.js';
import { readStdin } from '../io.js';
import { emit, renderTable, toJson, writeFileAtomic } from '../output.js';

const FilesPage = z.object({ status: z.literal('success'), files: z.array(S.EmailStatementFile.extend({ received_at: z.string() })), count: z.number(), cursor: z.string().nullable() });

export async function run(ctx: Context, args: unknown[], opts: Record<string, unknown>): Promise<number> {
  const cmd = String(opts.__command).replace(/^inbound /, '');
  if (cmd === 'verify-signature') {
    const { verifyWebhook } = await import('../../shared/webhook-signature.js');
    const secret = opts.secretFile ? (await fs.readFile(String(opts.secretFile), 'utf8')).trim() : ctx.env.CAS_WEBHOOK_SECRET;
    if (!secret) throw new UsageError('give the webhook secret with --secret-file or CAS_WEBHOOK_SECRET');
    if (!opts.header) throw new UsageError('give the X-Cas-Signature header with --header');
    const body = opts.bodyFile ? await fs.readFile(String(opts.bodyFile), 'utf8') : (await readStdin()).toString('utf8');
    const r = verifyWebhook(secret, String(opts.header), body, Number(opts.tolerance ?? 300));
    if (!r.ok) {
      process.stderr.write(`cas: webhook signature invalid: ${r.reason}\n`);
      return 1;
    }
    ctx.log('webhook signature valid');
    return 0;
  }
  const client = clientFor(ctx);
  const id = args[0] ? encodeURIComponent(String(args[0])) : '';
  const show = async (data: unknown, rows?: () => string): Promise<void> => emit(ctx.format === 'table' && rows ? rows() : toJson(data, ctx.stdoutTty), ctx.opts.output);
  const one = (e: z.infer<typeof S.InboundEmail>): string => renderTable({ head: ['id', 'email', 'status', 'callback', 'sources', 'reference'], rows: [[e.inbound_email_id, e.email, e.status, e.callback_url, e.allowed_sources.join(' ') || 'all', e.reference]] });
  switch (cmd) {
    case 'create': {
      const metadata: Record<string, string> = {};
      for (const kv of (opts.meta as string[] | undefined) ?? []) {
        const i = kv.indexOf('=');
        if (i < 1) throw new UsageError(`--meta takes key=value, not '${kv}'`);
        metadata[kv.slice(0, i)] = kv.slice(i + 1);
      }
      const body = { ...(opts.alias ? { alias: String(opts.alias) } : {}), ...(opts.reference ? { reference: String(opts.reference) } : {}), ...(opts.callbackUrl ? { callback_url: String(opts.callbackUrl) } : {}), ...(opts.source ? { allowed_sources: opts.source } : {}), ...(Object.keys(metadata).length ? { metadata } : {}) };
      const e = await client.call('/v4/inbound-email', body, S.InboundEmail.extend({ webhook_secret: z.string() }));
      await show(e, () => `${one(e)}webhook secret (shown once): ${e.webhook_secret}\n`);
      ctx.log(`forward statements to ${e.email}`);
      return 0;
    }
    case 'list': {
      const q = new URLSearchParams({ status: String(opts.status ?? 'all'), limit: String(opts.limit ?? 20), offset: String(opts.offset ?? 0) });
      const l = await client.request('GET', `/v4/inbound-email?${q}`, undefined, S.InboundEmailList);
      await show(l, () => renderTable({ title: `${l.total} inbound emails`, head: ['id', 'email', 'status', 'callback', 'created'], rows: l.inbound_emails.map((e) => [e.inbound_email_id, e.email, e.status, e.callback_url, e.created_at]) }));
      return 0;
    }
    case 'get': {
      const e = await client.request('GET', `/v4/inbound-email/${id}`, undefined, S.InboundEmail);
      await show(e, () => one(e));
      return 0;
    }
    case 'delete': {
      const r = await client.request('DELETE', `/v4/inbound-email/${id}`, undefined, z.object({ status: z.literal('success'), msg: z.string() }));
      ctx.log(r.msg);
      await show(r, () => '');
      return 0;
    }
    case 'pause':
    case 'resume': {
      const e = await client.call(`/v4/inbound-email/${id}/${cmd}`, {}, S.InboundEmail);
      await show(e, () => one(e));
      return 0;
    }
    case 'files': {
      const files: z.infer<typeof FilesPage>['files'] = [];
      let cursor: string | null = null;
      do {
        const q = new URLSearchParams({ ...(opts.since ? { since: String(opts.since) } : {}), ...(opts.limit ? { limit: String(opts.limit) } : {}), ...(cursor ? { cursor } : {}) });
        const page: z.infer<typeof FilesPage> = await client.request('GET', `/v4/inbound-email/${id}/files?${q}`, undefined, FilesPage);
        files.push(...page.files);
        cursor = opts.limit ? null : page.cursor;
      } while (cursor);
      if (opts.download) {
        const dir = path.resolve(String(opts.download));
        await fs.mkdir(dir, { recursive: true });
        for (const f of files) {
          try {
            await writeFileAtomic(path.join(dir, f.filename), await client.download(f.url), 0o600);
          } catch (err) {
            throw err instanceof CasError ? err : new CasError('DownloadFailed', `could not save ${f.filename}`, 1);
          }
        }
        ctx.log(`${files.length} file(s) saved in ${dir}`);
      }
      await show({ files, count: files.length }, () => renderTable({ head: ['filename', 'type', 'sender', 'date', 'size', 'original'], rows: files.map((f) => [f.filename, f.cas_type, f.sender_email, f.message_date, f.size, f.original_filename]) }));
      return 0;
    }
    default:
      throw new UsageError(`unknown command inbound ${cmd}`);
  }
}

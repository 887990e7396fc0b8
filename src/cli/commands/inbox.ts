/**
 * `cas inbox connect|status|list|download|disconnect`: the connected mailbox. The inbox token is
 * kept in the config file (mode 0600) and never printed unless --show-token is given.
 */
import http from 'node:http';
import path from 'node:path';
import { promises as fs } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { AuthError, CasError, UsageError } from '../../errors.js';
import * as S from '../../schema/index.js';
import { clientFor } from '../client.js';
import { configStore, readSetting } from '../config.js';
import type { Context } from '../context.js';
import { readStdin } from '../io.js';
import { emit, renderKeyValues, renderTable, toJson, writeFileAtomic } from '../output.js';

function token(ctx: Context): string {
  const t = ctx.env.CAS_INBOX_TOKEN || readSetting('inbox_token', ctx.env);
  if (!t) throw new AuthError('no connected mailbox: run `cas inbox connect` first');
  return t;
}

async function search(ctx: Context, opts: Record<string, unknown>) {
  const body = { ...(opts.from ? { start_date: String(opts.from) } : {}), ...(opts.to ? { end_date: String(opts.to) } : {}), ...(opts.type ? { cas_types: opts.type } : {}) };
  return clientFor(ctx).call('/v4/inbox/cas', body, S.InboxSearchResponse, { 'x-inbox-token': token(ctx) });
}

export async function run(ctx: Context, _args: unknown[], opts: Record<string, unknown>): Promise<number> {
  const cmd = String(opts.__command).replace(/^inbox /, '');
  const client = clientFor(ctx);
  const store = await configStore(ctx.env);
  try {
    switch (cmd) {
      case 'connect': {
        const provider = String(opts.provider ?? 'gmail');
        if (provider === 'imap') {
          let host = opts.host as string | undefined;
          let user = opts.user as string | undefined;
          let password = opts.passwordFile ? (opts.passwordFile === '-' ? (await readStdin(4096)).toString('utf8') : await fs.readFile(String(opts.passwordFile), 'utf8')).trim() : undefined;
          if ((!host || !user || !password) && ctx.interactive) {
            const { input, password: hidden } = await import('@inquirer/prompts');
            host ??= await input({ message: 'IMAP host:' }, { output: process.stderr });
            user ??= await input({ message: 'Mailbox user:' }, { output: process.stderr });
            password ??= await hidden({ message: 'App password:', mask: '*' }, { output: process.stderr });
          }
          if (!host || !user || !password) throw new UsageError('imap needs --host, --user and --password-file (or a terminal to ask on)');
          const port = Number(opts.port ?? 993);
          const r = await client.call('/v4/inbox/connect', { provider: 'imap', imap: { host, port, tls: !opts.noTls && opts.tls !== false, user, password } }, z.object({ status: z.literal('success'), provider: z.string(), email: z.string(), inbox_token: z.string() }));
          store.set('inbox_token', r.inbox_token);
          await emit(toJson({ connected: true, provider: r.provider, email: r.email, ...(opts.showToken ? { inbox_token: r.inbox_token } : {}) }, ctx.stdoutTty), ctx.opts.output);
          ctx.log(`connected ${r.email}; the inbox token is saved in ${store.path}`);
          return 0;
        }
        // gmail: a loopback listener catches the redirect with the inbox token.
        const server = http.createServer();
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
        const redirect = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
        try {
          const r = await client.call('/v4/inbox/connect', { provider: 'gmail', redirect_uri: redirect, state: 'cli' }, S.InboxConnectResponse);
          ctx.log('Open this URL in a browser and allow read-only access to statement emails:');
          process.stderr.write(`${r.oauth_url}\n`);
          const got = await new Promise<URLSearchParams>((resolve, reject) => {
            const timer = setTimeout(() => reject(new CasError('Timeout', 'no answer from the browser within 10 minutes', 1)), Number(ctx.env.CAS_CONNECT_TIMEOUT_MS ?? 600_000));
            server.on('request', (req, res) => {
              const u = new URL(req.url ?? '/', redirect);
              res.writeHead(200, { 'content-type': 'text/plain' });
              res.end(u.searchParams.get('inbox_token') ? 'Mailbox connected. You can close this window.' : 'The mailbox was not connected.');
              clearTimeout(timer);
              resolve(u.searchParams);
            });
          });
          const t = got.get('inbox_token');
          if (!t) throw new AuthError(`the mailbox was not connected: ${got.get('error') ?? 'no token'}`);
          store.set('inbox_token', t);
          const st = await client.call('/v4/inbox/status', {}, S.InboxStatusResponse, { 'x-inbox-token': t });
          await emit(toJson({ connected: st.connected, provider: st.provider, email: st.email, ...(opts.showToken ? { inbox_token: t } : {}) }, ctx.stdoutTty), ctx.opts.output);
          return 0;
        } finally {
          server.close();
        }
      }
      case 'status': {
        const st = await client.call('/v4/inbox/status', {}, S.InboxStatusResponse, { 'x-inbox-token': token(ctx) });
        await emit(ctx.format === 'table' ? renderKeyValues('Mailbox', [['Connected', st.connected ? 'yes' : 'no'], ['Provider', st.provider], ['Address', st.email]]) : toJson(st, ctx.stdoutTty), ctx.opts.output);
        return 0;
      }
      case 'list': {
        const r = await search(ctx, opts);
        await emit(ctx.format === 'table' ? renderTable({ title: `${r.count} statement files`, head: ['file', 'type', 'sender', 'date', 'size'], rows: r.files.map((f) => [f.original_filename, f.cas_type, f.sender_email, f.message_date, f.size]) }) : toJson(r, ctx.stdoutTty), ctx.opts.output);
        return 0;
      }
      case 'download': {
        const r = await search(ctx, opts);
        const dir = path.resolve(String(opts.outDir ?? '.'));
        await fs.mkdir(dir, { recursive: true });
        const saved: string[] = [];
        for (const f of r.files) {
          const target = path.join(dir, f.filename);
          await writeFileAtomic(target, await client.download(f.url), 0o600);
          saved.push(target);
        }
        ctx.log(`${saved.length} file(s) saved in ${dir}`);
        if (!opts.parse) {
          await emit(toJson({ files: saved }, ctx.stdoutTty), ctx.opts.output);
          return 0;
        }
        const { parseSaved } = await import('../parse-core.js');
        const pan = store.get('pan') as string | undefined;
        return parseSaved(saved, { explicit: ctx.env.CAS_PDF_PASSWORD, candidates: pan ? [pan.toUpperCase()] : [] }, (t) => emit(t, ctx.opts.output));
      }
      case 'disconnect': {
        const r = await client.call('/v4/inbox/disconnect', {}, z.object({ status: z.literal('success'), msg: z.string() }), { 'x-inbox-token': token(ctx) });
        ctx.log(r.msg);
        await emit(toJson(r, ctx.stdoutTty), ctx.opts.output);
        return 0;
      }
      default:
        throw new UsageError(`unknown command inbox ${cmd}`);
    }
  } catch (err) {
    if (err instanceof AuthError && /requires reconnect|revoked|reconnect/i.test(err.message)) {
      throw new AuthError(`${err.message.replace(/ \(request .*\)$/, '')}; run \`cas inbox connect\` again`);
    }
    throw err;
  }
}

/**
 * `cas inbox connect|status|list|download|disconnect`: the connected mailbox. The inbox token is
 * kept in the config file (mode 0600) and never printed unless --show-token is given.
 */
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { AuthError, CasError, UsageError } from '../../errors.js';
import { clientFor } from '../client.js';
import { configStore, readSetting } from '../config.js';
import type { CommandInput, Handler, Result } from '../command.js';
import type { Context } from '../context.js';
import type { inboxConnectSpec, inboxDownloadSpec, inboxListSpec } from '../definitions/inbox.js';
import { ensureOutDir, readFlagFile } from '../io.js';
import { emit, renderKeyValues, renderTable, writeFileAtomic } from '../output.js';

function token(ctx: Context): string {
  const t = ctx.env.CAS_INBOX_TOKEN || readSetting('inbox_token', ctx.env);
  if (!t) throw new AuthError('no connected mailbox: run `cas inbox connect` first');
  return t;
}

async function search(ctx: Context, opts: CommandInput<typeof inboxListSpec>) {
  const body = {
    ...(opts.from ? { start_date: opts.from } : {}),
    ...(opts.to ? { end_date: opts.to } : {}),
    ...(opts.type ? { cas_types: opts.type } : {}),
  };
  return clientFor(ctx).inboxSearch(token(ctx), body);
}

/** A revoked or expired mailbox says how to reconnect. */
function withReconnectHint<I>(handler: Handler<I>): Handler<I> {
  return async (ctx, input) => {
    try {
      return await handler(ctx, input);
    } catch (err) {
      if (err instanceof AuthError && /requires reconnect|revoked|reconnect/i.test(err.message)) {
        throw new AuthError(`${err.message.replace(/ \(request .*\)$/, '')}; run \`cas inbox connect\` again`);
      }
      throw err;
    }
  };
}

export const connect = withReconnectHint<CommandInput<typeof inboxConnectSpec>>(async (ctx, opts): Promise<Result> => {
  const client = clientFor(ctx);
  const store = await configStore(ctx.env);
  const provider = opts.provider ?? 'gmail';
  if (provider === 'imap') {
    let host = opts.host;
    let user = opts.user;
    let password = opts.passwordFile ? (await readFlagFile(opts.passwordFile, '--password-file', 4096)).trim() : undefined;
    if ((!host || !user || !password) && ctx.interactive) {
      const { input, password: hidden } = await import('@inquirer/prompts');
      host ??= await input({ message: 'IMAP host:' }, { output: process.stderr });
      user ??= await input({ message: 'Mailbox user:' }, { output: process.stderr });
      password ??= await hidden({ message: 'App password:', mask: '*' }, { output: process.stderr });
    }
    if (!host || !user || !password) throw new UsageError('imap needs --host, --user and --password-file (or a terminal to ask on)');
    const port = Number(opts.port ?? 993);
    const r = await client.inboxConnectImap({ host, port, tls: opts.tls !== false, user, password });
    store.set('inbox_token', r.inbox_token);
    return {
      data: { connected: true, provider: r.provider, email: r.email, ...(opts.showToken ? { inbox_token: r.inbox_token } : {}) },
      format: 'json',
      notes: [`connected ${r.email}; the inbox token is saved in ${store.path}`],
    };
  }
  // gmail: a loopback listener catches the redirect with the inbox token.
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const redirect = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  try {
    const r = await client.inboxConnectGmail(redirect, 'cli');
    ctx.log('Open this URL in a browser and allow read-only access to statement emails:');
    process.stderr.write(`${r.oauth_url}\n`);
    const got = await new Promise<URLSearchParams>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new CasError('Timeout', 'no answer from the browser within 10 minutes', 1)),
        Number(ctx.env.CAS_CONNECT_TIMEOUT_MS ?? 600_000),
      );
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
    const st = await client.inboxStatus(t);
    return {
      data: { connected: st.connected, provider: st.provider, email: st.email, ...(opts.showToken ? { inbox_token: t } : {}) },
      format: 'json',
    };
  } finally {
    server.close();
  }
});

export const status = withReconnectHint<object>(async (ctx) => {
  const st = await clientFor(ctx).inboxStatus(token(ctx));
  return {
    data: st,
    table: () =>
      renderKeyValues('Mailbox', [
        ['Connected', st.connected ? 'yes' : 'no'],
        ['Provider', st.provider],
        ['Address', st.email],
      ]),
  };
});

export const list = withReconnectHint<CommandInput<typeof inboxListSpec>>(async (ctx, opts) => {
  const r = await search(ctx, opts);
  return {
    data: r,
    table: () =>
      renderTable({
        title: `${r.count} statement files`,
        head: ['file', 'type', 'sender', 'date', 'size'],
        rows: r.files.map((f) => [f.original_filename, f.cas_type, f.sender_email, f.message_date, f.size]),
      }),
  };
});

export const download = withReconnectHint<CommandInput<typeof inboxDownloadSpec>>(async (ctx, opts): Promise<Result> => {
  const client = clientFor(ctx);
  const r = await search(ctx, opts);
  const dir = path.resolve(opts.outDir ?? '.');
  await ensureOutDir(dir);
  const saved: string[] = [];
  for (const f of r.files) {
    const target = path.join(dir, f.filename);
    await writeFileAtomic(target, await client.download(f.url), 0o600);
    saved.push(target);
  }
  ctx.log(`${saved.length} file(s) saved in ${dir}`);
  if (!opts.parse) return { data: { files: saved }, format: 'json' };
  const { engineChoice, passwordPlan } = await import('../job-settings.js');
  const engine = engineChoice(undefined, ctx.env);
  const { parseSaved, warmParsePool } = await import('../parse-core.js');
  warmParsePool(engine);
  return { exitCode: await parseSaved(saved, passwordPlan(ctx, {}), engine, (t) => emit(t, ctx.opts.output)) };
});

export const disconnect = withReconnectHint<object>(async (ctx) => {
  const r = await clientFor(ctx).inboxDisconnect(token(ctx));
  ctx.log(r.msg);
  return { data: r, format: 'json' };
});

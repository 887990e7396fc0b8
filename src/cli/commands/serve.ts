/** `cas serve`: run the service; `cas serve keys|credits ...`: administration without HTTP. */
import { UsageError } from '../../errors.js';
import type { CommandInput, Handler, Result } from '../command.js';
import type { creditsAddSpec, keysCreateSpec, keysListSpec, keysRevokeSpec, registryImportSpec, serveSpec } from '../definitions/serve.js';
import { renderTable } from '../output.js';

/** The store: `--database` (a postgres:// URL or a SQLite file) > `--db` (file) > CAS_DATABASE_URL > DATA_DIR/cas.db. */
async function serverConfig(opts: { db?: string; database?: string; dataDir?: string; filesDir?: string }) {
  const { defaultConfig } = await import('../../server/index.js');
  const { isPostgresUrl } = await import('../../server/db.js');
  const path = await import('node:path');
  const dataDir = typeof opts.dataDir === 'string' ? path.resolve(opts.dataDir) : undefined;
  const base = defaultConfig(dataDir ? { dataDir } : {});
  if (typeof opts.database === 'string' && typeof opts.db === 'string') throw new UsageError('give the database once: --database or --db');
  const target = opts.database ?? opts.db;
  if (typeof target === 'string') base.dbPath = isPostgresUrl(target) ? target : path.resolve(target);
  else if (base.dbPath && !isPostgresUrl(base.dbPath)) base.dbPath = path.resolve(base.dbPath);
  if (typeof opts.filesDir === 'string') base.filesDir = path.resolve(opts.filesDir);
  return base;
}

export const serve: Handler<CommandInput<typeof serveSpec>> = async (_ctx, opts) => {
  const config = await serverConfig(opts);
  const port = Number(opts.port ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port takes a number from 0 to 65535');
  config.port = port;
  if (typeof opts.host === 'string') config.host = opts.host;
  if (typeof opts.sandboxKey === 'string') config.sandboxKey = opts.sandboxKey;
  if (opts.names === 'spec' || opts.names === 'real') config.names = opts.names;
  if (typeof opts.publicUrl === 'string') config.publicUrl = opts.publicUrl;
  if (typeof opts.secretKeyFile === 'string') {
    // The flag wins over CAS_SECRET_KEY from the environment.
    config.secretKeyFile = (await import('node:path')).resolve(opts.secretKeyFile);
    config.secretKey = undefined;
  }
  for (const h of (opts.allowFetchHost as string[] | undefined) ?? []) config.fetch.allowHosts.push(h);
  const provider = (v: unknown, what: string): 'sandbox' | 'http' | 'none' => {
    if (v !== 'sandbox' && v !== 'http' && v !== 'none') throw new UsageError(`--${what}-provider takes sandbox, http or none`);
    return v;
  };
  if (opts.fetchProvider !== undefined) config.providers.fetch = provider(opts.fetchProvider, 'fetch');
  if (opts.mailbackProvider !== undefined) config.providers.mailback = provider(opts.mailbackProvider, 'mailback');
  if (typeof opts.upstreamUrl === 'string') config.providers.upstreamUrl = opts.upstreamUrl;
  if (opts.kycProvider !== undefined) {
    if (opts.kycProvider !== 'sandbox' && opts.kycProvider !== 'recorded' && opts.kycProvider !== 'none')
      throw new UsageError('--kyc-provider takes sandbox, recorded or none');
    config.kyc.provider = opts.kycProvider;
  }
  if (typeof opts.kycDir === 'string') config.kyc.dir = (await import('node:path')).resolve(opts.kycDir);
  if (typeof opts.lockerUrl === 'string') config.locker.url = opts.lockerUrl;
  if (opts.smtpPort !== undefined) {
    const p = Number(opts.smtpPort);
    if (!Number.isInteger(p) || p < 0 || p > 65535) throw new UsageError('--smtp-port takes a number from 0 to 65535');
    config.mail.smtpPort = p;
  }
  if (typeof opts.inboundDomain === 'string') config.mail.inboundDomain = opts.inboundDomain;
  const tlsProblem = (await import('../../server/inbound.js')).mailTlsProblem(config.mail);
  if (tlsProblem) throw new UsageError(tlsProblem);
  const ttl = config.mail.linkTtlSeconds;
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1))
    throw new UsageError('CAS_INBOUND_LINK_TTL_SECONDS takes a whole number of seconds, 1 or more');
  if (config.kyc.provider === 'recorded' && !config.kyc.dir) throw new UsageError('--kyc-provider recorded needs --kyc-dir');
  if ((config.providers.fetch === 'http' || config.providers.mailback === 'http') && !config.providers.upstreamUrl)
    throw new UsageError('the http providers need --upstream-url or CAS_UPSTREAM_URL');
  const { startServer } = await import('../../server/index.js');
  // The signal handlers come first: a SIGTERM that arrives while the server starts (or right after its
  // "listening on" line) stops it cleanly once it is up, instead of killing it half-way.
  const running: { server?: { close: () => Promise<void> } } = {};
  let asked: string | undefined;
  let stopping = false;
  const stop = (sig: string): void => {
    asked = sig;
    if (!running.server || stopping) return;
    stopping = true;
    process.stderr.write(`cas serve: ${sig}, finishing in-flight requests\n`);
    void running.server.close().then(() => process.exit(0));
  };
  process.removeAllListeners('SIGINT');
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  running.server = await startServer(config, (m) => process.stderr.write(`${m}\n`));
  // A stray error in one request must not take the service down: log it (no stack to clients).
  process.on('uncaughtException', (err) =>
    process.stderr.write(`${JSON.stringify({ t: new Date().toISOString(), level: 'error', msg: String(err?.message ?? err) })}\n`),
  );
  process.on('unhandledRejection', (err) =>
    process.stderr.write(
      `${JSON.stringify({ t: new Date().toISOString(), level: 'error', msg: String((err as Error)?.message ?? err) })}\n`,
    ),
  );
  if (asked) stop(asked);
  return new Promise<Result>(() => undefined);
};

/** The administration commands open the database directly (no HTTP). */
async function withKeys<T>(
  opts: { db?: string; database?: string; dataDir?: string },
  use: (db: import('../../server/db.js').Db, keys: typeof import('../../server/store/keys.js')) => Promise<T>,
): Promise<T> {
  const config = await serverConfig(opts);
  const { openStore } = await import('../../server/db.js');
  const keys = await import('../../server/store/keys.js');
  const db = await openStore(config.dbPath);
  try {
    return await use(db, keys);
  } finally {
    await db.close();
  }
}

export const keysCreate: Handler<CommandInput<typeof keysCreateSpec>> = async (_ctx, opts) =>
  withKeys(opts, async (db, keys) => {
    const credits = opts.credits === undefined ? 0 : Number(opts.credits);
    if (!Number.isFinite(credits) || credits < 0) throw new UsageError('--credits takes a number of 0 or more');
    let rate: number | null = null;
    if (opts.rate !== undefined) {
      const m = /^(\d+)(?:\/min)?$/.exec(opts.rate);
      if (!m || Number(m[1]) < 1) throw new UsageError('--rate takes requests per minute, e.g. 60 or 60/min');
      rate = Number(m[1]);
    }
    const { key, row } = await keys.createKey(db, { credits, unlimited: Boolean(opts.unlimited), rate, name: opts.name ?? null });
    // Shown once: the key is the data of this command (stdout); only its hash is stored.
    return {
      data: { id: row.id, api_key: key, credits: row.unlimited ? null : credits, unlimited: Boolean(row.unlimited), rate_per_min: rate },
      table: () => `${key}\n`,
      notes: [`key ${row.id} created; this is the only time it is shown`],
    };
  });

export const keysList: Handler<CommandInput<typeof keysListSpec>> = async (_ctx, opts) =>
  withKeys(opts, async (db, keys) => {
    const list = await keys.listKeys(db);
    return {
      data: list,
      table: () =>
        renderTable({
          head: ['id', 'key', 'name', 'credits', 'used', 'rate/min', 'revoked'],
          rows: list.map((k) => [
            k.id,
            k.prefix,
            k.name,
            k.unlimited ? 'unlimited' : k.credits,
            k.used,
            k.rate_per_min,
            k.revoked ? 'yes' : '',
          ]),
        }),
    };
  });

export const keysRevoke: Handler<CommandInput<typeof keysRevokeSpec>> = async (_ctx, opts) =>
  withKeys(opts, async (db, keys) => {
    const id = Number(opts.id);
    if (!(await keys.revokeKey(db, id))) throw new UsageError(`no active key with id ${opts.id}`);
    return { notes: [`key ${id} revoked`] };
  });

export const registryImport: Handler<CommandInput<typeof registryImportSpec>> = async (_ctx, opts) =>
  withKeys(opts, async (db) => {
    const file = opts.file;
    const { readFlagFile } = await import('../io.js');
    const text = await readFlagFile(file, 'the registry file', 50 * 1024 * 1024);
    const format = /\.json$/i.test(file) || text.trimStart().startsWith('[') ? 'json' : 'csv';
    const { importRegistry } = await import('../../server/registry.js');
    let report;
    try {
      report = await importRegistry(db, text, format);
    } catch (err) {
      throw new UsageError(`${file}: ${(err as Error).message}`);
    }
    return {
      data: report,
      format: 'json',
      notes: [
        `registry: ${report.inserted} inserted, ${report.updated} updated, ${report.unchanged} unchanged, ${report.rejected.length} rejected`,
      ],
      exitCode: report.rejected.length ? 1 : 0,
    };
  });

export const creditsAdd: Handler<CommandInput<typeof creditsAddSpec>> = async (_ctx, opts) =>
  withKeys(opts, async (db, keys) => {
    const id = Number(opts.id);
    const n = Number(opts.credits);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError('credits to add must be a positive number');
    const now = await keys.addCredits(db, id, n);
    if (now === null) throw new UsageError(`no key with id ${opts.id}`);
    return { notes: [`key ${id} now has ${now} credits`] };
  });

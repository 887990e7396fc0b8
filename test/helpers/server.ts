/**
 * Start the built `cas serve` on a free loopback port with its own data folder; webhook receivers.
 *
 * The store: SQLite in the data folder (DATA_DIR/cas.db), or, when the test process runs with
 * CAS_TEST_STORE=postgres (vitest.config.ts's `postgres` project), one PostgreSQL database per data
 * folder on the run's throwaway cluster (test/helpers/pg-setup.ts starts it): `serve`, `newKey` and
 * `serveAdmin` pass `--database <its URL>` and the shared CAS_SECRET_KEY, and `dbRows` reads either.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { inject } from 'vitest';
import { BIN, cas, cleanEnv, tmpDir, type RunResult } from './cas.js';

/** This test process runs the server suite on PostgreSQL. */
export const PG = process.env.CAS_TEST_STORE === 'postgres';

/** The secret key every PostgreSQL-backed test server gets unless the test sets its own (32 bytes, base64). */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

const databases = new Map<string, Promise<string>>();

/**
 * The PostgreSQL URL of `dataDir`'s database, created on first use (the name is derived from the
 * folder's path, so every process of the run finds the same one); null on SQLite.
 */
export function databaseUrl(dataDir: string): Promise<string | null> {
  if (!PG) return Promise.resolve(null);
  const dir = path.resolve(dataDir);
  let url = databases.get(dir);
  if (!url) {
    url = createDatabase(`cas_${createHash('sha256').update(dir).digest('hex').slice(0, 24)}`);
    databases.set(dir, url);
  }
  return url;
}

async function createDatabase(name: string): Promise<string> {
  const admin = inject('casPgUrl');
  if (!admin) throw new Error('CAS_TEST_STORE=postgres without a cluster: run through vitest.config.ts (test/helpers/pg-setup.ts)');
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    // 42P04: made by another test process of this run for the same folder.
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The arguments that select `dataDir`'s store for `cas serve` and its admin commands (none on SQLite: the default). */
export async function storeArgs(dataDir: string): Promise<string[]> {
  const url = await databaseUrl(dataDir);
  return url ? ['--database', url] : [];
}

/** `env` plus, on PostgreSQL, the shared secret key (unless `env` or the arguments name a key of their own). */
export function storeEnv<T extends Record<string, string | undefined>>(env: T = {} as T, args: string[] = []): T {
  const own = 'CAS_SECRET_KEY' in env || 'CAS_SECRET_KEY_FILE' in env || args.includes('--secret-key-file');
  return PG && !own ? { ...env, CAS_SECRET_KEY: TEST_SECRET_KEY } : env;
}

/** `cas serve <args> --data-dir <dataDir>` on the folder's store, e.g. `serveAdmin(dir, ['keys', 'list', '--json'])`. */
export async function serveAdmin(dataDir: string, args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return cas(['serve', ...args, '--data-dir', dataDir, ...(await storeArgs(dataDir))], { env: storeEnv(env, args) });
}

/**
 * Rows of `sql` (`?` placeholders) from the folder's store, read-only: better-sqlite3 on
 * DATA_DIR/cas.db, or the folder's PostgreSQL database (BIGINT and COUNT come back as numbers).
 * Write SQL both stores understand.
 */
export function dbRows(dataDir: string, sql: string, params: unknown[] = []): Promise<any[]> {
  return query(dataDir, sql, params, false);
}

/** Run one writing statement (`?` placeholders) on the folder's store, e.g. to plant old rows before a start. */
export async function dbRun(dataDir: string, sql: string, params: unknown[] = []): Promise<void> {
  await query(dataDir, sql, params, true);
}

async function query(dataDir: string, sql: string, params: unknown[], write: boolean): Promise<any[]> {
  const url = await databaseUrl(dataDir);
  if (!url) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path.join(dataDir, 'cas.db'), { readonly: !write, fileMustExist: true });
    try {
      const st = db.prepare(sql);
      if (!write) return st.all(...params);
      st.run(...params);
      return [];
    } finally {
      db.close();
    }
  }
  const { default: pg } = await import('pg');
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  const client = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format))) as any,
    },
  });
  await client.connect();
  try {
    if (!write) await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Whether `table` exists in the folder's store. */
export async function hasTable(dataDir: string, table: string): Promise<boolean> {
  const sql = PG
    ? "SELECT 1 AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_name = ?"
    : "SELECT 1 AS t FROM sqlite_master WHERE type = 'table' AND name = ?";
  return (await dbRows(dataDir, sql, [table])).length > 0;
}

export interface Served {
  url: string;
  /** Everything the server wrote to stderr so far. */
  log: () => string;
  dataDir: string;
  proc: ResultPromise;
  stop: () => Promise<number | undefined>;
}

/** `umask`: the server runs under this umask (through sh), e.g. '000'. */
export async function serve(
  dataDir = tmpDir('cas-srv-'),
  extra: string[] = [],
  env: Record<string, string> = {},
  opts: { umask?: string } = {},
): Promise<Served> {
  const args = [
    BIN,
    'serve',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--allow-fetch-host',
    '127.0.0.1',
    ...(await storeArgs(dataDir)),
    ...extra,
  ];
  const options = { env: { ...cleanEnv(), ...storeEnv(env, extra) }, extendEnv: false, reject: false, stdin: 'ignore' } as const;
  const proc = opts.umask
    ? execa('sh', ['-c', `umask ${opts.umask} && exec node "$@"`, 'sh', ...args], options)
    : execa('node', args, options);
  let buf = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${buf}`)), 60_000);
    proc.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    // A server that exits before it listens fails the test at once, with its stderr.
    void proc.then((r) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${r.exitCode ?? r.signal}) before it listened: ${buf}`));
    });
  });
  // The postgres project must never pass on SQLite by mistake: the start-up line names the store.
  if (PG && !/listening on \S+ \(database postgres(ql)?:\/\//.test(buf)) throw new Error(`server is not on PostgreSQL: ${buf}`);
  return {
    url,
    log: () => buf,
    dataDir,
    proc,
    stop: async () => {
      proc.kill('SIGTERM');
      const r = await proc;
      return r.exitCode;
    },
  };
}

export async function newKey(dataDir: string, args: string[] = []): Promise<string> {
  const r = await serveAdmin(dataDir, ['keys', 'create', '--json', ...args]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  return (JSON.parse(r.stdout) as { api_key: string }).api_key;
}

/** An answer's status, headers and body: parsed JSON, or the text when it is not JSON. */
export interface JsonReply {
  status: number;
  body: any;
  headers: Headers;
}

/** `text` parsed as JSON, or `text` itself when it is not JSON. */
export function jsonOrText(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `fetch(url, init)`, its body read as JSON when it is JSON (the text otherwise). */
export async function fetchJson(url: string, init?: RequestInit): Promise<JsonReply> {
  const res = await fetch(url, init);
  return { status: res.status, body: jsonOrText(await res.text()), headers: res.headers };
}

export async function post(
  url: string,
  path: string,
  opts: { key?: string; json?: unknown; body?: string | FormData; headers?: Record<string, string> } = {},
): Promise<JsonReply> {
  const headers: Record<string, string> = {
    ...(opts.key ? { 'x-api-key': opts.key } : {}),
    ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}),
    ...opts.headers,
  };
  return fetchJson(`${url}${path}`, {
    method: 'POST',
    headers,
    body: opts.json !== undefined ? JSON.stringify(opts.json) : opts.body,
  });
}

/** The SMTP port a server started with `--smtp-port 0` announced. */
export const smtpPortOf = (s: Served): number => Number(/SMTP on 127\.0\.0\.1:(\d+)/.exec(s.log())![1]);

export async function waitFor<T>(fn: () => T | undefined, ms = 10_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `waitFor` for a condition that must be awaited (e.g. a `dbRows` read). */
export async function waitForAsync(fn: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!(await fn())) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Hook {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}
/** How a receiver answers: `status` after `delayMs`; `hang`: never (until closed). */
export interface HookMode {
  status: number;
  delayMs: number;
  hang: boolean;
}

/** A webhook receiver on loopback: records each POST (headers, body, arrival time) and answers as `mode` says. */
export function receiver(): Promise<{ url: string; hooks: Hook[]; mode: HookMode; close: () => Promise<void>; port: number }> {
  const hooks: Hook[] = [];
  const mode: HookMode = { status: 200, delayMs: 0, hang: false };
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hooks.push({ headers: req.headers, body, at: Date.now() });
      if (mode.hang) return;
      const status = mode.status;
      setTimeout(() => {
        res.writeHead(status);
        res.end();
      }, mode.delayMs);
    });
  });
  return new Promise((resolve) =>
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}/hook`,
        hooks,
        mode,
        port,
        close: () =>
          new Promise((r) => {
            srv.closeAllConnections();
            srv.close(() => r());
          }),
      });
    }),
  );
}

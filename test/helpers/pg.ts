/**
 * A throwaway PostgreSQL cluster for the tests and the bench: `initdb` into a temporary folder, the
 * postmaster on a free 127.0.0.1 port (unix socket in that folder, trust auth, fsync off), stopped
 * and removed by `stop()` or when the process that started it exits.
 *
 * PostgreSQL refuses to run as root: as root the folder is given to the `postgres` user (Debian's
 * package creates it) and initdb/postgres run as that user. The postmaster runs in the foreground as
 * a child of this process with a parent-death signal (setpriv), so it dies with us even on SIGKILL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const TOOLS = ['initdb', 'pg_ctl', 'postgres'];
const hasTools = (dir: string): boolean => TOOLS.every((t) => existsSync(path.join(dir, t)));

/**
 * Directory holding initdb, pg_ctl and postgres (Debian: /usr/lib/postgresql/<major>/bin, newest
 * major; or PATH), or null. `CAS_TEST_PG_BIN` names the directory (empty or a folder without them: null);
 * `CAS_TEST_HIDE_TOOLS` naming postgres (or `all`) hides it too (test/helpers/tools.ts).
 */
export function pgBinDir(): string | null {
  if (/(^|,)\s*(all|postgres|postgresql)\s*(,|$)/i.test(process.env.CAS_TEST_HIDE_TOOLS ?? '')) return null;
  const forced = process.env.CAS_TEST_PG_BIN;
  if (forced !== undefined) return forced && hasTools(forced) ? forced : null;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of majors) if (hasTools(path.join(root, v, 'bin'))) return path.join(root, v, 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || !existsSync(path.join(dir, 'initdb'))) continue;
    if (hasTools(dir)) return dir;
    // /usr/local/bin/initdb may be a link into the real bin directory that holds all three.
    const real = path.dirname(realpathSync(path.join(dir, 'initdb')));
    if (hasTools(real)) return real;
  }
  return null;
}

export interface PgCluster {
  port: number;
  dir: string;
  /** URL of database `db` (default "postgres") */
  url(db?: string): string;
  /** CREATE DATABASE <name or a fresh random name>; returns its URL */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

const asRoot = (): boolean => process.getuid?.() === 0;

/** The command line that runs `cmd` as the user PostgreSQL accepts, with a parent-death signal when possible. */
function asPgUser(cmd: string, args: string[], pdeathsig: boolean): [string, string[]] {
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
  if (setpriv) {
    const who = asRoot() ? ['--reuid=postgres', '--regid=postgres', '--init-groups'] : [];
    const death = pdeathsig ? ['--pdeathsig=SIGQUIT'] : [];
    if (who.length || death.length) return [setpriv, [...who, ...death, '--', cmd, ...args]];
  }
  if (asRoot()) return ['/usr/sbin/runuser', ['-u', 'postgres', '--', cmd, ...args]];
  return [cmd, args];
}

/** A port that was free a moment ago on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** uid and gid of the `postgres` user (from /etc/passwd: no tool on PATH needed). */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root and there is no `postgres` user to run PostgreSQL as (Debian package postgresql creates it)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function chownTree(p: string, u: { uid: number; gid: number }): void {
  chownSync(p, u.uid, u.gid);
  if (lstatSync(p).isDirectory()) for (const f of readdirSync(p)) chownTree(path.join(p, f), u);
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const live = new Set<() => void>();
let exitHook = false;

/** initdb into a fresh temp dir (or opts.dir), start on a free 127.0.0.1 port with the unix socket in that dir, trust auth for loopback, wait until ready. */
export async function startCluster(opts: { dir?: string } = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (Debian package postgresql): no initdb/pg_ctl/postgres found');
  const ownDir = !opts.dir;
  const dir = opts.dir ? path.resolve(opts.dir) : mkdtempSync(path.join(os.tmpdir(), 'cas-pg-'));
  mkdirSync(dir, { recursive: true });
  const data = path.join(dir, 'data');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C', TZ: 'UTC' };
  if (asRoot()) chownTree(dir, postgresUser());
  const [cmd, args] = asPgUser(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '--locale=C', '--encoding=UTF8', '--no-sync'],
    false,
  );
  const init = spawnSync(cmd, args, { cwd: dir, env, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed (${init.status ?? init.error?.message}): ${init.stderr}${init.stdout}`);

  let proc: ChildProcess | undefined;
  let port = 0;
  let log = '';
  for (let attempt = 0; attempt < 5 && !proc; attempt++) {
    port = await freePort();
    const settings = {
      listen_addresses: '127.0.0.1',
      port: String(port),
      unix_socket_directories: dir,
      max_connections: '200',
      shared_buffers: '16MB',
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
      logging_collector: 'off',
    };
    const flags = Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
    const [pcmd, pargs] = asPgUser(path.join(bin, 'postgres'), ['-D', data, ...flags], true);
    const child = spawn(pcmd, pargs, { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    log = '';
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 60_000);
      child.stderr!.on('data', (d: Buffer) => {
        log += d.toString();
        if (log.includes('ready to accept connections')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.on('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) {
      proc = child;
      // Keep draining stderr so the postmaster never blocks on a full pipe.
      child.stderr!.removeAllListeners('data');
      child.stderr!.resume();
    } else {
      child.kill('SIGQUIT');
      if (!/could not bind|Address already in use/i.test(log)) break;
    }
  }
  if (!proc) {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw new Error(`postgres did not start: ${log}`);
  }
  const postmaster = proc;

  const url = (db = 'postgres'): string => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(db)}`;
  let stopped = false;
  const exited = new Promise<void>((r) => (postmaster.exitCode !== null ? r() : postmaster.once('exit', () => r())));
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    live.delete(stopNow);
    if (postmaster.exitCode === null) postmaster.kill('SIGQUIT');
  };
  live.add(stopNow);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const f of [...live]) f();
    });
  }

  return {
    port,
    dir,
    url,
    async createDatabase(name?: string): Promise<string> {
      const db = name ?? `cas_${randomBytes(6).toString('hex')}`;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${quoteIdent(db)}`);
      } finally {
        await client.end();
      }
      return url(db);
    },
    async stop(): Promise<void> {
      const first = !stopped;
      stopNow();
      await exited;
      if (first && ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

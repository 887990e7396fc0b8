/** Start the built `cas serve` on a free loopback port with its own data folder; webhook receivers. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execa, type ResultPromise } from 'execa';
import { BIN, cas, cleanEnv, tmpDir } from './helpers.js';

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
  const args = [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--allow-fetch-host', '127.0.0.1', ...extra];
  const options = { env: { ...cleanEnv(), ...env }, extendEnv: false, reject: false, stdin: 'ignore' } as const;
  const proc = opts.umask
    ? execa('sh', ['-c', `umask ${opts.umask} && exec node "$@"`, 'sh', ...args], options)
    : execa('node', args, options);
  let buf = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${buf}`)), 20_000);
    proc.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
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
  const r = await cas(['serve', 'keys', 'create', '--data-dir', dataDir, '--json', ...args]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  return (JSON.parse(r.stdout) as { api_key: string }).api_key;
}

export async function post(
  url: string,
  path: string,
  opts: { key?: string; json?: unknown; body?: string | FormData; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {
    ...(opts.key ? { 'x-api-key': opts.key } : {}),
    ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}),
    ...opts.headers,
  };
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers,
    body: opts.json !== undefined ? JSON.stringify(opts.json) : opts.body,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
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

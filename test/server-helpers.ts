/** Start the built `cas serve` on a free loopback port with its own data folder. */
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

export async function serve(dataDir = tmpDir('cas-srv-'), extra: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const proc = execa('node', [BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--allow-fetch-host', '127.0.0.1', ...extra], { env: { ...cleanEnv(), ...env }, extendEnv: false, reject: false, stdin: 'ignore' });
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

export async function post(url: string, path: string, opts: { key?: string; json?: unknown; body?: string | FormData; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...(opts.key ? { 'x-api-key': opts.key } : {}), ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers };
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: opts.json !== undefined ? JSON.stringify(opts.json) : opts.body });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
}

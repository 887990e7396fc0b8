/** The client as CLI commands see it: base URL and key from flag > env > config file. */
import { CasClient, checkBaseUrl } from '../client/index.js';
import { UsageError } from '../errors.js';
import { DEFAULT_BASE_URL, resolveSetting } from './config.js';
import type { Context } from './context.js';
import { readFlagFileSync } from './io.js';

/** `--api-key-file FILE` (or `-`, stdin): the key is the file's first line. A missing file is exit 8. */
function keyFromFile(ctx: Context): string {
  if (ctx.opts.apiKey) throw new UsageError('give --api-key or --api-key-file, not both');
  const file = ctx.opts.apiKeyFile!;
  const key = readFlagFileSync(file, '--api-key-file', 64 * 1024)
    .split(/\r?\n/)[0]
    .trim();
  if (!key) throw new UsageError(`--api-key-file ${file} is empty`);
  return key;
}

export function clientFor(ctx: Context): CasClient {
  const baseUrl = resolveSetting('base_url', ctx.opts.baseUrl, ctx.env) ?? DEFAULT_BASE_URL;
  // A bad base URL is a usage error at once (exit 2), named by where it came from; never retried.
  checkBaseUrl(baseUrl, ctx.opts.baseUrl ? '--base-url' : ctx.env.CAS_BASE_URL ? 'CAS_BASE_URL' : 'base_url (config file)');
  const apiKey = ctx.opts.apiKeyFile ? keyFromFile(ctx) : resolveSetting('api_key', ctx.opts.apiKey, ctx.env);
  return new CasClient({ baseUrl, apiKey, retries: Number(ctx.env.CAS_RETRIES ?? 3), backoffMs: Number(ctx.env.CAS_BACKOFF_MS ?? 200) });
}

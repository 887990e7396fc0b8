/** The client as CLI commands see it: base URL and key from flag > env > config file. */
import { CasClient } from '../client/index.js';
import { DEFAULT_BASE_URL, resolveSetting } from './config.js';
import type { Context } from './context.js';

export function clientFor(ctx: Context): CasClient {
  const baseUrl = resolveSetting('base_url', ctx.opts.baseUrl, ctx.env) ?? DEFAULT_BASE_URL;
  const apiKey = resolveSetting('api_key', ctx.opts.apiKey, ctx.env);
  return new CasClient({ baseUrl, apiKey, retries: Number(ctx.env.CAS_RETRIES ?? 3), backoffMs: Number(ctx.env.CAS_BACKOFF_MS ?? 200) });
}

/** `cas credits`, `cas usage`, `cas token create|verify`: account commands against the service. */
import { UsageError } from '../../errors.js';
import { clientFor } from '../client.js';
import type { Context } from '../context.js';
import { readStdin } from '../io.js';
import { emit, renderKeyValues, renderTable, toJson } from '../output.js';

function isoOrUndefined(v: unknown, name: string): string | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  const d = /^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s;
  if (Number.isNaN(Date.parse(d))) throw new UsageError(`${name} must be a date (YYYY-MM-DD) or an ISO date-time`);
  return new Date(d).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export async function run(ctx: Context, args: unknown[], opts: Record<string, unknown>): Promise<number> {
  const cmd = String(opts.__command);
  const client = clientFor(ctx);
  const out = async (data: unknown, table: () => string): Promise<void> => emit(ctx.format === 'table' ? table() : toJson(data, ctx.stdoutTty), ctx.opts.output);
  if (cmd === 'credits') {
    const c = await client.credits();
    await out(c, () => renderKeyValues('Credits', [['Remaining', c.is_unlimited ? 'unlimited' : c.remaining], ['Used', c.used], ['Limit', c.limit ?? 'unlimited'], ['Features', c.enabled_features.join(', ')]]));
    return 0;
  }
  if (cmd === 'usage') {
    const limit = opts.limit === undefined ? undefined : Number(opts.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 1000)) throw new UsageError('--limit takes a whole number from 1 to 1000');
    const q = { start_time: isoOrUndefined(opts.from, '--from'), end_time: isoOrUndefined(opts.to, '--to'), ...(limit ? { limit } : {}) };
    if (opts.summary) {
      const s = await client.usageSummary(q);
      await out(s, () => renderTable({ title: `Usage: ${s.summary.total_requests} requests, ${s.summary.total_credits} credits`, head: ['Feature', 'Requests', 'Credits'], numeric: [1, 2], rows: s.summary.by_feature.map((f) => [f.feature, f.requests, f.credits]) }));
      return 0;
    }
    const u = await client.usage(q);
    await out(u, () => renderTable({ title: `Usage log (${u.count})`, head: ['Time', 'Request', 'Feature', 'Path', 'Status', 'Credits'], numeric: [4, 5], rows: u.logs.map((l) => [l.timestamp, l.request_id, l.feature, l.path, l.status_code, l.credits]) }));
    return 0;
  }
  if (cmd === 'token create') {
    const expiry = opts.expiry === undefined ? undefined : Number(opts.expiry);
    if (expiry !== undefined && (!Number.isInteger(expiry) || expiry < 1 || expiry > 60)) throw new UsageError('--expiry takes minutes from 1 to 60');
    const t = await client.createToken(expiry);
    // The token is the data asked for: it goes to stdout (JSON or alone), nowhere else.
    await emit(ctx.format === 'table' ? `${t.access_token}\n` : toJson(t, ctx.stdoutTty), ctx.opts.output);
    ctx.log(`access token valid for ${Math.round(t.expires_in / 60)} minutes; it works in place of the API key on /v4/* endpoints`);
    return 0;
  }
  if (cmd === 'token verify') {
    let token = args[0] as string | undefined;
    if (!token || token === '-') token = (await readStdin(64 * 1024)).toString('utf8').trim();
    if (!token) throw new UsageError('give the token as an argument or on stdin');
    const v = await client.verifyToken(token);
    await out(v, () => renderKeyValues('Access token', [['Valid', v.valid ? 'yes' : 'no'], ['API key', v.masked_api_key], ['Error', v.error]]));
    return v.valid ? 0 : 1;
  }
  throw new UsageError(`unknown command ${cmd}`);
}

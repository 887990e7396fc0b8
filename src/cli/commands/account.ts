/** `cas credits`, `cas usage`, `cas token create|verify`: account commands against the service. */
import { UsageError } from '../../errors.js';
import { clientFor } from '../client.js';
import type { CommandInput, Handler } from '../command.js';
import type { creditsSpec, tokenCreateSpec, tokenVerifySpec, usageSpec } from '../definitions/account.js';
import { readStdin } from '../io.js';
import { renderKeyValues, renderTable } from '../output.js';

function isoOrUndefined(v: string | undefined, name: string): string | undefined {
  if (v === undefined) return undefined;
  const d = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v;
  if (Number.isNaN(Date.parse(d))) throw new UsageError(`${name} must be a date (YYYY-MM-DD) or an ISO date-time`);
  return new Date(d).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const credits: Handler<CommandInput<typeof creditsSpec>> = async (ctx) => {
  const c = await clientFor(ctx).credits();
  return {
    data: c,
    table: () =>
      renderKeyValues('Credits', [
        ['Remaining', c.is_unlimited ? 'unlimited' : c.remaining],
        ['Used', c.used],
        ['Limit', c.limit ?? 'unlimited'],
        ['Features', c.enabled_features.join(', ')],
      ]),
  };
};

export const usage: Handler<CommandInput<typeof usageSpec>> = async (ctx, input) => {
  const limit = input.limit === undefined ? undefined : Number(input.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 1000))
    throw new UsageError('--limit takes a whole number from 1 to 1000');
  const q = { start_time: isoOrUndefined(input.from, '--from'), end_time: isoOrUndefined(input.to, '--to'), ...(limit ? { limit } : {}) };
  const client = clientFor(ctx);
  if (input.summary) {
    const s = await client.usageSummary(q);
    return {
      data: s,
      table: () =>
        renderTable({
          title: `Usage: ${s.summary.total_requests} requests, ${s.summary.total_credits} credits`,
          head: ['Feature', 'Requests', 'Credits'],
          numeric: [1, 2],
          rows: s.summary.by_feature.map((f) => [f.feature, f.requests, f.credits]),
        }),
    };
  }
  const u = await client.usage(q);
  return {
    data: u,
    table: () =>
      renderTable({
        title: `Usage log (${u.count})`,
        head: ['Time', 'Request', 'Feature', 'Path', 'Status', 'Credits'],
        numeric: [4, 5],
        drop: [1, 3],
        rows: u.logs.map((l) => [l.timestamp, l.request_id, l.feature, l.path, l.status_code, l.credits]),
      }),
  };
};

export const tokenCreate: Handler<CommandInput<typeof tokenCreateSpec>> = async (ctx, input) => {
  const expiry = input.expiry === undefined ? undefined : Number(input.expiry);
  if (expiry !== undefined && (!Number.isInteger(expiry) || expiry < 1 || expiry > 60))
    throw new UsageError('--expiry takes minutes from 1 to 60');
  const t = await clientFor(ctx).createToken(expiry);
  // The token is the data asked for: it goes to stdout (JSON or alone), nowhere else.
  return {
    data: t,
    table: () => `${t.access_token}\n`,
    notes: [`access token valid for ${Math.round(t.expires_in / 60)} minutes; it works in place of the API key on /v4/* endpoints`],
  };
};

export const tokenVerify: Handler<CommandInput<typeof tokenVerifySpec>> = async (ctx, input) => {
  let token = input.token;
  if (!token || token === '-') token = (await readStdin(64 * 1024)).toString('utf8').trim();
  if (!token) throw new UsageError('give the token as an argument or on stdin');
  const v = await clientFor(ctx).verifyToken(token);
  return {
    data: v,
    table: () =>
      renderKeyValues('Access token', [
        ['Valid', v.valid ? 'yes' : 'no'],
        ['API key', v.masked_api_key],
        ['Error', v.error],
      ]),
    exitCode: v.valid ? 0 : 1,
  };
};

/** `cas config get|set|unset|list|path`: the config file. */
import { password as hiddenPrompt } from '@inquirer/prompts';
import { UsageError } from '../../errors.js';
import type { CommandInput, Handler } from '../command.js';
import { CONFIG_KEYS, DEFAULT_BASE_URL, configStore, isConfigKey, mask, resolveSetting } from '../config.js';
import type { configGetSpec, configSetSpec, configUnsetSpec } from '../definitions/config.js';
import { readStdin } from '../io.js';
import { renderTable } from '../output.js';

function checkKey(key: string): asserts key is keyof typeof CONFIG_KEYS {
  if (!isConfigKey(key)) throw new UsageError(`unknown config key '${key}'; keys: ${Object.keys(CONFIG_KEYS).join(', ')}`);
}

export const path: Handler<object> = async (ctx) => ({ text: `${(await configStore(ctx.env)).path}\n` });

export const list: Handler<object> = async (ctx) => {
  const store = await configStore(ctx.env);
  const entries = Object.keys(CONFIG_KEYS).map((k) => {
    const v = store.get(k);
    const secret = CONFIG_KEYS[k as keyof typeof CONFIG_KEYS].secret;
    return { key: k, value: v === undefined ? null : secret ? mask(String(v)) : String(v) };
  });
  return {
    data: Object.fromEntries(entries.map((e) => [e.key, e.value])),
    table: () => renderTable({ head: ['key', 'value'], rows: entries.map((e) => [e.key, e.value ?? '(unset)']) }),
  };
};

export const get: Handler<CommandInput<typeof configGetSpec>> = async (ctx, { key, effective, reveal }) => {
  checkKey(key);
  const store = await configStore(ctx.env);
  if (effective) {
    const flag = key === 'api_key' ? ctx.opts.apiKey : key === 'base_url' ? ctx.opts.baseUrl : undefined;
    const envName = CONFIG_KEYS[key].env;
    const value = resolveSetting(key, flag, ctx.env) ?? (key === 'base_url' ? DEFAULT_BASE_URL : undefined);
    const source = flag
      ? 'flag'
      : envName && ctx.env[envName]
        ? `env ${envName}`
        : store.get(key) !== undefined
          ? 'config file'
          : 'default';
    if (value === undefined) throw new UsageError(`'${key}' is not set by flag, environment or config file`);
    ctx.log(`(from ${source})`);
    return { text: `${CONFIG_KEYS[key].secret && !reveal ? mask(value) : value}\n` };
  }
  const v = store.get(key);
  if (v === undefined) throw new UsageError(`config key '${key}' is not set`);
  return { text: `${CONFIG_KEYS[key].secret && !reveal ? mask(String(v)) : String(v)}\n` };
};

export const set: Handler<CommandInput<typeof configSetSpec>> = async (ctx, { key, value: given }) => {
  checkKey(key);
  const store = await configStore(ctx.env);
  let value = given;
  if (value === '-') value = (await readStdin()).toString('utf8').trim();
  else if (value === undefined) {
    if (!ctx.interactive) throw new UsageError(`no value for '${key}': pass it, or '-' to read stdin`);
    value = await hiddenPrompt({ message: `${key}:`, mask: '*' });
  }
  if (!value) throw new UsageError(`empty value for '${key}'`);
  if (key === 'pan') {
    value = value.toUpperCase();
    if (!/^[A-Z]{5}[0-9]{4}[A-Z]$/.test(value)) throw new UsageError('pan must look like ABCDE1234F');
  }
  if (key === 'base_url' && !/^https?:\/\//.test(value)) throw new UsageError('base_url must start with http:// or https://');
  store.set(key, value);
  return { notes: [`set ${key}${CONFIG_KEYS[key].secret ? ' (hidden)' : ` = ${value}`}`] };
};

export const unset: Handler<CommandInput<typeof configUnsetSpec>> = async (ctx, { key }) => {
  checkKey(key);
  (await configStore(ctx.env)).delete(key);
  return { notes: [`unset ${key}`] };
};

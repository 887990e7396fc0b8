import { password as hiddenPrompt } from '@inquirer/prompts';
import { UsageError } from '../../errors.js';
import type { Context } from '../context.js';
import { CONFIG_KEYS, DEFAULT_BASE_URL, configStore, isConfigKey, mask, resolveSetting } from '../config.js';
import { emit, renderTable, toJson } from '../output.js';
import { readStdin } from '../io.js';

function checkKey(key: string): asserts key is keyof typeof CONFIG_KEYS {
  if (!isConfigKey(key)) throw new UsageError(`unknown config key '${key}'; keys: ${Object.keys(CONFIG_KEYS).join(', ')}`);
}

export async function run(ctx: Context, args: unknown[], opts: Record<string, unknown>): Promise<number> {
  const sub = String(opts.__command).split(' ').pop();
  const store = await configStore(ctx.env);
  switch (sub) {
    case 'path':
      await emit(`${store.path}\n`, ctx.opts.output);
      return 0;
    case 'list': {
      const entries = Object.keys(CONFIG_KEYS).map((k) => {
        const v = store.get(k);
        const secret = CONFIG_KEYS[k as keyof typeof CONFIG_KEYS].secret;
        return { key: k, value: v === undefined ? null : secret ? mask(String(v)) : String(v) };
      });
      if (ctx.format === 'table') await emit(renderTable({ head: ['key', 'value'], rows: entries.map((e) => [e.key, e.value ?? '(unset)']) }), ctx.opts.output);
      else await emit(toJson(Object.fromEntries(entries.map((e) => [e.key, e.value])), ctx.stdoutTty), ctx.opts.output);
      return 0;
    }
    case 'get': {
      const key = String(args[0]);
      checkKey(key);
      if (opts.effective) {
        const flag = key === 'api_key' ? ctx.opts.apiKey : key === 'base_url' ? ctx.opts.baseUrl : undefined;
        const envName = CONFIG_KEYS[key].env;
        const value = resolveSetting(key, flag, ctx.env) ?? (key === 'base_url' ? DEFAULT_BASE_URL : undefined);
        const source = flag ? 'flag' : envName && ctx.env[envName] ? `env ${envName}` : store.get(key) !== undefined ? 'config file' : 'default';
        if (value === undefined) throw new UsageError(`'${key}' is not set by flag, environment or config file`);
        ctx.log(`(from ${source})`);
        await emit(`${CONFIG_KEYS[key].secret && !opts.reveal ? mask(value) : value}\n`, ctx.opts.output);
        return 0;
      }
      const v = store.get(key);
      if (v === undefined) throw new UsageError(`config key '${key}' is not set`);
      await emit(`${CONFIG_KEYS[key].secret && !opts.reveal ? mask(String(v)) : String(v)}\n`, ctx.opts.output);
      return 0;
    }
    case 'set': {
      const key = String(args[0]);
      checkKey(key);
      let value = args[1] as string | undefined;
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
      ctx.log(`set ${key}${CONFIG_KEYS[key].secret ? ' (hidden)' : ` = ${value}`}`);
      return 0;
    }
    case 'unset': {
      const key = String(args[0]);
      checkKey(key);
      store.delete(key);
      ctx.log(`unset ${key}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown config command '${sub}'`);
  }
}

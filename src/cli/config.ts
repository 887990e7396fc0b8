/**
 * The config file (conf, mode 0600). Precedence everywhere: flag > env > config file.
 * Location: $CAS_CONFIG_DIR/config.json when set, else the platform config dir (env-paths, as
 * conf computes it). Reading a setting is a plain JSON read: conf (and the ajv and semver it
 * loads, about 80 ms) is imported only by the commands that write the file.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import envPaths from 'env-paths';
import type Conf from 'conf';
import { NotFoundError, UsageError } from '../errors.js';
import { readInputFileSync } from '../core/input.js';
import { SMALL_FILE_LIMIT } from './io.js';

export const CONFIG_KEYS = {
  api_key: { secret: true, env: 'CAS_API_KEY', description: 'API key for the cas service' },
  base_url: { secret: false, env: 'CAS_BASE_URL', description: 'Base URL of the cas service' },
  pan: { secret: true, env: undefined, description: 'PAN tried (in capitals) as a statement password' },
  inbox_token: { secret: true, env: undefined, description: 'Connected-mailbox token' },
} as const;
export type ConfigKey = keyof typeof CONFIG_KEYS;

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

let store: Conf<Record<string, string>> | undefined;

/** The file conf writes: the same directory rule as `configStore`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.CAS_CONFIG_DIR || envPaths('cas', { suffix: '' }).config, 'config.json');
}

/** One setting from the config file, without loading conf; a missing file means nothing set. */
export function readSetting(key: ConfigKey, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = configPath(env);
  const text = readConfigText(file);
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = text.trim() ? JSON.parse(text) : {};
  } catch {
    throw new UsageError(`the config file ${file} is not valid JSON; fix it or remove it`);
  }
  const v = data && typeof data === 'object' ? (data as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The config file's text (undefined when there is none), read like every named file (io.ts): a
 * regular file of at most 1 MiB; a folder, a FIFO or a device in its place is a usage error.
 */
function readConfigText(file: string): string | undefined {
  try {
    return readInputFileSync(file, { limit: SMALL_FILE_LIMIT, what: 'the config file' }).toString('utf8');
  } catch (err) {
    if (err instanceof NotFoundError) {
      if (/link loop/.test(err.message)) throw err;
      return undefined;
    }
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read the config file ${file}: ${(err as Error).message}`);
  }
}

/**
 * The config folder, created 0700 whatever the umask (mkdir's mode is masked by it, so the folder
 * is set to 0700 after); one that exists already is left as its owner set it.
 */
function ensureConfigDir(dir: string): void {
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** conf itself, for the commands that change the file. */
export async function configStore(env: NodeJS.ProcessEnv = process.env): Promise<Conf<Record<string, string>>> {
  if (!store) {
    const { default: Conf } = await import('conf');
    const file = configPath(env);
    ensureConfigDir(path.dirname(file));
    // conf would read a FIFO or a device in the file's place for ever: the same checks as a read.
    readConfigText(file);
    store = new Conf<Record<string, string>>({
      projectName: 'cas',
      projectSuffix: '',
      cwd: env.CAS_CONFIG_DIR || undefined,
      configFileMode: 0o600,
    });
  }
  return store;
}

export function isConfigKey(k: string): k is ConfigKey {
  return Object.prototype.hasOwnProperty.call(CONFIG_KEYS, k);
}

export function mask(value: string): string {
  if (value.length <= 4) return '****';
  return `${value.slice(0, 2)}${'*'.repeat(Math.min(12, value.length - 4))}${value.slice(-2)}`;
}

/** flag > env > config file. */
export function resolveSetting(key: ConfigKey, flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flag) return flag;
  const envName = CONFIG_KEYS[key].env;
  if (envName && env[envName]) return env[envName];
  return readSetting(key, env);
}

/**
 * The config file (conf, mode 0600). Precedence everywhere: flag > env > config file.
 * Location: $CAS_CONFIG_DIR/config.json when set, else the platform config dir.
 */
import Conf from 'conf';

export const CONFIG_KEYS = {
  api_key: { secret: true, env: 'CAS_API_KEY', description: 'API key for the cas service' },
  base_url: { secret: false, env: 'CAS_BASE_URL', description: 'Base URL of the cas service' },
  pan: { secret: true, env: undefined, description: 'PAN tried (in capitals) as a statement password' },
  inbox_token: { secret: true, env: undefined, description: 'Connected-mailbox token' },
} as const;
export type ConfigKey = keyof typeof CONFIG_KEYS;

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

let store: Conf<Record<string, string>> | undefined;

export function configStore(env: NodeJS.ProcessEnv = process.env): Conf<Record<string, string>> {
  if (!store) {
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
  const v = configStore(env).get(key);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

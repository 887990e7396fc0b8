/**
 * What every command that opens statements (`cas parse`, `smart`, `gains`, `portfolio`, and
 * `--parse` after `fetch`, `verify-otp` and `inbox download`) decides once from its flags and
 * carries unchanged to each of its jobs: the password plan and the PDF engine. Nothing here reads a
 * file: `--password-file` comes read already (io.ts `readPasswordFile`).
 */
import type { PasswordPlan } from '../core/parse-job.js';
import { resolveEngine, type EngineName } from '../pdf/engine.js';
import { readSetting } from './config.js';
import type { Context } from './context.js';

export interface PasswordFlags {
  password?: string;
  /** The text of `--password-file`, read already. */
  passwordFromFile?: string;
}

/**
 * The password rules, in order: `--password-file`, then `--password`, then CAS_PDF_PASSWORD; after
 * that, as candidates, the PANs the command was given (`--pan`) and the configured `pan`
 * (statements open with the holder's PAN).
 */
export function passwordPlan(ctx: Context, flags: PasswordFlags, pans: (string | undefined)[] = []): PasswordPlan {
  let password: string | undefined;
  if (flags.passwordFromFile !== undefined) password = flags.passwordFromFile;
  else if (flags.password !== undefined) password = flags.password;
  else if (ctx.env.CAS_PDF_PASSWORD) password = ctx.env.CAS_PDF_PASSWORD;
  const all = [...pans, readSetting('pan', ctx.env)].filter((p): p is string => Boolean(p)).map((p) => p.toUpperCase());
  return { password, candidates: [...new Set(all)] };
}

/** The PDF engine of a command's jobs: resolved once; a bad CAS_PDF_ENGINE is each file's error (as the pool reports it). */
export type EngineChoice = { name: EngineName } | { error: unknown };

/** The engine named by `--engine`, else by CAS_PDF_ENGINE, else the default. */
export function engineChoice(flag: string | undefined, env: NodeJS.ProcessEnv): EngineChoice {
  try {
    return { name: resolveEngine(flag, env) };
  } catch (error) {
    return { error };
  }
}

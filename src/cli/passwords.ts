/**
 * The password rules of every command that opens statements (`cas parse`, `smart`, `gains`, and
 * `--parse` after `fetch`, `verify-otp` and `inbox download`), in order: `--password-file`, then
 * `--password`, then CAS_PDF_PASSWORD; after that, as candidates, a PAN the command was given
 * (`--pan`) and the configured `pan` (statements open with the holder's PAN).
 */
import { UsageError } from '../errors.js';
import type { PasswordPlan } from '../core/parse-job.js';
import { readSetting } from './config.js';
import type { Context } from './context.js';
import { readFlagFile } from './io.js';

export interface PasswordFlags {
  password?: string;
  passwordFile?: string;
}

async function readPasswordFile(file: string, stdinUsedForPdf: boolean): Promise<string> {
  if (file === '-') {
    if (stdinUsedForPdf) throw new UsageError('stdin cannot carry both the PDF (-) and its password (--password-file -)');
  }
  // One bounded read (io.ts): a missing file is exit 8; a folder, a device or a FIFO that sends nothing is exit 2.
  return (await readFlagFile(file, '--password-file', 64 * 1024)).replace(/\r?\n$/, '');
}

export async function passwordPlan(
  ctx: Context,
  flags: PasswordFlags,
  more: { pans?: (string | undefined)[]; stdinUsedForPdf?: boolean } = {},
): Promise<PasswordPlan> {
  let password: string | undefined;
  if (flags.passwordFile) password = await readPasswordFile(flags.passwordFile, Boolean(more.stdinUsedForPdf));
  else if (flags.password !== undefined) password = flags.password;
  else if (ctx.env.CAS_PDF_PASSWORD) password = ctx.env.CAS_PDF_PASSWORD;
  const pans = [...(more.pans ?? []), readSetting('pan', ctx.env)].filter((p): p is string => Boolean(p)).map((p) => p.toUpperCase());
  return { password, candidates: [...new Set(pans)] };
}

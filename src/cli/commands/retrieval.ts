/**
 * `cas fetch` / `cas verify-otp`: the depository_a OTP fetch (interactive on a terminal, two
 * scripted steps otherwise); `cas mailback`: the registrar_b mailback request.
 */
import path from 'node:path';
import { CasError, UsageError } from '../../errors.js';
import { clientFor } from '../client.js';
import type { CommandInput, Handler, Result } from '../command.js';
import type { Context } from '../context.js';
import type { fetchSpec, mailbackSpec, verifyOtpSpec } from '../definitions/retrieval.js';
import { ensureOutDir, readFlagFile, readStdin } from '../io.js';
import { emit, writeFileAtomic } from '../output.js';
import type { CasClient } from '../../client/index.js';

type SaveFlags = { outDir?: string; parse?: boolean };

const PAN = /^[A-Z]{5}\d{4}[A-Z]$/;

async function downloadAll(ctx: Context, client: CasClient, files: { filename: string; url: string }[], outDir: string): Promise<string[]> {
  await ensureOutDir(outDir);
  const saved: string[] = [];
  for (const [i, f] of files.entries()) {
    const name = path.basename(f.filename).replace(/[^\w.-]/g, '_') || `statement-${i + 1}.pdf`;
    const target = path.join(outDir, name);
    ctx.log(`downloading ${i + 1}/${files.length}: ${name}`);
    await writeFileAtomic(target, await client.download(f.url), 0o600);
    saved.push(target);
  }
  return saved;
}

async function finish(
  ctx: Context,
  client: CasClient,
  result: { files: { filename: string; url: string }[] },
  opts: SaveFlags,
  pan: string | undefined,
): Promise<Result> {
  const outDir = path.resolve(String(opts.outDir ?? '.'));
  const saved = await downloadAll(ctx, client, result.files, outDir);
  ctx.log(`${saved.length} statement${saved.length === 1 ? '' : 's'} saved in ${outDir}`);
  if (!opts.parse) return { data: { files: saved } };
  // On a terminal: the tables `cas parse` prints there (the same handler); JSON lines on a pipe or with --json.
  // The PAN given to the command opens the statements unless a password is given (CAS_PDF_PASSWORD).
  if (ctx.format === 'table') return (await import('./parse.js')).runParse(ctx, { files: saved, pans: [pan] }, 'parse');
  const { engineChoice, passwordPlan } = await import('../job-settings.js');
  const engine = engineChoice(undefined, ctx.env);
  const { parseSaved, warmParsePool } = await import('../parse-core.js');
  warmParsePool(engine);
  return { exitCode: await parseSaved(saved, passwordPlan(ctx, {}, [pan]), engine, (t) => emit(t, ctx.opts.output)) };
}

function check(opts: CommandInput<typeof fetchSpec>): { pan: string; bo_id: string; dob: string } {
  const pan = String(opts.pan ?? '')
    .trim()
    .toUpperCase();
  const bo = String(opts.boId ?? '').trim();
  const dob = String(opts.dob ?? '').trim();
  const missing = [!pan && '--pan', !bo && '--bo-id', !dob && '--dob'].filter(Boolean);
  if (missing.length)
    throw new UsageError(`missing ${missing.join(', ')} (cas fetch --pan ABCDE1234F --bo-id <16 digits> --dob YYYY-MM-DD)`);
  if (!PAN.test(pan)) throw new UsageError('--pan must look like ABCDE1234F');
  if (!/^\d{16}$/.test(bo)) throw new UsageError('--bo-id must be the 16-digit BO ID');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(dob)) throw new UsageError('--dob must be YYYY-MM-DD');
  return { pan, bo_id: bo, dob };
}

function periods(opts: { periods?: string }): number | undefined {
  if (opts.periods === undefined) return undefined;
  const n = Number(opts.periods);
  if (!Number.isInteger(n) || n < 1 || n > 6) throw new UsageError('--periods takes 1 to 6');
  return n;
}

export const fetchStatements: Handler<CommandInput<typeof fetchSpec>> = async (ctx, opts) => {
  const client = clientFor(ctx);
  const body = check(opts);
  const n = periods(opts);
  const session = await client.fetchStart(body);
  if (!ctx.interactive) {
    return { data: { session_id: session.session_id, msg: session.msg, next: `cas verify-otp ${session.session_id} --otp <OTP>` } };
  }
  ctx.log(session.msg);
  // The code is a secret: typed into a masked prompt, never echoed.
  const { password } = await import('@inquirer/prompts');
  for (;;) {
    const otp = await password(
      { message: 'OTP:', mask: '*', validate: (v) => (/^\d{4,8}$/.test(v.trim()) ? true : 'digits only (4 to 8)') },
      { output: process.stderr },
    );
    try {
      const result = await client.fetchVerify(session.session_id, otp.trim(), n);
      return finish(ctx, client, result, opts, body.pan);
    } catch (err) {
      if (err instanceof CasError && /incorrect OTP; \d+ attempts? left/.test(err.message)) {
        ctx.warn(err.message.replace(/ \(request .*\)$/, ''));
        continue;
      }
      throw err;
    }
  }
};

export const verifyOtp: Handler<CommandInput<typeof verifyOtpSpec>> = async (ctx, opts) => {
  const client = clientFor(ctx);
  const sessionId = opts.sessionId;
  let otp = opts.otp;
  if (!otp || otp === '-') otp = (await readStdin(1024)).toString('utf8').trim();
  if (!/^\d{4,8}$/.test(otp ?? '')) throw new UsageError('the OTP is 4 to 8 digits (--otp 123456, or on stdin)');
  const pan = opts.pan?.toUpperCase();
  const result = await client.fetchVerify(sessionId, otp, periods(opts));
  return finish(ctx, client, result, opts, pan);
};

export const mailback: Handler<CommandInput<typeof mailbackSpec>> = async (ctx, opts) => {
  const client = clientFor(ctx);
  const email = opts.email ?? '';
  const from = opts.from ?? '';
  const to = opts.to ?? '';
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new UsageError('--email must be an email address');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) throw new UsageError('--from and --to must be YYYY-MM-DD');
  if (from > to) throw new UsageError('--from must not be after --to');
  if (to > new Date().toISOString().slice(0, 10)) throw new UsageError('--to cannot be in the future');
  const pan = opts.pan?.toUpperCase();
  if (pan && !PAN.test(pan)) throw new UsageError('--pan must look like ABCDE1234F');
  let password: string;
  if (opts.passwordFile) password = (await readFlagFile(opts.passwordFile, '--password-file', 4096)).replace(/\r?\n$/, '');
  else if (!process.stdin.isTTY && ctx.opts.input !== false) password = (await readStdin(4096)).toString('utf8').replace(/\r?\n$/, '');
  else if (ctx.interactive) {
    const { password: ask } = await import('@inquirer/prompts');
    password = await ask({ message: 'Password for the statement PDF:', mask: '*' }, { output: process.stderr });
    const again = await ask({ message: 'Confirm the password:', mask: '*' }, { output: process.stderr });
    if (again !== password) throw new UsageError('the two passwords differ');
  } else throw new UsageError('give the statement password with --password-file FILE or on stdin');
  const { registrarBPasswordProblem } = await import('../../schema/retrieval.js');
  const problem = registrarBPasswordProblem(password);
  if (problem) throw new UsageError(`${problem} (registrar_b's rule: 8+ characters with upper, lower, digit and special)`);
  const r = await client.mailback({ email, from_date: from, to_date: to, password, ...(pan ? { pan_no: pan } : {}) });
  return {
    data: r,
    notes: [
      'Expect an email from registrar_b with a password-protected PDF; open it with the password you chose, or parse it: cas parse statement.pdf --password-file password.txt',
    ],
  };
};

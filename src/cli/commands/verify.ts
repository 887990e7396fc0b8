/** `cas verify-regulator` and `cas kyc`: verification commands against the service. */
import { UsageError } from '../../errors.js';
import * as S from '../../schema/index.js';
import { clientFor } from '../client.js';
import type { Context } from '../context.js';
import { emit, renderKeyValues, renderTable, toJson } from '../output.js';

export async function run(ctx: Context, args: unknown[], opts: Record<string, unknown>): Promise<number> {
  const cmd = String(opts.__command);
  const client = clientFor(ctx);
  if (cmd === 'verify-regulator') {
    const number = args[0] as string | undefined;
    if (!number && !(opts.name && opts.type)) throw new UsageError('give a registration number, or --name with --type');
    const body = { ...(number ? { registration_number: number } : { name: String(opts.name) }), ...(opts.type ? { type: String(opts.type) } : {}) };
    const r = await client.call('/v1/verify/regulator', body, S.RegulatorResponse);
    await emit(ctx.format === 'table' ? renderKeyValues('Regulator registration', [
      ['Verified', r.verified ? 'yes' : 'no'], ['Status', r.registration_status], ['Category', `${r.category_label} (${r.category}, by ${r.detected_by.replace('_', ' ')})`],
      ['Number', r.registration_number], ['Name', r.name], ['Valid', r.is_perpetual ? `from ${r.valid_from ?? '?'}, perpetual` : r.valid_till ? `${r.valid_from ?? '?'} to ${r.valid_till}` : ''],
      ['Address', r.address], ['Email', r.email], ['Telephone', r.telephone], ['Contact', r.contact_person],
    ]) : toJson(r, ctx.stdoutTty), ctx.opts.output);
    return 0;
  }
  if (cmd === 'kyc') {
    const pan = String(args[0] ?? '').trim().toUpperCase();
    if (!/^[A-Z]{5}\d{4}[A-Z]$/.test(pan)) throw new UsageError('give a PAN like ABCDE1234F');
    const r = await client.call('/v1/kyc/pan/status', { pan_no: pan }, S.KycStatusResponse);
    await emit(ctx.format === 'table'
      ? `${renderKeyValues(`KYC of ${r.pan}`, [['Compliant', r.kyc_compliant ? 'yes' : 'no'], ['Status', r.kyc_status], ['Mode', r.kyc_mode], ['Active agency', r.active_kra], ['Registered on', r.registered_on], ['Last updated', r.last_updated_on]])}\n${renderTable({ head: ['Agency', 'Status', 'Mode', 'Registered', 'Updated', 'Remarks', 'Raw'], rows: Object.entries(r.kras).map(([k, a]) => [k, a.status, a.kyc_mode, a.registered_on, a.last_updated_on, a.remarks, a.raw_status]) })}`
      : toJson(r, ctx.stdoutTty), ctx.opts.output);
    // Whatever the status, exit 0: scripts read the JSON.
    return 0;
  }
  throw new UsageError(`unknown command ${cmd}`);
}

/** `cas locker session|result`: the document-locker flow. */
export async function runLocker(ctx: Context, args: unknown[], opts: Record<string, unknown>): Promise<number> {
  const cmd = String(opts.__command);
  const client = clientFor(ctx);
  const { z } = await import('zod');
  if (cmd === 'locker session') {
    if (!opts.consent) throw new UsageError('--consent is required: confirm that the user agrees to share the documents');
    const purpose = String(opts.purpose ?? '');
    if (purpose.trim().length < 20) throw new UsageError('--purpose must say why, in at least 20 characters');
    if (!opts.redirectUrl) throw new UsageError('--redirect-url is required (where the user returns after consent)');
    const documents = opts.documents ? String(opts.documents).split(',').map((d) => d.trim()) : undefined;
    const r = await client.call('/v1/kyc/locker/session', { consent: true, purpose, redirect_url: String(opts.redirectUrl), ...(documents ? { documents } : {}) }, z.object({ status: z.literal('success'), session_id: z.string(), authorization_url: z.url(), expires_in: z.number() }));
    await emit(ctx.format === 'table' ? `${r.authorization_url}\n` : toJson(r, ctx.stdoutTty), ctx.opts.output);
    ctx.log(`session ${r.session_id}: open the URL, give consent, then run: cas locker result ${r.session_id}`);
    return 0;
  }
  if (cmd === 'locker result') {
    const r = await client.call(`/v1/kyc/locker/result/${encodeURIComponent(String(args[0]))}`, {}, z.object({ status: z.literal('success'), session_id: z.string(), identity: S.VerifiedIdentity, consent: S.ConsentReceipt, documents: z.array(S.LockerDocument), records: z.object({ pan: S.PanCertificate.nullable(), national_id: S.NationalIdRecord.nullable(), driving_licence: S.DrivingLicence.nullable() }) }));
    await emit(ctx.format === 'table' ? renderKeyValues('Locker identity', [['Name', r.identity.name], ['Date of birth', r.identity.dob], ['Mobile', r.identity.mobile], ['Verified', Object.entries(r.identity.verified).map(([k, v]) => `${k} ${v}`).join(', ')], ['Documents', r.documents.map((d) => d.doctype).join(', ')], ['Consent', `${r.consent.consented_at} (${r.consent.purpose})`]]) : toJson(r, ctx.stdoutTty), ctx.opts.output);
    return 0;
  }
  throw new UsageError(`unknown command ${cmd}`);
}

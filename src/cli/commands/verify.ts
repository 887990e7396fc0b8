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

/** `cas verify-regulator`, `cas kyc`, `cas locker session|result`: verification commands against the service. */
import { UsageError } from '../../errors.js';
import { clientFor } from '../client.js';
import type { CommandInput, Handler } from '../command.js';
import type { kycSpec, lockerResultSpec, lockerSessionSpec, verifyRegulatorSpec } from '../definitions/verify.js';
import { renderKeyValues, renderTable } from '../output.js';

export const verifyRegulator: Handler<CommandInput<typeof verifyRegulatorSpec>> = async (ctx, opts) => {
  const number = opts.registrationNumber;
  if (!number && !(opts.name && opts.type)) throw new UsageError('give a registration number, or --name with --type');
  const body = { ...(number ? { registration_number: number } : { name: String(opts.name) }), ...(opts.type ? { type: opts.type } : {}) };
  const r = await clientFor(ctx).verifyRegulator(body);
  return {
    data: r,
    table: () =>
      renderKeyValues('Regulator registration', [
        ['Verified', r.verified ? 'yes' : 'no'],
        ['Status', r.registration_status],
        ['Category', `${r.category_label} (${r.category}, by ${r.detected_by.replace('_', ' ')})`],
        ['Number', r.registration_number],
        ['Name', r.name],
        [
          'Valid',
          r.is_perpetual ? `from ${r.valid_from ?? '?'}, perpetual` : r.valid_till ? `${r.valid_from ?? '?'} to ${r.valid_till}` : '',
        ],
        ['Address', r.address],
        ['Email', r.email],
        ['Telephone', r.telephone],
        ['Contact', r.contact_person],
      ]),
  };
};

export const kyc: Handler<CommandInput<typeof kycSpec>> = async (ctx, opts) => {
  const pan = opts.pan.trim().toUpperCase();
  if (!/^[A-Z]{5}\d{4}[A-Z]$/.test(pan)) throw new UsageError('give a PAN like ABCDE1234F');
  const r = await clientFor(ctx).kycStatus(pan);
  // Whatever the status, exit 0: scripts read the JSON.
  return {
    data: r,
    table: () =>
      `${renderKeyValues(`KYC of ${r.pan}`, [
        ['Compliant', r.kyc_compliant ? 'yes' : 'no'],
        ['Status', r.kyc_status],
        ['Mode', r.kyc_mode],
        ['Active agency', r.active_kra],
        ['Registered on', r.registered_on],
        ['Last updated', r.last_updated_on],
      ])}\n${renderTable({ head: ['Agency', 'Status', 'Mode', 'Registered', 'Updated', 'Remarks', 'Raw'], rows: Object.entries(r.kras).map(([k, a]) => [k, a.status, a.kyc_mode, a.registered_on, a.last_updated_on, a.remarks, a.raw_status]) })}`,
  };
};

/** `cas locker session`: start the document-locker consent flow. */
export const lockerSession: Handler<CommandInput<typeof lockerSessionSpec>> = async (ctx, opts) => {
  if (!opts.consent) throw new UsageError('--consent is required: confirm that the user agrees to share the documents');
  const purpose = opts.purpose ?? '';
  if (purpose.trim().length < 20) throw new UsageError('--purpose must say why, in at least 20 characters');
  if (!opts.redirectUrl) throw new UsageError('--redirect-url is required (where the user returns after consent)');
  const documents = opts.documents ? opts.documents.split(',').map((d) => d.trim()) : undefined;
  const r = await clientFor(ctx).lockerSession({
    consent: true,
    purpose,
    redirect_url: opts.redirectUrl,
    ...(documents ? { documents } : {}),
  });
  return {
    data: r,
    table: () => `${r.authorization_url}\n`,
    notes: [`session ${r.session_id}: open the URL, give consent, then run: cas locker result ${r.session_id}`],
  };
};

/** `cas locker result`: the identity, documents and records of a session. */
export const lockerResult: Handler<CommandInput<typeof lockerResultSpec>> = async (ctx, opts) => {
  const r = await clientFor(ctx).lockerResult(opts.sessionId);
  return {
    data: r,
    table: () =>
      renderKeyValues('Locker identity', [
        ['Name', r.identity.name],
        ['Date of birth', r.identity.dob],
        ['Mobile', r.identity.mobile],
        [
          'Verified',
          Object.entries(r.identity.verified)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
        ],
        ['Documents', r.documents.map((d) => d.doctype).join(', ')],
        ['Consent', `${r.consent.consented_at} (${r.consent.purpose})`],
      ]),
  };
};

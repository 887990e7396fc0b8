/** Verification: a market-regulator registration, and the KYC status of a PAN across five agencies. */
import { z } from 'zod';
import * as S from '../../schema/index.js';
import { ApiError, route, type Section } from '../context.js';
import { resolveCategory, verify } from './registry.js';
import { kycStatus, RecordedKycProvider, SandboxKycProvider, type KycProvider } from './kyc-providers.js';
import { notConfigured } from '../retrieval/providers.js';

const RegulatorBody = z
  .object({ registration_number: z.string().optional(), name: z.string().optional(), type: z.string().optional() })
  .strict();
const PAN = 'must be a PAN like ABCDE1234F';
const KycBody = z.object({
  pan_no: z
    .string(PAN)
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{5}\d{4}[A-Z]$/, PAN),
});

const verifyRegulatorIntermediary = route({
  method: 'post',
  url: '/v1/verify/regulator',
  schema: {
    operationId: 'verifyRegulatorIntermediary',
    summary: 'Verify a market-regulator registration',
    body: RegulatorBody,
    response: { 200: S.RegulatorResponse },
  },
  config: { meta: { feature: 'regulator', auth: 'key', shape: 'regulator' }, doc: { realIds: ['verifySebiIntermediary'] } },
});

const checkKycPanStatus = route({
  method: 'post',
  url: '/v1/kyc/pan/status',
  schema: {
    operationId: 'checkKycPanStatus',
    summary: 'KYC status of a PAN across the five agencies',
    body: KycBody,
    response: { 200: S.KycStatusResponse },
  },
  config: { meta: { feature: 'kyc', auth: 'key', shape: 'kyc' } },
});

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const VERIFICATION_ROUTES = [verifyRegulatorIntermediary, checkKycPanStatus] as const;

export const verificationRoutes: Section = async (f, { app }) => {
  f.route({
    ...verifyRegulatorIntermediary,
    handler: async (req) => {
      const { registration_number, name, type } = req.body;
      if (!registration_number?.trim() && !name?.trim()) throw new ApiError(400, 'give registration_number, or name with type');
      let category = null;
      if (type !== undefined) {
        category = resolveCategory(type);
        if (!category)
          throw new ApiError(
            400,
            `unknown type '${type}'; use a category slug or one of ria, ra, pms, broker, rta, mf, aif, cra, vcf, fvci, fpi, kra, invit, reit`,
          );
      }
      if (!registration_number?.trim() && !category) throw new ApiError(400, 'type is required with name');
      const r = await verify(app.db, { registration_number: registration_number?.trim() || undefined, name, type: category });
      if ('error' in r) throw new ApiError(422, r.error);
      req.cas.success = r.verified;
      return r;
    },
  });

  const sandbox = new SandboxKycProvider();
  const configured: KycProvider | null =
    app.config.kyc.provider === 'sandbox'
      ? sandbox
      : app.config.kyc.provider === 'recorded' && app.config.kyc.dir
        ? new RecordedKycProvider(app.config.kyc.dir)
        : null;
  f.route({
    ...checkKycPanStatus,
    handler: async (req) => {
      const provider = req.cas.principal?.sandbox ? sandbox : configured;
      if (!provider) throw notConfigured('kyc');
      return kycStatus(provider, req.body.pan_no, app.config.kyc.timeoutMs);
    },
  });
};

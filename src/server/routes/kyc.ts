/** POST /v1/kyc/pan/status {pan_no}: the normalized KYC status of a PAN across five agencies. */
import type { FastifyInstance } from 'fastify';
import { fail, type App } from '../context.js';
import { kycStatus, RecordedKycProvider, SandboxKycProvider, type KycProvider } from '../kyc.js';

export function kycRoutes(f: FastifyInstance, app: App): void {
  const sandbox = new SandboxKycProvider();
  const configured: KycProvider | null = app.config.kyc.provider === 'sandbox' ? sandbox : app.config.kyc.provider === 'recorded' && app.config.kyc.dir ? new RecordedKycProvider(app.config.kyc.dir) : null;
  f.post('/v1/kyc/pan/status', { config: { meta: { feature: 'kyc', auth: 'key', shape: 'kyc' } } }, async (req, reply) => {
    const body = (req.body ?? {}) as { pan_no?: unknown };
    const pan = typeof body.pan_no === 'string' ? body.pan_no.trim().toUpperCase() : '';
    if (!/^[A-Z]{5}\d{4}[A-Z]$/.test(pan)) return fail(reply, 400, 'pan_no must be a PAN like ABCDE1234F');
    const provider = req.cas.principal?.sandbox ? sandbox : configured;
    if (!provider) return fail(reply, 503, 'no KYC agency provider is configured on this server (CAS_KYC_PROVIDER)');
    return kycStatus(provider, pan, app.config.kyc.timeoutMs);
  });
}

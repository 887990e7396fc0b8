/** Verification: regulator registrations (and, below, KYC status). */
import type { FastifyInstance } from 'fastify';
import { zodMessage } from '../../schema/zod-message.js';
import { z } from 'zod';
import { fail, type App } from '../context.js';
import { resolveCategory, verify } from '../registry.js';
import { kycRoutes } from './kyc.js';
import { lockerRoutes } from './locker.js';

const Body = z.object({ registration_number: z.string().optional(), name: z.string().optional(), type: z.string().optional() }).strict();

export function verificationRoutes(f: FastifyInstance, app: App): void {
  f.post('/v1/verify/regulator', { config: { meta: { feature: 'regulator', auth: 'key', shape: 'regulator' } } }, async (req, reply) => {
    const b = Body.safeParse(req.body ?? {});
    if (!b.success) return fail(reply, 400, zodMessage(b.error));
    const { registration_number, name, type } = b.data;
    if (!registration_number?.trim() && !name?.trim()) return fail(reply, 400, 'give registration_number, or name with type');
    let category = null;
    if (type !== undefined) {
      category = resolveCategory(type);
      if (!category) return fail(reply, 400, `unknown type '${type}'; use a category slug or one of ria, ra, pms, broker, rta, mf, aif, cra, vcf, fvci, fpi, kra, invit, reit`);
    }
    if (!registration_number?.trim() && !category) return fail(reply, 400, 'type is required with name');
    const r = verify(app.db, { registration_number: registration_number?.trim() || undefined, name, type: category });
    if ('error' in r) return fail(reply, 422, r.error);
    req.cas.success = r.verified;
    return r;
  });
  kycRoutes(f, app);
  lockerRoutes(f, app);
}

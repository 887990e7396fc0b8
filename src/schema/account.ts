/** Account resources: usage logs, credits, access tokens (REAL-WORLD.md section 9 for the not-shown shapes). */
import { z } from 'zod';
import { IsoDateTime, RequestId } from './common.js';

export const UsageLogEntry = z.object({
  request_id: RequestId,
  feature: z.string(),
  path: z.string(),
  status_code: z.number().int().min(100).max(599),
  credits: z.number().min(0),
  timestamp: IsoDateTime,
});

export const UsageRequest = z.object({
  start_time: IsoDateTime.optional(),
  end_time: IsoDateTime.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});
export const UsageResponse = z.object({ status: z.literal('success'), logs: z.array(UsageLogEntry), count: z.number().int().min(0) });
export const UsageSummaryResponse = z.object({
  status: z.literal('success'),
  summary: z.object({
    total_credits: z.number(),
    total_requests: z.number().int(),
    by_feature: z.array(z.object({ feature: z.string(), credits: z.number(), requests: z.number().int() })),
  }),
});

export const CreditsResponse = z.object({
  status: z.literal('success'),
  used: z.number(),
  remaining: z.number().nullable(),
  limit: z.number().nullable(),
  is_unlimited: z.boolean(),
  resets_at: IsoDateTime.nullable(),
  enabled_features: z.array(z.string()),
});

export const AccessToken = z.string().regex(/^at_[A-Za-z0-9_-]+$/, 'access tokens start with at_');
export const TokenRequest = z.object({ expiry_minutes: z.number().int().min(1).max(60).default(60) });
export const TokenResponse = z.object({
  status: z.literal('success'),
  access_token: AccessToken,
  token_type: z.literal('api_key'),
  expires_in: z.number().int(),
});
export const TokenVerifyResponse = z.object({
  status: z.literal('success'),
  valid: z.boolean(),
  masked_api_key: z.string().nullable(),
  error: z.string().nullable(),
});

/**
 * Retrieval requests and responses (depository_a OTP fetch, registrar_b mailback).
 *
 * Fetch session states (SPEC.md leaves them "not shown"):
 *   otp_sent -> verified (single use) | expired (after 10 minutes) | locked (after 3 wrong OTPs).
 */
import { z } from 'zod';
import { IsoDate, Pan } from './common.js';

export const FetchRequest = z.object({ pan: Pan, bo_id: z.string().regex(/^\d{16}$/, 'bo_id must be 16 digits'), dob: IsoDate });
export const FetchResponse = z.object({ status: z.literal('success'), session_id: z.string(), msg: z.string() });
export const FetchVerifyRequest = z.object({ otp: z.string().regex(/^\d{4,8}$/), num_periods: z.number().int().min(1).max(6).default(6) });
export const FetchVerifyResponse = z.object({
  status: z.literal('success'),
  msg: z.string(),
  files: z.array(z.object({ filename: z.string(), url: z.url(), expires_in: z.number().int().optional() })),
});
export const MailbackRequest = z.object({
  email: z.email(),
  from_date: IsoDate,
  to_date: IsoDate,
  password: z.string(),
  pan_no: Pan.optional(),
});
export const MailbackResponse = z.object({ status: z.literal('success'), msg: z.string() });

/** registrar_b's password rule: at least 8 characters with upper, lower, digit and special. */
export function registrarBPasswordProblem(p: string): string | null {
  if (p.length < 8) return 'password must have at least 8 characters';
  if (!/[A-Z]/.test(p)) return 'password needs an upper-case letter';
  if (!/[a-z]/.test(p)) return 'password needs a lower-case letter';
  if (!/\d/.test(p)) return 'password needs a digit';
  if (!/[^A-Za-z0-9]/.test(p)) return 'password needs a special character';
  return null;
}

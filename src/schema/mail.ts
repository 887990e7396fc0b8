/** Email statement files, inbound emails (forwarding addresses) and their webhook payload. */
import { z } from 'zod';
import { IsoDate, IsoDateTime, StatementSource } from './common.js';

export const EmailStatementFile = z.object({
  message_id: z.string(),
  filename: z.string().regex(/^(depository_a|depository_b|registrar_a|registrar_b)_\d{8}_[A-Za-z0-9]+\.pdf$/),
  original_filename: z.string(),
  message_date: IsoDate,
  cas_type: StatementSource,
  sender_email: z.email(),
  size: z.number().int().min(0),
  url: z.url(),
  expires_in: z.number().int().positive(),
});

/**
 * Inbound email. Status transitions (SPEC.md leaves them "not shown"):
 * active <-> paused; active|paused -> deleted (soft delete, final, excluded from lists).
 */
export const InboundEmailStatus = z.enum(['active', 'paused']);
export const InboundEmail = z.object({
  inbound_email_id: z.string(),
  email: z.email(),
  reference: z.string().nullable(),
  callback_url: z.url().nullable(),
  allowed_sources: z.array(StatementSource),
  metadata: z.record(z.string(), z.string()),
  status: InboundEmailStatus,
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});

export const InboundEmailCreateRequest = z
  .object({
    alias: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{2,62}$/)
      .optional(),
    reference: z.string().max(255).nullable().optional(),
    callback_url: z.url({ protocol: /^https?$/ }).optional(),
    allowed_sources: z.array(StatementSource).optional(),
    metadata: z
      .record(z.string(), z.string())
      .refine((m) => Object.keys(m).length <= 10, 'metadata holds at most 10 pairs')
      .optional(),
  })
  .strict();

export const InboundEmailList = z.object({
  status: z.literal('success'),
  inbound_emails: z.array(InboundEmail),
  total: z.number().int().min(0),
  limit: z.number().int().min(1).max(100),
  offset: z.number().int().min(0),
});

export const InboundWebhookPayload = z.object({
  inbound_email_id: z.string(),
  reference: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  forwarded_by: z.email(),
  files: z.array(EmailStatementFile),
  count: z.number().int().min(0),
});

export const InboxSearchRequest = z.object({
  start_date: IsoDate.optional(),
  end_date: IsoDate.optional(),
  cas_types: z.array(StatementSource).optional(),
});
export const InboxSearchResponse = z.object({
  status: z.literal('success'),
  files: z.array(EmailStatementFile),
  count: z.number().int().min(0),
});
export const InboxConnectRequest = z.object({
  redirect_uri: z.url(),
  state: z.string().optional(),
  provider: z.enum(['gmail', 'imap']).default('gmail'),
});
export const InboxConnectResponse = z.object({ oauth_url: z.url(), provider: z.string(), expires_in: z.number().int() });
export const InboxStatusResponse = z.object({ connected: z.boolean(), provider: z.string().nullable(), email: z.string().nullable() });

export type EmailStatementFile = z.infer<typeof EmailStatementFile>;
export type InboundEmail = z.infer<typeof InboundEmail>;
export type InboundWebhookPayload = z.infer<typeof InboundWebhookPayload>;

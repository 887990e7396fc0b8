/**
 * Shared primitives and the three error shapes of SPEC.md.
 *
 * Decisions where SPEC.md says "not shown" are written next to each schema.
 */
import { z } from 'zod';
import { STATEMENT_SOURCES } from '../formats/index.js';

/** ISO 8601 calendar date `YYYY-MM-DD` (a real date: 2026-02-30 is rejected). */
export const IsoDate = z.iso.date();
/** ISO 8601 UTC date-time. */
export const IsoDateTime = z.iso.datetime({ offset: false });

/** `X-Request-ID`: `^req_[A-Za-z0-9]+$`. */
export const RequestId = z.string().regex(/^req_[A-Za-z0-9]+$/, 'request id must match ^req_[A-Za-z0-9]+$');

/** PAN: five letters, four digits, one letter, upper case. */
export const Pan = z.string().regex(/^[A-Z]{5}[0-9]{4}[A-Z]$/, 'PAN must look like ABCDE1234F');

/** Common error body: `{status: "failed", msg}`. */
export const ErrorBody = z.object({
  status: z.literal('failed'),
  msg: z.string().min(1),
});

/** Mailbox error body: `{status: "error", msg, requires_reconnect}`. */
export const MailboxErrorBody = z.object({
  status: z.literal('error'),
  msg: z.string().min(1),
  requires_reconnect: z.boolean(),
});

/** Usage-log token rejection: `{detail}`. */
export const DetailErrorBody = z.object({ detail: z.string().min(1) }).strict();

/** The registry's statement issuers (src/formats). */
export const StatementSource = z.enum(STATEMENT_SOURCES);

export type ErrorBody = z.infer<typeof ErrorBody>;
export type MailboxErrorBody = z.infer<typeof MailboxErrorBody>;
export type StatementSource = z.infer<typeof StatementSource>;

/**
 * A parser self-check that did not hold (extension, not in SPEC.md). The CLI prints these on
 * stderr; the JSON output is unchanged by them.
 */
export const ParseWarning = z.object({
  code: z.string(),
  message: z.string(),
});
export type ParseWarning = z.infer<typeof ParseWarning>;

/** What a forwarding address shows of the files it received (lists and webhook payloads). */
import { realFileName } from '../../schema/dialect.js';
import type { App } from '../context.js';
import type { InboundFileRow } from '../store/inbound.js';

/** An Email statement file, plus the extensions `received_at`, `content_check` and `authentication` (SPF/DKIM/DMARC). */
export function fileView(app: App, base: string, f: InboundFileRow, ttl: number, names: 'spec' | 'real' = 'spec') {
  // In real names the file is named `cdsl_...` and its link is made with that name.
  const filename = names === 'real' ? realFileName(f.filename) : f.filename;
  return {
    message_id: f.message_id,
    filename,
    original_filename: f.original_filename,
    message_date: f.message_date,
    cas_type: f.cas_type,
    sender_email: f.sender_email,
    size: f.size,
    url: app.files.link(base, f.sha256, filename, ttl),
    expires_in: ttl,
    received_at: f.received_at,
    content_check: f.content_check,
    authentication: JSON.parse(f.authentication) as unknown,
  };
}

/**
 * The senders of statements (REAL-WORLD.md section 5): each source's addresses and domains, the
 * source of a sender, and the original sender of a forwarded email.
 */
import type { ParsedMail } from 'mailparser';
import type { StatementSource } from '../../schema/index.js';

export const SENDERS: Record<StatementSource, { addresses: string[]; domains: string[] }> = {
  depository_a: { addresses: ['ecas@cdslstatement.com'], domains: ['cdslstatement.com'] },
  depository_b: { addresses: ['nsdl-cas@nsdl.co.in', 'cas@nsdl.co.in', 'ecas@nsdl.co.in'], domains: ['nsdl.co.in'] },
  registrar_a: { addresses: ['donotreply@camsonline.com'], domains: ['camsonline.com'] },
  registrar_b: { addresses: ['samfs@kfintech.com', 'mfcas@kfintech.com', 'statements@kfintech.com'], domains: ['kfintech.com'] },
};

/** The statement source of a sender: the exact address first, then the domain (case-insensitive). */
export function sourceOf(address: string | null | undefined): StatementSource | null {
  if (!address) return null;
  const a = address.trim().toLowerCase();
  const domain = a.split('@')[1] ?? '';
  for (const [src, s] of Object.entries(SENDERS) as [StatementSource, (typeof SENDERS)[StatementSource]][])
    if (s.addresses.includes(a)) return src;
  for (const [src, s] of Object.entries(SENDERS) as [StatementSource, (typeof SENDERS)[StatementSource]][])
    if (s.domains.some((d) => domain === d || domain.endsWith(`.${d}`))) return src;
  return null;
}

/**
 * The original sender of a forwarded email: an attached message's From (mail parsers often
 * inline attached messages into the text, headers included), else a From: line of a
 * forwarded header block in the body (a known statement sender first), else the mail's From.
 */
export function originalSender(mail: ParsedMail): string | null {
  for (const att of mail.attachments ?? []) {
    if (att.contentType === 'message/rfc822') {
      const m = /^From:\s*(?:.*<)?([^<>\s]+@[^<>\s]+?)>?\s*$/im.exec(att.content.toString('utf8').split(/\r?\n\r?\n/)[0] ?? '');
      if (m) return m[1];
    }
  }
  const text = mail.text ?? '';
  const froms = [...text.matchAll(/^[\s>]*From:\s*(?:.*?<)?([^<>\s"]+@[^<>\s"]+?)>?\s*$/gim)].map((m) => m[1]);
  const known = froms.find((a) => sourceOf(a));
  if (known) return known;
  if (froms.length) return froms[0];
  return mail.from?.value?.[0]?.address ?? null;
}

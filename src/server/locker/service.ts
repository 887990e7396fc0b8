/**
 * Document locker: OAuth 2.0 with PKCE (S256) against the locker, then the verified identity,
 * the issued-document list and the requested records read from the locker's signed XML.
 *
 * Signature provenance (SPEC.md): whether an XML signature is present and the subject, issuer,
 * serial and validity of the certificate it carries. The signature is also checked against that
 * embedded certificate, reported as the extension field `tampered` (true when the signed content
 * no longer matches; null when unsigned). That is integrity, not trust: no chain is verified.
 */
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import type {
  DrivingLicence,
  NationalIdRecord,
  PanCertificate,
  SignatureProvenance,
  LockerDocument,
  VerifiedIdentity,
} from '../../schema/locker.js';
import { z } from 'zod';
import { parseDate } from '../../pdf/numbers.js';

type Sig = z.infer<typeof SignatureProvenance> & { tampered: boolean | null };

export const pkce = (): { verifier: string; challenge: string } => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** The schemas of an OAuth redirect target (the locker's and the mailbox's): code or error, state; answers a redirect. */
export const oauthCallback = (target: string) => ({
  querystring: z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() }),
  response: { 302: z.null().describe(`redirect to ${target}`) },
});

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

export function signatureOf(xml: string): Sig {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const sigNode = doc.getElementsByTagNameNS(DSIG, 'Signature')[0];
  if (!sigNode) return { signature_present: false, certificate: null, tampered: null };
  const keyInfo = sigNode.getElementsByTagNameNS(DSIG, 'KeyInfo')[0] ?? null;
  const pem = SignedXml.getCertFromKeyInfo(keyInfo);
  let certificate: Sig['certificate'] = null;
  let tampered: boolean | null = null;
  if (pem) {
    try {
      const c = new X509Certificate(pem);
      certificate = {
        subject: c.subject.replace(/\n/g, ', '),
        issuer: c.issuer.replace(/\n/g, ', '),
        serial_number: c.serialNumber,
        valid_from: new Date(c.validFrom).toISOString(),
        valid_until: new Date(c.validTo).toISOString(),
      };
      const v = new SignedXml({ publicCert: pem, getCertFromKeyInfo: () => null });
      v.loadSignature(sigNode);
      tampered = !v.checkSignature(xml);
    } catch {
      tampered = true;
    }
  }
  return { signature_present: true, certificate, tampered };
}

const attr = (el: Element | undefined, name: string): string | null => {
  const v = el?.getAttribute(name);
  return v === null || v === undefined || v === '' ? null : v;
};
function first(doc: Document, tag: string): Element | undefined {
  return doc.getElementsByTagName(tag)[0] ?? undefined;
}

export function maskId(id: string | null): string | null {
  if (!id) return null;
  const digits = id.replace(/\D/g, '');
  return digits.length >= 4 ? `XXXXXXXX${digits.slice(-4)}` : null;
}

export function maskMobile(m: string | null): string | null {
  if (!m) return null;
  const d = m.replace(/\D/g, '');
  return d.length >= 4 ? `${'X'.repeat(Math.max(0, d.length - 4))}${d.slice(-4)}` : null;
}

export function panRecord(xml: string): z.infer<typeof PanCertificate> {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const cert = first(doc, 'Certificate');
  const person = first(doc, 'Person');
  const pan = first(doc, 'PAN');
  return {
    pan: attr(cert, 'number'),
    name: attr(person, 'name'),
    dob: attr(person, 'dob'),
    gender: attr(person, 'gender'),
    father_name: attr(person, 'fatherName') ?? '',
    status: attr(cert, 'status'),
    verified_on: attr(pan, 'verifiedOn'),
    signature: signatureOf(xml),
  };
}

export function nationalIdRecord(xml: string, sessionId: string): z.infer<typeof NationalIdRecord> {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const uid = first(doc, 'UidData');
  const poi = first(doc, 'Poi');
  const poa = first(doc, 'Poa');
  const pht = first(doc, 'Pht');
  const address = poa
    ? ['house', 'street', 'lm', 'loc', 'vtc', 'subdist', 'dist', 'state', 'pc']
        .map((k) => attr(poa, k))
        .filter(Boolean)
        .join(', ')
    : null;
  const g = attr(poi, 'gender');
  return {
    name: attr(poi, 'name'),
    dob: attr(poi, 'dob'),
    gender: g === 'M' || g === 'F' || g === 'T' ? g : null,
    care_of: attr(poa, 'co'),
    address: address || null,
    masked_national_id: maskId(attr(uid, 'uid')),
    photo_base64: pht?.textContent?.trim() || null,
    session_id: sessionId,
  };
}

export function drivingLicenceRecord(xml: string): z.infer<typeof DrivingLicence> {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const cert = first(doc, 'Certificate');
  const person = first(doc, 'Person');
  const addrs = Array.from(doc.getElementsByTagName('Address'));
  const addr = (type: string): string | null => {
    const a = addrs.find((x) => x.getAttribute('type') === type);
    return a
      ? ['line1', 'line2', 'house', 'landmark', 'locality', 'vtc', 'district', 'state', 'pin']
          .map((k) => attr(a, k))
          .filter(Boolean)
          .join(', ') || null
      : null;
  };
  const cats = Array.from(doc.getElementsByTagName('Category')).map((c) => ({
    code: attr(c, 'code'),
    abbreviation: attr(c, 'abbreviation'),
    description: attr(c, 'description'),
    issue_date: attr(c, 'issueDate'),
  }));
  return {
    dl_number: attr(cert, 'number'),
    name: attr(person, 'name'),
    father_name: attr(person, 'swd') ?? attr(person, 'fatherName'),
    dob: parseDate(attr(person, 'dob')),
    gender: attr(person, 'gender'),
    issue_date: attr(cert, 'issueDate'),
    valid_from: attr(cert, 'validFromDate') ?? attr(cert, 'issueDate'),
    expiry_date: attr(cert, 'expiryDate'),
    issued_at: attr(first(doc, 'Organization'), 'name'),
    status: attr(cert, 'status'),
    permanent_address: addr('permanent'),
    present_address: addr('present'),
    categories: cats,
    signature: signatureOf(xml),
  };
}

export function documentOf(item: Record<string, unknown>): z.infer<typeof LockerDocument> {
  const s = (k: string): string | null => (typeof item[k] === 'string' && item[k] ? String(item[k]) : null);
  const doctype = s('doctype');
  return {
    uri: String(item.uri ?? ''),
    name: s('name'),
    doctype: doctype && doctype.length === 5 ? doctype : null,
    issuer: s('issuer'),
    issuerid: s('issuerid'),
    type: s('type'),
    mime: Array.isArray(item.mime) ? item.mime.map(String) : [],
    date: parseDate(s('date')),
  };
}

export function identityOf(
  user: Record<string, unknown>,
  records: {
    pan?: { pan: string | null } | null;
    nid?: { masked_national_id: string | null; care_of: string | null; address: string | null } | null;
    dl?: { dl_number: string | null } | null;
  },
): z.infer<typeof VerifiedIdentity> {
  const s = (k: string): string | null => (typeof user[k] === 'string' && user[k] ? String(user[k]) : null);
  const verified: z.infer<typeof VerifiedIdentity>['verified'] = {};
  if (records.pan?.pan) verified.pan = records.pan.pan;
  if (records.nid?.masked_national_id) verified.national_id = records.nid.masked_national_id;
  if (records.dl?.dl_number) verified.driving_licence = records.dl.dl_number;
  return {
    locker_id: s('digilockerid') ?? s('locker_id'),
    username: s('username'),
    name: s('name'),
    dob: s('dob'),
    gender: s('gender'),
    care_of: records.nid?.care_of ?? null,
    address: records.nid?.address ?? null,
    email: s('email'),
    mobile: maskMobile(s('mobile')),
    verified,
  };
}

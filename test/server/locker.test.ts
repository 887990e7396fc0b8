import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SignedXml } from 'xml-crypto';
import {
  DrivingLicence,
  NationalIdRecord,
  PanCertificate,
  VerifiedIdentity,
  ConsentReceipt,
  LockerDocument,
} from '../../src/schema/index.js';
import { cas, tmpDir } from '../helpers/cas.js';
import { newKey, post, serve, type Served } from '../helpers/server.js';
import { runOpenssl, selfSigned } from '../helpers/openssl.js';
import { needs } from '../helpers/tools.js';

const openssl = needs('openssl');

/** A CA and a signing certificate made in the test with openssl. */
function certificates(): { key: string; cert: string } {
  const d = tmpDir('cas-pki-');
  const o = (args: string[]): void => runOpenssl(d, args);
  selfSigned(d, { name: 'ca', subject: '/C=IN/O=Test Certifying Authority/CN=Test CA 2026', days: 30 });
  o([
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'signer.key',
    '-out',
    'signer.csr',
    '-subj',
    '/C=IN/O=Test Locker Issuer/CN=Test Document Signer',
  ]);
  o(['x509', '-req', '-in', 'signer.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '4660', '-out', 'signer.pem', '-days', '20']);
  return { key: readFileSync(path.join(d, 'signer.key'), 'utf8'), cert: readFileSync(path.join(d, 'signer.pem'), 'utf8') };
}

function sign(xml: string, pki: { key: string; cert: string }): string {
  const sig = new SignedXml({
    privateKey: pki.key,
    publicCert: pki.cert,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  });
  sig.addReference({
    xpath: '/*',
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  sig.computeSignature(xml);
  return sig.getSignedXml();
}

const PAN_XML =
  '<Certificate language="99" name="PAN Verification Record" type="PANCR" number="ABCPM1234K" status="A"><IssuedBy><Organization name="Income Tax Department"/></IssuedBy><IssuedTo><Person name="Aarav Kumar Mehta" dob="31-01-1990" gender="M" fatherName=""/></IssuedTo><CertificateData><PAN verifiedOn="2026-03-01 10:15:00"/></CertificateData></Certificate>';
const NID_XML =
  '<Certificate><CertificateData><KycRes><UidData uid="xxxxxxxx9012"><Poi name="Aarav Kumar Mehta" dob="31-01-1990" gender="M"/><Poa co="S/O Rakesh Mehta" house="Flat 402" street="17 Hill Road" vtc="Mumbai" dist="Mumbai" state="Maharashtra" pc="400050"/><Pht>iVBORw0KGgo=</Pht></UidData></KycRes></CertificateData></Certificate>';
const DL_XML =
  '<Certificate type="DRVLC" number="MH0120190001234" issueDate="15-06-2019" expiryDate="14-06-2039" status="Active"><IssuedBy><Organization name="RTO Mumbai Central"/></IssuedBy><IssuedTo><Person name="Aarav Kumar Mehta" dob="31-01-1990" gender="M" swd="Rakesh Mehta"><Address type="permanent" line1="Flat 402" line2="17 Hill Road" vtc="Mumbai" state="Maharashtra" pin="400050"/><Address type="present" line1="Flat 402" line2="17 Hill Road" vtc="Mumbai" state="Maharashtra" pin="400050"/></Person></IssuedTo><CertificateData><DrivingLicense><Categories><Category code="LMV" abbreviation="LMV" description="Light Motor Vehicle" issueDate="15-06-2019"/><Category code="MCWG" abbreviation="MCWG" description="Motor Cycle with Gear" issueDate="15-06-2019"/></Categories></DrivingLicense></CertificateData></Certificate>';

let srv: Served;
let key: string;
let lockerUrl: string;
let fake: http.Server;
const fakeState: { challenge?: string; xml: Record<string, string>; lastVerifierOk?: boolean } = { xml: {} };

beforeAll(async () => {
  if (openssl.skip) return;
  const pki = certificates();
  fakeState.xml = { PANCR: sign(PAN_XML, pki), ADHAR: sign(NID_XML, pki), DRVLC: sign(DL_XML, pki) };
  fake = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = (status: number, data: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      if (u.pathname === '/oauth2/1/authorize') {
        fakeState.challenge = u.searchParams.get('code_challenge') ?? undefined;
        if (u.searchParams.get('code_challenge_method') !== 'S256') return json(400, { error: 'S256 required' });
        res.writeHead(302, { location: `${u.searchParams.get('redirect_uri')}?code=authcode123&state=${u.searchParams.get('state')}` });
        return res.end();
      }
      if (u.pathname === '/oauth2/1/token') {
        const p = new URLSearchParams(body);
        const ok =
          p.get('code') === 'authcode123' &&
          createHash('sha256')
            .update(p.get('code_verifier') ?? '')
            .digest('base64url') === fakeState.challenge;
        fakeState.lastVerifierOk = ok;
        return ok
          ? json(200, { access_token: 'locker-token-1', token_type: 'Bearer', expires_in: 3600 })
          : json(400, { error: 'invalid_grant' });
      }
      if (req.headers.authorization !== 'Bearer locker-token-1') return json(401, { error: 'invalid_token' });
      if (u.pathname === '/oauth2/1/user')
        return json(200, {
          digilockerid: 'a1b2c3d4-0000-1111-2222-333344445555',
          name: 'Aarav Kumar Mehta',
          dob: '31-01-1990',
          gender: 'M',
          eaadhaar: 'Y',
          mobile: '9820012345',
          email: 'aarav.mehta@example.in',
          username: 'aarav.m',
        });
      if (u.pathname === '/oauth2/2/files/issued') {
        return json(200, {
          items: [
            {
              name: 'PAN Verification Record',
              type: 'file',
              size: '',
              date: '01-03-2026',
              parent: '',
              mime: ['application/pdf', 'application/xml'],
              uri: 'in.gov.pan-PANCR-ABCPM1234K',
              doctype: 'PANCR',
              description: 'PAN',
              issuerid: 'in.gov.pan',
              issuer: 'Income Tax Department',
            },
            {
              name: 'Aadhaar Card',
              type: 'file',
              date: '02-03-2026',
              mime: ['application/pdf', 'application/xml'],
              uri: 'in.gov.uidai-ADHAR-9f86d081884c',
              doctype: 'ADHAR',
              issuerid: 'in.gov.uidai',
              issuer: 'UIDAI',
            },
            {
              name: 'Driving License',
              type: 'file',
              date: '03-03-2026',
              mime: ['application/xml'],
              uri: 'in.gov.transport-DRVLC-MH0120190001234',
              doctype: 'DRVLC',
              issuerid: 'in.gov.transport',
              issuer: 'Transport Department',
            },
          ],
        });
      }
      const m = /^\/oauth2\/1\/xml\/(.+)$/.exec(u.pathname);
      if (m) {
        const uri = decodeURIComponent(m[1]);
        const type = /-(PANCR|ADHAR|DRVLC)-/.exec(uri)?.[1] ?? '';
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(fakeState.xml[type]);
      }
      json(404, {});
    });
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
  lockerUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  srv = await serve(undefined, ['--locker-url', lockerUrl]);
  key = await newKey(srv.dataDir, ['--credits', '10']);
});
afterAll(async () => {
  await srv?.stop();
  fake?.close();
});

async function consent(documents?: string[]): Promise<{ sessionId: string; final: URL }> {
  const s = await post(srv.url, '/v1/kyc/locker/session', {
    key,
    json: {
      consent: true,
      purpose: 'Account opening KYC verification for a demat account',
      redirect_url: 'https://app.example/done',
      ...(documents ? { documents } : {}),
    },
  });
  expect(s.status).toBe(200);
  const auth = new URL(s.body.authorization_url);
  expect(auth.origin + auth.pathname).toBe(`${lockerUrl}/oauth2/1/authorize`);
  expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
  expect(auth.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  // The user's browser: the locker redirects to the service's callback, which redirects to the app.
  const toCallback = await fetch(auth, { redirect: 'manual' });
  const toApp = await fetch(toCallback.headers.get('location')!, { redirect: 'manual' });
  expect(toApp.status).toBe(302);
  return { sessionId: s.body.session_id, final: new URL(toApp.headers.get('location')!) };
}

describe.skipIf(openssl.skip)(`document locker${openssl.note}`, () => {
  it('validates the session request', async () => {
    for (const [body, re] of [
      [{ purpose: 'Account opening KYC verification', redirect_url: 'https://a.example/x' }, /consent/],
      [{ consent: true, purpose: 'short', redirect_url: 'https://a.example/x' }, /20 characters/],
      [{ consent: true, purpose: 'Account opening KYC verification', redirect_url: 'javascript:alert(1)' }, /redirect_url/],
    ] as const) {
      const r = await post(srv.url, '/v1/kyc/locker/session', { key, json: body });
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(re);
    }
  });

  it('OAuth with PKCE, then identity, consent receipt, documents and records with signature provenance', async () => {
    const s = await post(srv.url, '/v1/kyc/locker/session', {
      key,
      json: { consent: true, purpose: 'Account opening KYC verification for a demat account', redirect_url: 'https://app.example/done' },
    });
    const early = await post(srv.url, `/v1/kyc/locker/result/${s.body.session_id}`, { key });
    expect(early.status).toBe(400);
    expect(early.body.msg).toMatch(/not given consent/);
    const { sessionId, final } = await consent();
    expect(fakeState.lastVerifierOk).toBe(true);
    expect(final.origin + final.pathname).toBe('https://app.example/done');
    expect(final.searchParams.get('status')).toBe('success');
    expect(final.searchParams.get('session_id')).toBe(sessionId);

    const r = await post(srv.url, `/v1/kyc/locker/result/${sessionId}`, { key });
    expect(r.status).toBe(200);
    expect(VerifiedIdentity.safeParse(r.body.identity).success).toBe(true);
    expect(r.body.identity).toEqual({
      locker_id: 'a1b2c3d4-0000-1111-2222-333344445555',
      username: 'aarav.m',
      name: 'Aarav Kumar Mehta',
      dob: '31-01-1990',
      gender: 'M',
      care_of: 'S/O Rakesh Mehta',
      address: 'Flat 402, 17 Hill Road, Mumbai, Mumbai, Maharashtra, 400050',
      email: 'aarav.mehta@example.in',
      mobile: 'XXXXXX2345',
      verified: { pan: 'ABCPM1234K', national_id: 'XXXXXXXX9012', driving_licence: 'MH0120190001234' },
    });
    expect(ConsentReceipt.safeParse(r.body.consent).success).toBe(true);
    expect(r.body.consent.purpose).toBe('Account opening KYC verification for a demat account');
    expect(r.body.documents.map((d: { doctype: string }) => d.doctype)).toEqual(['PANCR', 'ADHAR', 'DRVLC']);
    expect(r.body.documents.every((d: unknown) => LockerDocument.safeParse(d).success)).toBe(true);
    expect(r.body.documents[0]).toEqual({
      uri: 'in.gov.pan-PANCR-ABCPM1234K',
      name: 'PAN Verification Record',
      doctype: 'PANCR',
      issuer: 'Income Tax Department',
      issuerid: 'in.gov.pan',
      type: 'file',
      mime: ['application/pdf', 'application/xml'],
      date: '2026-03-01',
    });

    const { pan, national_id, driving_licence } = r.body.records;
    expect(PanCertificate.safeParse(pan).success).toBe(true);
    expect(NationalIdRecord.safeParse(national_id).success).toBe(true);
    expect(DrivingLicence.safeParse(driving_licence).success).toBe(true);
    expect(pan).toMatchObject({
      pan: 'ABCPM1234K',
      name: 'Aarav Kumar Mehta',
      dob: '31-01-1990',
      gender: 'M',
      father_name: '',
      status: 'A',
      verified_on: '2026-03-01 10:15:00',
    });
    expect(pan.signature).toMatchObject({
      signature_present: true,
      tampered: false,
      certificate: {
        subject: expect.stringContaining('CN=Test Document Signer'),
        issuer: expect.stringContaining('CN=Test CA 2026'),
        serial_number: '1234',
      },
    });
    expect(Date.parse(pan.signature.certificate.valid_until) - Date.parse(pan.signature.certificate.valid_from)).toBeGreaterThan(
      19 * 86400_000,
    );
    expect(national_id).toEqual({
      name: 'Aarav Kumar Mehta',
      dob: '31-01-1990',
      gender: 'M',
      care_of: 'S/O Rakesh Mehta',
      address: 'Flat 402, 17 Hill Road, Mumbai, Mumbai, Maharashtra, 400050',
      masked_national_id: 'XXXXXXXX9012',
      photo_base64: 'iVBORw0KGgo=',
      session_id: sessionId,
    });
    expect(driving_licence).toMatchObject({
      dl_number: 'MH0120190001234',
      father_name: 'Rakesh Mehta',
      dob: '1990-01-31',
      expiry_date: '14-06-2039',
      issued_at: 'RTO Mumbai Central',
      categories: [
        { code: 'LMV', abbreviation: 'LMV', description: 'Light Motor Vehicle', issue_date: '15-06-2019' },
        { code: 'MCWG', abbreviation: 'MCWG', description: 'Motor Cycle with Gear', issue_date: '15-06-2019' },
      ],
    });
    expect(driving_licence.signature.tampered).toBe(false);
  });

  it('a tampered XML and an unsigned XML are reported as such', async () => {
    const good = fakeState.xml.PANCR;
    fakeState.xml.PANCR = good.replace('name="Aarav Kumar Mehta"', 'name="Someone Else"');
    fakeState.xml.DRVLC = DL_XML;
    try {
      const { sessionId } = await consent(['pan', 'driving_licence']);
      const r = await post(srv.url, `/v1/kyc/locker/result/${sessionId}`, { key });
      expect(r.body.records.pan.name).toBe('Someone Else');
      expect(r.body.records.pan.signature).toMatchObject({ signature_present: true, tampered: true });
      expect(r.body.records.driving_licence.signature).toEqual({ signature_present: false, certificate: null, tampered: null });
      expect(r.body.records.national_id).toBeNull();
    } finally {
      fakeState.xml.PANCR = good;
    }
  });

  it('cas locker session and result', async () => {
    const env = { CAS_API_KEY: key, CAS_BASE_URL: srv.url };
    const s = await cas(
      [
        'locker',
        'session',
        '--consent',
        '--purpose',
        'Account opening KYC verification',
        '--redirect-url',
        'https://app.example/done',
        '--json',
      ],
      { env },
    );
    expect(s.exitCode).toBe(0);
    const session = JSON.parse(s.stdout);
    const auth = await fetch(session.authorization_url, { redirect: 'manual' });
    await fetch(auth.headers.get('location')!, { redirect: 'manual' });
    const r = await cas(['locker', 'result', session.session_id, '--json'], { env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).identity.verified.pan).toBe('ABCPM1234K');
  });
});

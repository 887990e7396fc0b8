import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KycStatusResponse, REGULATOR_ALIASES, RegulatorCategory, RegulatorResponse } from '../../src/schema/index.js';
import { aggregate, agencyStatus, normalizeMode, normalizeStatus } from '../../src/server/verification/kyc.js';
import { cas, tmpDir } from '../helpers/cas.js';
import { newKey, post, serve, serveAdmin, type Served } from '../helpers/server.js';

type Cat = (typeof RegulatorCategory.options)[number];
interface Entry {
  name: string;
  registration_number: string;
  category: string;
  address: string;
  email: string;
  telephone: string;
  contact_person: string;
  valid_from: string;
  valid_to: string;
}

const WORDS = [
  'Sunrise',
  'Lotus',
  'Everest',
  'Ganga',
  'Nilgiri',
  'Saffron',
  'Banyan',
  'Monsoon',
  'Deccan',
  'Konark',
  'Indus',
  'Narmada',
  'Aravalli',
  'Malabar',
];
const SUFFIX: Record<Cat, string> = {
  'investment-adviser': 'Advisors Private Limited',
  'research-analyst': 'Research LLP',
  'portfolio-manager': 'Portfolio Managers Limited',
  'stock-broker': 'Securities Limited',
  'merchant-banker': 'Capital Markets Limited',
  'registrar-transfer-agent': 'Registry Services Private Limited',
  'mutual-fund': 'Mutual Fund',
  'alternative-investment-fund': 'Opportunities Fund',
  'credit-rating-agency': 'Ratings Limited',
  custodian: 'Custodial Services Limited',
  'debenture-trustee': 'Trusteeship Limited',
  'venture-capital-fund': 'Ventures Fund',
  'foreign-venture-capital-investor': 'Ventures Mauritius',
  'foreign-portfolio-investor': 'Global Equity Fund',
  'kyc-registration-agency': 'KRA Limited',
  'infrastructure-investment-trust': 'Infrastructure Trust',
  'real-estate-investment-trust': 'REIT',
  'esg-rating-provider': 'ESG Ratings Private Limited',
  'vault-manager': 'Vaults Private Limited',
};
function number(cat: Cat, i: number): string {
  const n = String(100000000 + i * 7919).slice(-9);
  switch (cat) {
    case 'investment-adviser':
      return `INA${n}`;
    case 'research-analyst':
      return `INH${n}`;
    case 'portfolio-manager':
      return `INP${n}`;
    case 'stock-broker':
      return i % 5 === 0 ? `INB${n}` : `INZ${n}`;
    case 'merchant-banker':
      return `INM${n}`;
    case 'registrar-transfer-agent':
      return `INR${n}`;
    case 'mutual-fund':
      return `MF/${String(i).padStart(3, '0')}/93/0`;
    case 'alternative-investment-fund':
      return `IN/AIF${1 + (i % 3)}/24-25/${String(1000 + i)}`;
    case 'credit-rating-agency':
      return `IN/CRA/${String(i).padStart(3, '0')}/1999`;
    case custodian:
      return `IN/CUS/${String(i).padStart(3, '0')}`;
    case 'debenture-trustee':
      return `IND000000${String(100 + i)}`;
    case 'venture-capital-fund':
      return `IN/VCF/${String(i).padStart(2, '0')}-${String(i + 1).padStart(2, '0')}/${String(1000 + i)}`;
    case 'foreign-venture-capital-investor':
      return `IN/FVCI/${String(i).padStart(2, '0')}-${String(i + 1).padStart(2, '0')}/${String(200 + i)}`;
    case 'foreign-portfolio-investor':
      return `INUSFP${String(100000 + i)}`;
    case 'kyc-registration-agency':
      return `IN/KRA/${String(i).padStart(3, '0')}`;
    case 'infrastructure-investment-trust':
      return `IN/InvIT/${String(i).padStart(2, '0')}-${String(i + 1).padStart(2, '0')}/${String(10 + i)}`;
    case 'real-estate-investment-trust':
      return `IN/REIT/${String(i).padStart(2, '0')}-${String(i + 1).padStart(2, '0')}/${String(20 + i)}`;
    case 'esg-rating-provider':
      return `ESG/${String(i).padStart(4, '0')}`;
    case 'vault-manager':
      return `VM/${String(i).padStart(4, '0')}`;
  }
}
const custodian = 'custodian' as const;

function registry(): Entry[] {
  const out: Entry[] = [];
  for (const cat of RegulatorCategory.options) {
    for (let i = 1; i <= 28; i++) {
      const name = `${WORDS[i % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]} ${i} ${SUFFIX[cat]}`;
      out.push({
        name,
        registration_number: number(cat, i),
        category: i % 2 ? cat : (Object.entries(REGULATOR_ALIASES).find(([, c]) => c === cat)?.[0] ?? cat),
        address: `${i} MG Road, Mumbai 4000${String(i).padStart(2, '0')}`,
        email: `contact${i}@${cat.replace(/-/g, '')}.example.in`,
        telephone: `+91 22 4000 ${String(1000 + i)}`,
        contact_person: `Officer ${i}`,
        valid_from: '2019-04-01',
        valid_to: i % 7 === 0 ? '2023-03-31' : i % 4 === 0 ? '' : '2099-03-31',
      });
    }
  }
  return out;
}

const csv = (rows: Entry[]): string =>
  [
    'name,registration_number,category,address,email,telephone,contact_person,valid_from,valid_to',
    ...rows.map((r) =>
      Object.values(r)
        .map((v) => (/[",]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v))
        .join(','),
    ),
  ].join('\n');

let srv: Served;
let key: string;
let entries: Entry[];
let kycDir: string;

beforeAll(async () => {
  entries = registry();
  const dir = tmpDir();
  kycDir = path.join(dir, 'kyc');
  const rec = (kra: string, pan: string, body: unknown): void => {
    mkdirSync(path.join(kycDir, kra), { recursive: true });
    writeFileSync(path.join(kycDir, kra, `${pan}.json`), JSON.stringify(body));
  };
  // PAN 1: validated at kra_a (OTP e-KYC), on hold at kra_c, the rest not available.
  rec('kra_a', 'AAAPA1111A', {
    APP_STATUS: '007',
    APP_ENTRYDT: '10-02-2019',
    APP_STATUSDT: '15-03-2024',
    APP_KYC_MODE: '1',
    APP_HOLD_DEACTIVE_RMKS: 'FATCA NOT APPLICABLE',
  });
  rec('kra_b', 'AAAPA1111A', { statusCode: '005', kycStatus: 'Not available' });
  rec('kra_c', 'AAAPA1111A', {
    KYC_STATUS: 'ONHOLD',
    REG_DATE: '01/06/2017',
    MOD_DATE: '01/06/2020',
    KYC_MODE: '0',
    REMARKS: 'PAN-Aadhaar seeding pending, Mobile number not validated',
  });
  rec('kra_d', 'AAAPA1111A', { status: 'Not available' });
  rec('kra_e', 'AAAPA1111A', { Status: 'Not available' });
  // PAN 2: not available anywhere.
  for (const k of ['kra_a', 'kra_b', 'kra_c', 'kra_d', 'kra_e'])
    rec(
      k,
      'BBBPB2222B',
      k === 'kra_a'
        ? { APP_STATUS: '005' }
        : k === 'kra_b'
          ? { kycStatus: 'KYC NOT AVAILABLE' }
          : k === 'kra_c'
            ? { KYC_STATUS: 'Not available' }
            : k === 'kra_d'
              ? { status: 'Not Availble' }
              : { Status: 'Not available' },
    );
  // PAN 3: one agency failing, one registered (misspelt text), one not asked.
  rec('kra_a', 'CCCPC3333C', { __error: 'connection reset' });
  rec('kra_e', 'CCCPC3333C', {
    Status: 'KYC REGISTERED - NEW KYC Validation Pending with CAMS, CVL, KARVY, NSE, BSE KRA',
    RegisteredOn: '2024-01-05',
    UpdatedOn: '2024-01-06',
    Mode: '5',
  });
  rec('kra_d', 'CCCPC3333C', { status: 'KYC Regstd at KARVY KRA', regdate: '05-Jan-2015', moddate: '06-Jan-2015', mode: 'normal' });
  rec('kra_b', 'CCCPC3333C', {
    kycStatus: 'Rejted',
    registeredOn: '2012-01-01',
    lastUpdated: '2013-01-01',
    remarks: ['Signature mismatch'],
  });
  srv = await serve(undefined, ['--kyc-provider', 'recorded', '--kyc-dir', kycDir]);
  key = await newKey(srv.dataDir, ['--credits', '100']);
  const file = path.join(dir, 'registry.csv');
  writeFileSync(file, `${csv(entries)}\nNo Category Co,INA999999999,nonsense,,,,,,\n,INA888888888,ria,,,,,,\n`);
  const first = await serveAdmin(srv.dataDir, ['registry', 'import', file, '--json']);
  const report = JSON.parse(first.stdout);
  expect(report.inserted).toBe(entries.length);
  expect(report.rejected.map((r: { row: number }) => r.row)).toEqual([entries.length + 2, entries.length + 3]);
  const again = await serveAdmin(srv.dataDir, ['registry', 'import', file, '--json']);
  expect(JSON.parse(again.stdout)).toMatchObject({ inserted: 0, updated: 0, unchanged: entries.length });
});
afterAll(async () => {
  await srv?.stop();
});

const find = (cat: Cat, pred: (e: Entry, i: number) => boolean = () => true): Entry =>
  entries.filter((e) => number(cat, 1).length && (e.category === cat || REGULATOR_ALIASES[e.category] === cat)).find(pred)!;
const reg = (body: unknown) => post(srv.url, '/v1/verify/regulator', { key, json: body });

describe('regulator verification over HTTP on an imported registry of 532 entries in 19 categories', () => {
  it('the registry covers every category', () => {
    expect(entries.length).toBeGreaterThanOrEqual(500);
    expect(new Set(entries.map((e) => REGULATOR_ALIASES[e.category] ?? e.category))).toEqual(new Set(RegulatorCategory.options));
  });

  it.each([
    'investment-adviser',
    'research-analyst',
    'portfolio-manager',
    'merchant-banker',
    'registrar-transfer-agent',
    'stock-broker',
    'alternative-investment-fund',
    'credit-rating-agency',
    'custodian',
    'debenture-trustee',
  ] as Cat[])('detects %s from the number prefix', async (cat) => {
    const e = find(cat, (x) => x.valid_to === '2099-03-31');
    const r = await reg({ registration_number: ` ${e.registration_number.toLowerCase()} `, name: 'ignored when a number is given' });
    expect(r.status).toBe(200);
    expect(RegulatorResponse.strict().safeParse(r.body).success).toBe(true);
    expect(r.body).toMatchObject({
      status: 'success',
      verified: true,
      registration_status: 'ACTIVE',
      type: cat,
      category: cat,
      detected_by: 'registration_number',
      registration_number: e.registration_number,
      name: e.name,
      is_perpetual: false,
      valid_till: '2099-03-31',
      email: e.email,
      telephone: e.telephone,
      contact_person: e.contact_person,
      address: e.address,
    });
  });

  it('legacy broker numbers are stock brokers; an ISIN is never mistaken for one', async () => {
    const legacy = entries.find((e) => e.registration_number.startsWith('INB'))!;
    expect((await reg({ registration_number: legacy.registration_number })).body).toMatchObject({
      category: 'stock-broker',
      registration_number: legacy.registration_number,
    });
    const isin = await reg({ registration_number: 'INE002A01018' });
    expect(isin.status).toBe(422);
    expect(isin.body).toEqual({ status: 'failed', msg: expect.stringMatching(/looks like an ISIN/) });
  });

  it('numbers without a category need type (422 otherwise); type overrides detection', async () => {
    const fpi = find('foreign-portfolio-investor', (x) => x.valid_to === '2099-03-31');
    const no = await reg({ registration_number: fpi.registration_number });
    expect(no.status).toBe(422);
    expect(no.body.msg).toMatch(/give type/);
    const yes = await reg({ registration_number: fpi.registration_number, type: 'fpi' });
    expect(yes.body).toMatchObject({ verified: true, category: 'foreign-portfolio-investor', detected_by: 'type' });
    const ria = find('investment-adviser');
    const overridden = await reg({ registration_number: ria.registration_number, type: 'research-analyst' });
    expect(overridden.body).toMatchObject({ registration_status: 'NOT_FOUND', category: 'research-analyst', detected_by: 'type' });
  });

  it.each(Object.entries(REGULATOR_ALIASES))('alias %s searches %s by name', async (alias, cat) => {
    const e = find(cat as Cat, (x) => x.valid_to !== '2023-03-31');
    const r = await reg({ name: e.name, type: alias });
    expect(r.body).toMatchObject({ category: cat, registration_number: e.registration_number, name: e.name, detected_by: 'type' });
  });

  it('name search ignores case, spacing and punctuation, and finds the best match', async () => {
    const e = find('investment-adviser', (x) => x.valid_to === '2099-03-31');
    const messy = `  ${e.name.toUpperCase().replace(/ /g, '   ').replace('PRIVATE LIMITED', 'PVT. LTD.')} `;
    expect((await reg({ name: messy, type: 'ria' })).body).toMatchObject({ registration_number: e.registration_number, verified: true });
    const partial = e.name.replace(' Advisors Private Limited', ' Advisors');
    expect((await reg({ name: partial, type: 'investment-adviser' })).body.registration_number).toBe(e.registration_number);
    expect((await reg({ name: 'Completely Unknown Name', type: 'ria' })).body).toMatchObject({
      registration_status: 'NOT_FOUND',
      verified: false,
      name: null,
      registration_number: null,
    });
  });

  it('expired and perpetual registrations; not found is HTTP 200; bad input is 400', async () => {
    const expired = find('portfolio-manager', (x) => x.valid_to === '2023-03-31');
    expect((await reg({ registration_number: expired.registration_number })).body).toMatchObject({
      registration_status: 'EXPIRED',
      verified: false,
      valid_till: '2023-03-31',
      is_perpetual: false,
    });
    const perpetual = find('merchant-banker', (x) => x.valid_to === '');
    expect((await reg({ registration_number: perpetual.registration_number })).body).toMatchObject({
      registration_status: 'ACTIVE',
      verified: true,
      valid_till: null,
      is_perpetual: true,
    });
    const nf = await reg({ registration_number: 'INA000000001' });
    expect(nf.status).toBe(200);
    expect(nf.body).toEqual({
      status: 'success',
      verified: false,
      type: 'investment-adviser',
      registration_status: 'NOT_FOUND',
      registration_number: 'INA000000001',
      authority: 'regulator',
      category: 'investment-adviser',
      category_label: 'Investment Adviser',
      detected_by: 'registration_number',
      name: null,
      valid_from: null,
      valid_till: null,
      is_perpetual: null,
      address: null,
      email: null,
      telephone: null,
      contact_person: null,
    });
    expect((await reg({ name: 'x' })).status).toBe(400);
    expect((await reg({ registration_number: 'INA000000001', type: 'astrologer' })).status).toBe(400);
  });

  it('bills 0.25 credits per successful verification only', async () => {
    const k = await newKey(srv.dataDir, ['--credits', '1']);
    const active = find('research-analyst', (x) => x.valid_to === '2099-03-31');
    const expired = find('research-analyst', (x) => x.valid_to === '2023-03-31');
    const ok = await post(srv.url, '/v1/verify/regulator', { key: k, json: { registration_number: active.registration_number } });
    expect(ok.headers.get('x-credits-used')).toBe('0.25');
    for (const body of [
      { registration_number: expired.registration_number },
      { registration_number: 'INH000000001' },
      { registration_number: 'INE002A01018' },
    ]) {
      const r = await post(srv.url, '/v1/verify/regulator', { key: k, json: body });
      expect(r.headers.get('x-credits-used')).toBe('0');
    }
    expect((await post(srv.url, '/v1/credits', { key: k })).body).toMatchObject({ remaining: 0.75, used: 0.25 });
  });

  it('cas verify-regulator', async () => {
    const e = find('stock-broker', (x) => x.registration_number.startsWith('INZ') && x.valid_to === '2099-03-31');
    const r = await cas(['verify-regulator', e.registration_number, '--json'], { env: { CAS_API_KEY: key, CAS_BASE_URL: srv.url } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ verified: true, name: e.name });
    const byName = await cas(['verify-regulator', '--name', e.name, '--type', 'broker', '--json'], {
      env: { CAS_API_KEY: key, CAS_BASE_URL: srv.url },
    });
    expect(JSON.parse(byName.stdout).registration_number).toBe(e.registration_number);
  });
});

describe('KYC normaliser', () => {
  it.each([
    ['000', 'not_checked'],
    ['001', 'under_process'],
    ['002', 'registered'],
    ['003', 'on_hold'],
    ['004', 'rejected'],
    ['005', 'not_available'],
    ['006', 'on_hold'],
    ['007', 'validated'],
    ['011', 'under_process'],
    ['012', 'legacy'],
    ['013', 'on_hold'],
    ['014', 'rejected'],
    ['022', 'legacy'],
    ['888', 'not_checked'],
    ['999', 'not_available'],
    ['207', 'validated'],
    ['503', 'on_hold'],
  ])('code %s -> %s (exact: raw_status null)', (code, status) => {
    expect(normalizeStatus(code, null)).toEqual({ status, raw_status: null });
  });
  it.each([
    ['KYC Registd at CVL KRA', 'registered'],
    ['Validated at CAMS KRA', 'validated'],
    ['CVLMF Registd', 'legacy'],
    ['UNDERPROCESS', 'under_process'],
    ['ONHOLD', 'on_hold'],
    ['Rejted', 'rejected'],
    ['Incomplete', 'on_hold'],
    ['Not available', 'not_available'],
    ['KYC VALIDATED', 'validated'],
    ['KYC REGISTERED - NEW KYC', 'registered'],
    ['KYC ON HOLD', 'on_hold'],
    ['KYC REJECTED', 'rejected'],
    ['KYC REGISTERED - NEW KYC Validation Pending with CAMS, CVL, KARVY, NSE, BSE KRA', 'registered'],
  ])('text %j -> %s (exact)', (text, status) => {
    expect(normalizeStatus(null, text)).toEqual({ status, raw_status: null });
  });
  it.each([
    ['KYC VALIDATD', 'validated'],
    ['Validatd at CVL KRA', 'validated'],
    ['UNDRPROCESS', 'under_process'],
    ['ON-HOLD ', 'on_hold'],
    ['Rejectd', 'rejected'],
    ['Not Availble', 'not_available'],
    ['KYC Regstd at KARVY KRA', 'registered'],
    ['KYC REGISTERD', 'registered'],
  ])('misspelt %j -> %s (fuzzy: raw_status keeps the text)', (text, status) => {
    expect(normalizeStatus(null, text)).toEqual({ status, raw_status: text.trim() });
  });
  it('unrecognised text is unknown with raw_status', () => {
    expect(normalizeStatus(null, 'Pending with regulator')).toEqual({ status: 'unknown', raw_status: 'Pending with regulator' });
  });
  it('modes', () => {
    expect(['0', '1', '2', '3', '4', '5', '6', 'DigiLocker', 'offline', null].map((m) => normalizeMode(m))).toEqual([
      'normal',
      'ekyc',
      'ekyc',
      'normal',
      'paper',
      'locker',
      'unknown',
      'locker',
      'paper',
      null,
    ]);
  });
  it('drops informational remarks and nulls the fields of not_available agencies', () => {
    expect(agencyStatus({ code: '003', remarks: 'FATCA NOT APPLICABLE, Email not validated' }).remarks).toBe('Email not validated');
    expect(agencyStatus({ code: '005', registered_on: '2020-01-01', mode: '1', remarks: 'x' })).toEqual({
      status: 'not_available',
      registered_on: null,
      last_updated_on: null,
      kyc_mode: null,
      remarks: null,
      raw_status: null,
    });
  });
  it('aggregation: one validated and one on hold -> validated is active', () => {
    const na = agencyStatus({ code: '005' });
    const r = aggregate('AAAPA1111A', {
      kra_a: agencyStatus({ code: '003', last_updated_on: '2025-01-01' }),
      kra_b: agencyStatus({ code: '007', last_updated_on: '2020-01-01', mode: '5' }),
      kra_c: na,
      kra_d: na,
      kra_e: agencyStatus(null),
    });
    expect(r).toMatchObject({ kyc_status: 'validated', active_kra: 'kra_b', kyc_compliant: true, kyc_mode: 'locker' });
    expect(KycStatusResponse.safeParse(r).success).toBe(true);
  });
});

describe('KYC over HTTP on recorded agency answers', () => {
  const kyc = (pan: string) => post(srv.url, '/v1/kyc/pan/status', { key, json: { pan_no: pan } });
  it('validated at one agency and on hold at another', async () => {
    const r = await kyc('aaapa1111a');
    expect(r.status).toBe(200);
    expect(KycStatusResponse.safeParse(r.body).success).toBe(true);
    expect(r.body).toMatchObject({
      pan: 'AAAPA1111A',
      kyc_compliant: true,
      kyc_status: 'validated',
      kyc_mode: 'ekyc',
      active_kra: 'kra_a',
      registered_on: '2019-02-10',
      last_updated_on: '2024-03-15',
    });
    expect(r.body.kras.kra_a).toEqual({
      status: 'validated',
      registered_on: '2019-02-10',
      last_updated_on: '2024-03-15',
      kyc_mode: 'ekyc',
      remarks: null,
      raw_status: null,
    });
    expect(r.body.kras.kra_c).toEqual({
      status: 'on_hold',
      registered_on: '2017-06-01',
      last_updated_on: '2020-06-01',
      kyc_mode: 'normal',
      remarks: 'PAN-Aadhaar seeding pending, Mobile number not validated',
      raw_status: null,
    });
    expect(r.body.kras.kra_b.status).toBe('not_available');
  });
  it('not available anywhere', async () => {
    const r = await kyc('BBBPB2222B');
    expect(r.body).toMatchObject({
      kyc_compliant: false,
      kyc_status: 'not_available',
      active_kra: null,
      kyc_mode: null,
      registered_on: null,
    });
    expect(r.body.kras.kra_d).toEqual({
      status: 'not_available',
      registered_on: null,
      last_updated_on: null,
      kyc_mode: null,
      remarks: null,
      raw_status: 'Not Availble',
    });
  });
  it('one agency failing is not_checked; a fuzzy match keeps its raw text', async () => {
    const r = await kyc('CCCPC3333C');
    expect(r.body.kras.kra_a).toEqual({
      status: 'not_checked',
      registered_on: null,
      last_updated_on: null,
      kyc_mode: null,
      remarks: null,
      raw_status: null,
    });
    expect(r.body.kras.kra_c.status).toBe('not_checked');
    expect(r.body.kras.kra_d).toMatchObject({ status: 'registered', raw_status: 'KYC Regstd at KARVY KRA', registered_on: '2015-01-05' });
    expect(r.body).toMatchObject({
      kyc_status: 'registered',
      active_kra: 'kra_e',
      kyc_mode: 'locker',
      kyc_compliant: true,
      last_updated_on: '2024-01-06',
    });
    expect(r.body.kras.kra_b).toMatchObject({ status: 'rejected', remarks: 'Signature mismatch' });
  });
  it('checks the PAN format; the sandbox key gets sample data; cas kyc exits 0 whatever the status', async () => {
    expect((await kyc('ABC')).status).toBe(400);
    const s = await post(srv.url, '/v1/kyc/pan/status', { key: 'cas_sandbox_public_key', json: { pan_no: 'ABCPM1234K' } });
    expect(s.body).toMatchObject({ kyc_status: 'validated', active_kra: 'kra_a', kyc_mode: 'locker' });
    const cli = await cas(['kyc', 'BBBPB2222B', '--json'], { env: { CAS_API_KEY: key, CAS_BASE_URL: srv.url } });
    expect(cli.exitCode).toBe(0);
    expect(JSON.parse(cli.stdout).kyc_status).toBe('not_available');
  });
});

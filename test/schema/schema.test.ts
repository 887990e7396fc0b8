import { describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import { z } from 'zod';
import * as S from '../../src/schema/index.js';
import { cas, expectedJson } from '../helpers/cas.js';

const agency = {
  status: 'validated',
  registered_on: '2019-05-01',
  last_updated_on: '2024-01-02',
  kyc_mode: 'normal',
  remarks: null,
  raw_status: null,
};
const notChecked = { status: 'not_checked', registered_on: null, last_updated_on: null, kyc_mode: null, remarks: null, raw_status: null };
const file = {
  message_id: '<a@b>',
  filename: 'registrar_a_20260401_ab12cd.pdf',
  original_filename: 'CAS.pdf',
  message_date: '2026-04-01',
  cas_type: 'registrar_a',
  sender_email: 'donotreply@camsonline.com',
  size: 1234,
  url: 'http://127.0.0.1:8080/f/x?sig=1',
  expires_in: 86400,
};
const inbound = {
  inbound_email_id: 'ie_1',
  email: 'ie_1@in.example.com',
  reference: null,
  callback_url: null,
  allowed_sources: [],
  metadata: {},
  status: 'active',
  created_at: '2026-04-01T00:00:00Z',
  updated_at: '2026-04-01T00:00:00Z',
};
const regulator = {
  status: 'success',
  verified: true,
  type: 'investment-adviser',
  registration_status: 'ACTIVE',
  registration_number: 'INA000012345',
  authority: 'regulator',
  category: 'investment-adviser',
  category_label: 'Investment Adviser',
  detected_by: 'registration_number',
  name: 'X',
  valid_from: '2020-01-01',
  valid_till: null,
  is_perpetual: true,
  address: null,
  email: null,
  telephone: null,
  contact_person: null,
};
const cn = {
  broker_info: { broker_type: 'broker_a', name: 'Zerodha Broking Ltd', regulator_registration: 'INZ000031633' },
  client_info: { name: 'A', pan: 'ABCPM1234K', ucc: 'AB1234', address: null, gst_state_code: '27', place_of_supply: 'MAHARASHTRA' },
  contract_note_info: {
    contract_note_number: 'CNT-1',
    settlement_number: '2026001',
    trade_date: '2026-04-01',
    settlement_date: '2026-04-02',
  },
  equity_transactions: [],
  derivatives_transactions: [],
  detailed_trades: [],
  charges_summary: {
    cgst: 0,
    sgst: 0,
    igst: 0,
    exchange_transaction_charges: 0,
    regulator_turnover_fees: 0,
    securities_transaction_tax: 0,
    stamp_duty: 0,
    taxable_value_brokerage: 0,
    pay_in_pay_out_obligation: 0,
    net_amount_receivable_payable: 0,
  },
};

const gainRow = {
  fy: '2025-26',
  folio: '1001',
  amc: 'A',
  scheme: 'S',
  isin: 'INF179K01UT0',
  asset_class: 'equity',
  units: 1,
  acquisition_date: '2024-04-15',
  acquisition_cost: 10,
  stamp_duty: 0,
  transfer_date: '2025-10-20',
  transfer_type: 'REDEMPTION',
  transfer_value: 12,
  stt: 0,
  fmv_nav: null,
  fmv: null,
  grandfathered_cost: null,
  cost: 10,
  gain: 2,
  term: 'long',
  tax_class: 'equity_ltcg_12_5',
  rate: 0.125,
  flags: [],
};

/** For every resource: one valid example and mutations that must be rejected. */
const CASES: Record<string, { valid: unknown; invalid: [string, unknown][] }> = {
  error: {
    valid: { status: 'failed', msg: 'bad' },
    invalid: [
      ['wrong status', { status: 'error', msg: 'x' }],
      ['missing msg', { status: 'failed' }],
    ],
  },
  'mailbox-error': {
    valid: { status: 'error', msg: 'revoked', requires_reconnect: true },
    invalid: [['missing flag', { status: 'error', msg: 'x' }]],
  },
  'detail-error': { valid: { detail: 'tokens cannot read usage logs' }, invalid: [['extra field', { detail: 'x', status: 'failed' }]] },
  'request-id': {
    valid: 'req_abc123',
    invalid: [
      ['bad request id', 'abc123'],
      ['bad characters', 'req_ab-c'],
    ],
  },
  'parsed-statement': { valid: expectedJson('expected/registrar-detailed.json'), invalid: [] },
  'contract-note': {
    valid: cn,
    invalid: [
      ['wrong broker enum', { ...cn, broker_info: { ...cn.broker_info, broker_type: 'zerodha' } }],
      ['bad date', { ...cn, contract_note_info: { ...cn.contract_note_info, trade_date: '01-04-2026' } }],
    ],
  },
  'email-statement-file': {
    valid: file,
    invalid: [
      ['wrong cas_type', { ...file, cas_type: 'cams' }],
      ['missing url', { ...file, url: undefined }],
      ['bad date', { ...file, message_date: '2026-13-01' }],
    ],
  },
  'inbound-email': {
    valid: inbound,
    invalid: [
      ['deleted is not a status', { ...inbound, status: 'deleted' }],
      ['bad email', { ...inbound, email: 'nope' }],
    ],
  },
  'inbound-webhook-payload': {
    valid: { inbound_email_id: 'ie_1', reference: null, metadata: {}, forwarded_by: 'a@b.in', files: [file], count: 1 },
    invalid: [['missing count', { inbound_email_id: 'ie_1', reference: null, metadata: {}, forwarded_by: 'a@b.in', files: [] }]],
  },
  'kyc-status': {
    valid: {
      status: 'success',
      pan: 'ABCPM1234K',
      kyc_compliant: true,
      kyc_status: 'validated',
      kyc_mode: 'normal',
      active_kra: 'kra_a',
      registered_on: '2019-05-01',
      last_updated_on: null,
      kras: { kra_a: agency, kra_b: notChecked, kra_c: notChecked, kra_d: notChecked, kra_e: notChecked },
    },
    invalid: [
      [
        'missing agency key',
        {
          status: 'success',
          pan: 'ABCPM1234K',
          kyc_compliant: true,
          kyc_status: 'validated',
          kyc_mode: null,
          active_kra: null,
          registered_on: null,
          last_updated_on: null,
          kras: { kra_a: agency },
        },
      ],
      [
        'lower-case pan',
        {
          status: 'success',
          pan: 'abcpm1234k',
          kyc_compliant: false,
          kyc_status: 'unknown',
          kyc_mode: null,
          active_kra: null,
          registered_on: null,
          last_updated_on: null,
          kras: { kra_a: agency, kra_b: agency, kra_c: agency, kra_d: agency, kra_e: agency },
        },
      ],
    ],
  },
  'kyc-agency-status': {
    valid: agency,
    invalid: [
      ['wrong enum', { ...agency, status: 'ok' }],
      ['missing key', { status: 'validated' }],
    ],
  },
  'regulator-request': { valid: { registration_number: 'INA000012345' }, invalid: [['name without type', { name: 'Someone' }]] },
  'regulator-response': {
    valid: regulator,
    invalid: [
      ['wrong status enum', { ...regulator, registration_status: 'LAPSED' }],
      ['missing property', { ...regulator, name: undefined }],
    ],
  },
  'verified-identity': {
    valid: {
      locker_id: 'x',
      username: null,
      name: 'A',
      dob: '01-01-1990',
      gender: 'M',
      care_of: null,
      address: null,
      email: null,
      mobile: 'XXXXXX1234',
      verified: { pan: 'ABCPM1234K' },
    },
    invalid: [
      [
        'unmasked mobile',
        {
          locker_id: 'x',
          username: null,
          name: 'A',
          dob: null,
          gender: null,
          care_of: null,
          address: null,
          email: null,
          mobile: 'abc',
          verified: {},
        },
      ],
    ],
  },
  'national-id-record': {
    valid: {
      name: 'A',
      dob: '01-01-1990',
      gender: 'F',
      care_of: null,
      address: null,
      masked_national_id: 'XXXXXXXX1234',
      photo_base64: null,
      session_id: 's',
    },
    invalid: [
      [
        'unmasked id',
        {
          name: 'A',
          dob: null,
          gender: 'F',
          care_of: null,
          address: null,
          masked_national_id: '123412341234',
          photo_base64: null,
          session_id: null,
        },
      ],
    ],
  },
  'pan-certificate': {
    valid: {
      pan: 'ABCPM1234K',
      name: 'A',
      dob: '01-01-1990',
      gender: 'M',
      father_name: '',
      status: 'A',
      verified_on: '2026-01-01 10:00',
      signature: null,
    },
    invalid: [['missing field', { pan: 'X' }]],
  },
  'driving-licence': {
    valid: {
      dl_number: 'MH01',
      name: 'A',
      father_name: null,
      dob: '1990-01-01',
      gender: 'M',
      issue_date: null,
      valid_from: null,
      expiry_date: null,
      issued_at: null,
      status: null,
      permanent_address: null,
      present_address: null,
      categories: [],
      signature: null,
    },
    invalid: [
      [
        'bad dob',
        {
          dl_number: 'MH01',
          name: 'A',
          father_name: null,
          dob: '01-01-1990',
          gender: 'M',
          issue_date: null,
          valid_from: null,
          expiry_date: null,
          issued_at: null,
          status: null,
          permanent_address: null,
          present_address: null,
          categories: [],
          signature: null,
        },
      ],
    ],
  },
  signature: {
    valid: {
      signature_present: true,
      certificate: { subject: 'CN=x', issuer: 'CN=y', serial_number: '01', valid_from: '2025-01-01', valid_until: '2027-01-01' },
    },
    invalid: [['missing flag', { certificate: null }]],
  },
  'locker-document': {
    valid: {
      uri: 'in.gov.pan-PANCR-ABCPM1234K',
      name: 'PAN',
      doctype: 'PANCR',
      issuer: 'Income Tax',
      issuerid: 'in.gov.pan',
      type: 'file',
      mime: ['application/pdf'],
      date: null,
    },
    invalid: [
      ['doctype of 6 chars', { uri: 'u', name: null, doctype: 'PANCRX', issuer: null, issuerid: null, type: null, mime: [], date: null }],
    ],
  },
  'consent-receipt': {
    valid: { consented_at: '2026-04-01T10:00:00Z', purpose: 'Account opening KYC verification' },
    invalid: [['bad date-time', { consented_at: 'yesterday', purpose: null }]],
  },
  'usage-log-entry': {
    valid: {
      request_id: 'req_a1',
      feature: 'parse',
      path: '/v4/smart/parse',
      status_code: 200,
      credits: 1,
      timestamp: '2026-04-01T10:00:00Z',
    },
    invalid: [
      [
        'bad request id',
        { request_id: 'a1', feature: 'parse', path: '/', status_code: 200, credits: 1, timestamp: '2026-04-01T10:00:00Z' },
      ],
      ['bad timestamp', { request_id: 'req_a1', feature: 'parse', path: '/', status_code: 200, credits: 1, timestamp: '2026-04-01' }],
    ],
  },
  'usage-response': { valid: { status: 'success', logs: [], count: 0 }, invalid: [['missing count', { status: 'success', logs: [] }]] },
  'usage-summary': {
    valid: {
      status: 'success',
      summary: { total_credits: 1, total_requests: 1, by_feature: [{ feature: 'parse', credits: 1, requests: 1 }] },
    },
    invalid: [['missing summary', { status: 'success' }]],
  },
  credits: {
    valid: { status: 'success', used: 1, remaining: null, limit: null, is_unlimited: true, resets_at: null, enabled_features: ['parse'] },
    invalid: [['missing flag', { status: 'success', used: 1 }]],
  },
  'access-token': { valid: 'at_abc123', invalid: [['no prefix', 'abc123']] },
  'token-response': {
    valid: { status: 'success', access_token: 'at_x1', token_type: 'api_key', expires_in: 3600 },
    invalid: [['bad token', { status: 'success', access_token: 'x1', token_type: 'api_key', expires_in: 3600 }]],
  },
  'token-verify': {
    valid: { status: 'success', valid: true, masked_api_key: 'sk****ab', error: null },
    invalid: [['missing valid', { status: 'success' }]],
  },
  'fetch-request': {
    valid: { pan: 'ABCPM1234K', bo_id: '1204470012345678', dob: '1990-01-31' },
    invalid: [
      ['short bo_id', { pan: 'ABCPM1234K', bo_id: '12', dob: '1990-01-31' }],
      ['bad pan', { pan: 'ABC', bo_id: '1204470012345678', dob: '1990-01-31' }],
    ],
  },
  'fetch-verify-response': {
    valid: { status: 'success', msg: 'ok', files: [{ filename: 'a.pdf', url: 'http://127.0.0.1/x' }] },
    invalid: [['bad url', { status: 'success', msg: 'ok', files: [{ filename: 'a.pdf', url: 'nope' }] }]],
  },
  'mailback-request': {
    valid: { email: 'a@b.in', from_date: '2025-04-01', to_date: '2026-03-31', password: 'Abcd@1234' },
    invalid: [['bad email', { email: 'x', from_date: '2025-04-01', to_date: '2026-03-31', password: 'x' }]],
  },
  transaction: { valid: (expectedJson('expected/registrar-detailed.json') as any).mutual_funds[0].schemes[0].transactions[0], invalid: [] },
  holding: {
    valid: {
      isin: 'INE002A01018',
      name: 'RELIANCE',
      units: 10,
      value: 100,
      transactions: [],
      additional_info: { open_units: null, close_units: 10 },
    },
    invalid: [
      [
        'units as string',
        { isin: 'x', name: 'y', units: '10', value: 1, transactions: [], additional_info: { open_units: null, close_units: null } },
      ],
    ],
  },
  'demat-account': {
    valid: {
      demat_type: 'DEPOSITORY_A',
      dp_id: '12044700',
      dp_name: 'X',
      client_id: '12345678',
      bo_id: '1204470012345678',
      value: 0,
      linked_holders: [],
      holdings: { equities: [], corporate_bonds: [], government_securities: [], aifs: [], demat_mutual_funds: [] },
      additional_info: {},
    },
    invalid: [['lower-case demat type', { demat_type: 'cdsl' }]],
  },
  portfolio: {
    valid: {
      investors: [{ name: 'A', pan: 'ABCPM1234K' }],
      as_of: '2026-03-31',
      sources: [],
      left_out: [{ file: 'x.pdf', message: 'the PDF is damaged' }],
      totals: { value: 0, holdings: 0, by_asset_class: [], by_amc: [] },
      holdings: [],
      returns: {
        portfolio: {
          name: 'portfolio',
          holdings: 0,
          value: 0,
          since_inception: {
            xirr: { rate: null, reason: 'no cash flows', flows: 0, from: null, to: null },
            invested: null,
            value: 0,
            payouts: null,
            gain: null,
          },
          years: [],
          left_out: [],
        },
        by_folio: [],
        by_amc: [],
        by_asset_class: [],
      },
      timeline: [{ date: '2026-03-31', value: 0, invested: 0, unvalued: 0 }],
      issues: [],
    },
    invalid: [],
  },
  'mutual-fund-folio': { valid: (expectedJson('expected/registrar-detailed.json') as any).mutual_funds[0], invalid: [] },
  scheme: { valid: (expectedJson('expected/registrar-detailed.json') as any).mutual_funds[0].schemes[0], invalid: [] },
  gains: {
    valid: {
      years: [
        {
          fy: '2025-26',
          schemes: [
            {
              folio: '1001',
              amc: 'A',
              scheme: 'S',
              isin: 'INF179K01UT0',
              asset_class: 'equity',
              class_source: 'name',
              rows: [gainRow],
              stcg: 0,
              ltcg: 2,
            },
          ],
          totals: [{ asset_class: 'equity', transfer_value: 12, cost: 10, stcg: 0, ltcg: 2, incomplete_rows: 0 }],
          equity_ltcg_exemption: 125000,
        },
      ],
      issues: [],
    },
    invalid: [
      ['bad fy', { years: [{ fy: 'FY25', schemes: [], totals: [], equity_ltcg_exemption: 0 }], issues: [] }],
      [
        'unknown flag',
        {
          years: [
            {
              fy: '2025-26',
              schemes: [
                {
                  folio: '1',
                  amc: 'A',
                  scheme: 'S',
                  isin: null,
                  asset_class: 'equity',
                  class_source: 'name',
                  rows: [{ ...gainRow, flags: ['guessed'] }],
                  stcg: 0,
                  ltcg: 0,
                },
              ],
              totals: [],
              equity_ltcg_exemption: 0,
            },
          ],
          issues: [],
        },
      ],
    ],
  },
  'inbound-email-list': {
    valid: { status: 'success', inbound_emails: [inbound], total: 1, limit: 10, offset: 0 },
    invalid: [['limit over 100', { status: 'success', inbound_emails: [], total: 0, limit: 101, offset: 0 }]],
  },
};

function mutateStatement(): [string, unknown][] {
  const base = expectedJson('expected/registrar-detailed.json') as any;
  const a = structuredClone(base);
  a.meta.cas_type = 'CAMS';
  const b = structuredClone(base);
  delete b.investor;
  const c = structuredClone(base);
  c.mutual_funds[0].schemes[0].transactions[0].date = '2024-02-30';
  const d = structuredClone(base);
  d.mutual_funds[0].schemes[0].transactions[0].type = 'BUY';
  return [
    ['wrong cas_type enum', a],
    ['missing investor', b],
    ['impossible date', c],
    ['wrong transaction type', d],
  ];
}
CASES['parsed-statement'].invalid = mutateStatement();
CASES['transaction'].invalid = [['wrong type enum', { ...(CASES['transaction'].valid as object), type: 'BUY' }]];
CASES['mutual-fund-folio'].invalid = [['value as string', { ...(CASES['mutual-fund-folio'].valid as object), value: '12' }]];
{
  const valid = CASES['portfolio'].valid as any;
  const rateAsText = structuredClone(valid);
  rateAsText.returns.portfolio.since_inception.xirr.rate = '12%';
  CASES['portfolio'].invalid = [
    ['impossible as_of', { ...valid, as_of: '2026-02-30' }],
    ['a rate as text', rateAsText],
    ['unknown asset class', { ...valid, totals: { ...valid.totals, by_asset_class: [{ asset_class: 'stocks', value: 1 }] } }],
  ];
}
CASES['scheme'].invalid = [['wrong scheme type', { ...(CASES['scheme'].valid as object), type: 'Stocks' }]];

describe('schemas of every resource', () => {
  it('every named schema has test cases', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(S.SCHEMAS).sort());
  });
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name}: accepts a valid example and rejects each broken one`, () => {
      const schema = S.SCHEMAS[name].schema as z.ZodType;
      const ok = schema.safeParse(c.valid);
      expect(ok.error?.issues ?? []).toEqual([]);
      for (const [why, bad] of c.invalid) expect(schema.safeParse(bad).success, why).toBe(false);
    });
  }
});

describe('cas schema', () => {
  it('lists names', async () => {
    const r = await cas(['schema', '--json']);
    expect(r.exitCode).toBe(0);
    const names = (JSON.parse(r.stdout) as { name: string }[]).map((n) => n.name);
    expect(names).toContain('parsed-statement');
    expect(names).toHaveLength(Object.keys(S.SCHEMAS).length);
  });

  it('prints a draft 2020-12 JSON Schema that ajv compiles and that validates the samples', async () => {
    const r = await cas(['schema', 'parsed-statement']);
    expect(r.exitCode).toBe(0);
    const schema = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
    ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T/);
    ajv.addFormat('email', /^[^@\s]+@[^@\s]+$/);
    const validate = ajv.compile(schema);
    for (const f of ['expected/registrar-detailed.json', 'expected/registrar-summary.json']) {
      expect(validate(expectedJson(f)), JSON.stringify(validate.errors)).toBe(true);
    }
    const broken = structuredClone(expectedJson('expected/registrar-detailed.json')) as any;
    broken.meta.cas_type = 'CAMS';
    expect(validate(broken)).toBe(false);
  });

  it('an unknown name is a usage error', async () => {
    const r = await cas(['schema', 'nope']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown schema 'nope'/);
  });
});

describe('zod-free copies stay in sync', () => {
  it('the --broker list of cas parse is the schema BrokerType without unknown', async () => {
    const { BrokerType } = await import('../../src/schema/index.js');
    const { KNOWN_BROKERS } = await import('../../src/cli/commands/parse.js');
    expect([...KNOWN_BROKERS, 'unknown'].sort()).toEqual([...BrokerType.options].sort());
  });
});

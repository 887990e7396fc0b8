/**
 * Issue 25: the hosted API's generated SDKs work unchanged against `cas serve`.
 *
 * Everything here is derived, at test time, from the hosted service's public OpenAPI document
 * (`../shared/reference/vendor-openapi.yaml`, kept in sync as `test/server/sdk-vendor-openapi.yaml`):
 * for every operation in it that `cas serve` implements, the request is built the way a generated
 * SDK builds it (the documented path, `x-api-key`, the JSON content type with no body where the
 * operation has none, the documented examples in bodies, arrays included, RFC 3339 date-times
 * with `+00:00` and `+05:30` offsets, multipart `pdf_file`, the documented sandbox key) and sent
 * to two real servers: one started with `--names real`, whose answer must validate against the
 * vendor's response schema (ajv, $refs resolved, enums and formats checked) and carry no neutral
 * name; one with SPEC.md's names on SPEC.md's paths, whose answer must validate against our zod
 * schemas. Parse answers are also compared with `cas parse` of the same file in the same names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import YAML from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';
import { z } from 'zod';
import * as S from '../../src/schema/index.js';
import { FIELDS, PATHS, VALUES } from '../../src/schema/names.js';
import { cas, fixture } from '../helpers/cas.js';
import { fetchJson, newKey, serve, type JsonReply, type Served } from '../helpers/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED_DOC = path.resolve(ROOT, '../shared/reference/vendor-openapi.yaml');
const COPY_DOC = path.join(ROOT, 'test/server/sdk-vendor-openapi.yaml');
const vendorText = readFileSync(existsSync(SHARED_DOC) ? SHARED_DOC : COPY_DOC, 'utf8');
const doc = YAML.parse(vendorText) as any;

/**
 * One repair of the vendor document, which its own examples prove: members typed
 * `[string, "null"]` with an `enum` that omits null (KYC `kyc_mode`, `active_kra`) are shown as
 * null in its examples. Such an enum is read as also allowing null; every other enum is strict.
 */
const repaired: string[] = [];
(function allowNullInNullableEnums(node: any, at: string): void {
  if (Array.isArray(node)) node.forEach((n, i) => allowNullInNullableEnums(n, `${at}/${i}`));
  else if (node && typeof node === 'object') {
    if (Array.isArray(node.type) && node.type.includes('null') && Array.isArray(node.enum) && !node.enum.includes(null)) {
      node.enum = [...node.enum, null];
      repaired.push(at);
    }
    for (const [k, v] of Object.entries(node)) allowNullInNullableEnums(v, `${at}/${k}`);
  }
})(doc, '#');
const SANDBOX: string = /`([^`]+)` as Sandbox key/.exec(doc.components.securitySchemes.ApiKeyAuth.description)![1];
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/manifest.json'), 'utf8')) as { path: string; password: string | null }[];
const passwordOf = (rel: string): string => manifest.find((m) => m.path === rel)!.password!;

/** Vendor operations `cas serve` does not offer, and why. */
const NOT_OFFERED: Record<string, string> = {
  agentAuthApprove:
    'agent auth signs a user in to the hosted service and mints a hosted key; cas serve keys are created with `cas serve keys create`',
  agentAuthPoll: 'agent auth (see above): nothing to poll on a self-hosted server',
  digilockerAccountLookup:
    "needs the locker operator's partner API (pre-consent account lookup), which a self-hosted server has no access to",
  verifyMfdDistributor:
    'needs the mutual-fund distributor (ARN) register and its adverse lists, which are not published as a bulk data set',
};

/* ---------- the vendor document ---------- */

interface VendorOp {
  id: string;
  method: string;
  path: string;
  op: any;
}
const vendorOps: VendorOp[] = [];
for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
  for (const [method, op] of Object.entries(item))
    if (op?.operationId) vendorOps.push({ id: op.operationId, method: method.toUpperCase(), path: p, op });
}
const opById = (id: string): VendorOp => vendorOps.find((o) => o.id === id)!;

const deref = (x: any): any => {
  let v = x;
  while (v && typeof v === 'object' && typeof v.$ref === 'string' && v.$ref.startsWith('#/'))
    v = v.$ref
      .slice(2)
      .split('/')
      .reduce((o: any, k: string) => o[k], doc);
  return v;
};

const DOC_ID = 'https://vendor.invalid/openapi.json';
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
ajv.addFormat('date', { validate: (s: string) => DATE.test(s) && !Number.isNaN(Date.parse(s)) });
ajv.addFormat('date-time', { validate: (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)) });
ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
ajv.addFormat('uri', { validate: (s: string) => URL.canParse(s) });
ajv.addFormat('float', { type: 'number', validate: (n: number) => Number.isFinite(n) });
ajv.addFormat('binary', true);
ajv.addFormat('base64', /^[A-Za-z0-9+/]*={0,2}$/);
ajv.addSchema({ $id: DOC_ID, components: doc.components });

/** The vendor's 2xx response schema of an operation, $refs pointing into the document. */
function vendorValidator(id: string, status: number) {
  const { op } = opById(id);
  const res = deref(op.responses[String(status)]);
  const schema = res?.content?.['application/json']?.schema;
  expect(schema, `${id}: the vendor documents a JSON ${status} response`).toBeTruthy();
  const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`));
  return ajv.compile(rebased);
}

/** Neutral identifiers that must never reach a real-name client. */
const NEUTRAL = new Set<string>([
  ...Object.values(VALUES).flatMap((d) =>
    Object.entries(d as Record<string, string>)
      .filter(([n, r]) => n !== r)
      .map(([n]) => n),
  ),
  ...Object.entries(FIELDS)
    .filter(([n]) => n !== 'purpose')
    .map(([n]) => n),
  'DEPOSITORY_A',
  'DEPOSITORY_B',
  'REGISTRAR_A_REGISTRAR_B',
  'regulator',
]);
function neutralLeaks(value: unknown, at = '$', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => neutralLeaks(v, `${at}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (NEUTRAL.has(k)) out.push(`${at}.${k} (key)`);
      // A usage log's `path` is the caller's own URL, whichever names it used.
      if (k !== 'path') neutralLeaks(v, `${at}.${k}`, out);
    }
  } else if (
    typeof value === 'string' &&
    (NEUTRAL.has(value) || /\b(depository_[ab]|registrar_[ab]|broker_[a-d]|kra_[a-e])(\b|_)/i.test(value))
  )
    out.push(`${at} = ${value}`);
  return out;
}

/** Real-name 2xx answers per vendor operation, checked again against our own /openapi.json at the end. */
const realAnswers = new Map<string, { status: number; body: unknown }[]>();

function expectVendor(id: string, r: Reply, status = 200): void {
  if (status < 300) realAnswers.set(id, [...(realAnswers.get(id) ?? []), { status, body: r.body }]);
  expect(r.status, `${id}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(status);
  const validate = vendorValidator(id, status);
  const ok = validate(r.body);
  expect(
    ok ? [] : validate.errors!.slice(0, 8).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`),
    `${id} against the vendor schema`,
  ).toEqual([]);
  expect(neutralLeaks(r.body), `${id}: neutral names in a real-name answer`).toEqual([]);
}

/** A component schema of the vendor document (for what is not a response, e.g. the webhook body). */
function expectVendorComponent(name: string, value: unknown): void {
  const validate = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
  const ok = validate(value);
  expect(
    ok ? [] : validate.errors!.slice(0, 8).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`),
    `${name} against the vendor schema`,
  ).toEqual([]);
  expect(neutralLeaks(value), `${name}: neutral names in a real-name body`).toEqual([]);
}

function expectSpec(label: string, schema: z.ZodType, r: Reply, status = 200): void {
  expect(r.status, `${label}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(status);
  const p = schema.safeParse(r.body);
  expect(
    p.success ? [] : p.error.issues.slice(0, 8).map((i) => `${i.path.join('.')}: ${i.message}`),
    `${label} against SPEC.md's schema`,
  ).toEqual([]);
}

/* ---------- requests as a generated SDK builds them ---------- */

const iso = (ms: number, offsetMinutes: number): string => {
  const d = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const a = Math.abs(offsetMinutes);
  return `${d}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
};
/** Date-times the way Python's and most SDKs' serialisers write them: starts in +05:30, ends in +00:00. */
const dateTimeFor = (key: string): string => (key.startsWith('end') ? iso(Date.now() + 3600_000, 0) : iso(Date.now() - 3600_000, 330));

/** A JSON body from the vendor's request schema: documented examples (enum's first value when none). */
function bodyFor(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const schema = deref(deref(opById(id).op.requestBody).content['application/json'].schema);
  const out: Record<string, unknown> = {};
  for (const [k, raw] of Object.entries(schema.properties ?? {})) {
    const p = deref(raw);
    if (k in overrides) {
      if (overrides[k] !== undefined) out[k] = overrides[k];
    } else if (p.format === 'date-time') out[k] = dateTimeFor(k);
    else if (p.example !== undefined) out[k] = p.example;
    else if (p.enum) out[k] = p.enum[0];
    else if (p.items?.enum && p.type === 'array') out[k] = p.items.enum.slice(0, 2);
    else expect((schema.required ?? []).includes(k), `${id}: no example for required ${k}`).toBe(false);
  }
  return out;
}

/** Multipart fields from the vendor's request schema, with the PDF as `pdf_file`. */
function formFor(id: string, file: string, fields: Record<string, string>): FormData {
  const content = deref(opById(id).op.requestBody).content;
  const schema = deref(content['multipart/form-data'].schema);
  expect(schema.properties.pdf_file.format).toBe('binary');
  const fd = new FormData();
  fd.append('pdf_file', new Blob([new Uint8Array(readFileSync(fixture(file)))], { type: 'application/pdf' }), path.basename(file));
  for (const [k, v] of Object.entries(fields)) {
    expect(Object.keys(schema.properties), `${id}: multipart field ${k} is documented`).toContain(k);
    fd.append(k, v);
  }
  return fd;
}

type Reply = JsonReply;
interface Call {
  key: string;
  body?: unknown;
  form?: FormData;
  params?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

async function send(base: string, method: string, p: string, c: Call): Promise<Reply> {
  let url = p.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(c.params?.[name] ?? ''));
  if (c.query) url += `?${new URLSearchParams(c.query)}`;
  // A generated client always sends the JSON content type; the body only when there is one.
  const headers: Record<string, string> = {
    'x-api-key': c.key,
    accept: 'application/json',
    ...(c.form ? {} : { 'content-type': 'application/json' }),
    ...c.headers,
  };
  return fetchJson(`${base}${url}`, {
    method,
    headers,
    body: c.form ?? (c.body === undefined ? undefined : JSON.stringify(c.body)),
  });
}

/** The vendor operation on the real-name server. */
const vendorCall = (id: string, c: Call): Promise<Reply> => {
  const o = opById(id);
  if (!o.op.requestBody && c.body !== undefined) throw new Error(`${id} has no request body`);
  return send(real.url, o.method, o.path, c);
};

/** SPEC.md's path of a vendor path (names.ts), on the spec server. */
const specPath = (vendorPath: string): string => {
  for (const [neutral, r] of PATHS) if (vendorPath === r || vendorPath.startsWith(`${r}/`)) return neutral + vendorPath.slice(r.length);
  return vendorPath;
};
/** SPEC-name 2xx answers per vendor operation, checked against the spec server's /openapi.json at the end. */
const specAnswers = new Map<string, { status: number; body: unknown }[]>();
const specCall = async (id: string, c: Call): Promise<Reply> => {
  const o = opById(id);
  const r = await send(spec.url, o.method, specPath(o.path), c);
  if (r.status < 300) specAnswers.set(id, [...(specAnswers.get(id) ?? []), { status: r.status, body: r.body }]);
  return r;
};

/* ---------- servers ---------- */

let real: Served;
let spec: Served;
let realKey: string;
let specKey: string;
const covered = new Set<string>();
const cover = (id: string): void => {
  expect(opById(id), `${id} is an operation of the vendor document`).toBeTruthy();
  covered.add(id);
};

beforeAll(async () => {
  const env = { CAS_SANDBOX_RATE: '1000', CAS_DNS_OFFLINE: '1', CAS_WEBHOOK_BACKOFF_MS: '200' };
  [real, spec] = await Promise.all([
    serve(undefined, ['--names', 'real', '--sandbox-key', SANDBOX, '--smtp-port', '0', '--inbound-domain', 'in.cas.test'], env),
    serve(undefined, ['--sandbox-key', SANDBOX], env),
  ]);
  [realKey, specKey] = await Promise.all([newKey(real.dataDir, ['--credits', '100']), newKey(spec.dataDir, ['--credits', '100'])]);
}, 60_000);

afterAll(async () => {
  await Promise.all([real?.stop(), spec?.stop()]);
});

describe('generated-SDK conformance (vendor OpenAPI document)', () => {
  it('uses the vendor document beside the contract, and its copy here is current', () => {
    if (existsSync(SHARED_DOC))
      expect(
        readFileSync(COPY_DOC, 'utf8'),
        'test/server/sdk-vendor-openapi.yaml differs from ../shared/reference/vendor-openapi.yaml: copy it again',
      ).toBe(readFileSync(SHARED_DOC, 'utf8'));
    expect(vendorOps.length).toBeGreaterThan(20);
    expect(SANDBOX.length).toBeGreaterThan(5);
  });

  it('the validator accepts every example the vendor document gives for its 200 responses', () => {
    let n = 0;
    for (const o of vendorOps) {
      const content = deref(o.op.responses?.['200'])?.content?.['application/json'];
      for (const ex of Object.values((content?.examples ?? {}) as Record<string, { value: unknown }>)) {
        const validate = vendorValidator(o.id, 200);
        expect(validate(ex.value) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`), `${o.id} example`).toEqual([]);
        n++;
      }
    }
    expect(n).toBeGreaterThan(3);
  });

  it('account: credits, access tokens (checked bodiless, token in x-api-key), usage with +00:00 / +05:30', async () => {
    cover('checkCredits');
    expectVendor('checkCredits', await vendorCall('checkCredits', { key: SANDBOX }));
    expectVendor('checkCredits', await vendorCall('checkCredits', { key: realKey }));
    expectSpec('credits', S.CreditsResponse, await specCall('checkCredits', { key: specKey }));

    cover('generateAccessToken');
    const t = await vendorCall('generateAccessToken', { key: realKey, body: bodyFor('generateAccessToken') });
    expectVendor('generateAccessToken', t);
    expectSpec('token', S.TokenResponse, await specCall('generateAccessToken', { key: specKey, body: bodyFor('generateAccessToken') }));

    cover('verifyAccessToken');
    const v = await vendorCall('verifyAccessToken', { key: t.body.access_token });
    expectVendor('verifyAccessToken', v);
    expect(v.body.valid).toBe(true);
    const bad = await vendorCall('verifyAccessToken', { key: 'at_not_a_token' });
    expectVendor('verifyAccessToken', bad);
    expect(bad.body.valid).toBe(false);
    const st = (await specCall('generateAccessToken', { key: specKey, body: {} })).body.access_token as string;
    expectSpec('token verify', S.TokenVerifyResponse, await specCall('verifyAccessToken', { key: st }));

    for (const id of ['getUsageLogs', 'getUsageSummary']) {
      cover(id);
      const body = bodyFor(id);
      expect(String(body.start_time)).toMatch(/\+05:30$/);
      expect(String(body.end_time)).toMatch(/\+00:00$/);
      const r = await vendorCall(id, { key: realKey, body });
      expectVendor(id, r);
      const s = await specCall(id, { key: specKey, body });
      expectSpec(id, id === 'getUsageLogs' ? S.UsageResponse : S.UsageSummaryResponse, s);
      if (id === 'getUsageLogs') expect(r.body.count, 'the window written with offsets finds the calls just made').toBeGreaterThan(0);
    }
  });

  const PARSE: [id: string, file: string][] = [
    ['cdslParse', 'depository_a/cdsl-cas.pdf'],
    ['nsdlParse', 'depository_b/nsdl-cas.pdf'],
    ['camsKfintechParse', 'registrar/kfintech-detailed.pdf'],
    ['smartParse', 'registrar/cams-detailed.pdf'],
  ];
  it.each(PARSE)(
    '%s: multipart pdf_file, real names = `cas parse --names real`, SPEC names = `cas parse`',
    async (id, file) => {
      cover(id);
      const password = passwordOf(file);
      const r = await vendorCall(id, { key: realKey, form: formFor(id, file, { password }) });
      expectVendor(id, r);
      const local = await cas(['parse', '--json', '--names', 'real', '--password', password, fixture(file)]);
      expect(local.exitCode, local.stderr).toBe(0);
      expect(r.body).toEqual(JSON.parse(local.stdout));
      const s = await specCall(id, { key: specKey, form: formFor(id, file, { password }) });
      expectSpec(`${id} (${specPath(opById(id).path)})`, S.ParsedStatement, s);
      const neutral = await cas(['parse', '--json', '--password', password, fixture(file)]);
      expect(s.body).toEqual(JSON.parse(neutral.stdout));
    },
    60_000,
  );

  it('cdslParse: the JSON form (base64 pdf_file); the sandbox key answers sample data in real names', async () => {
    const file = 'depository_a/cdsl-cas.pdf';
    const body = { pdf_file: readFileSync(fixture(file)).toString('base64'), password: passwordOf(file) };
    const r = await vendorCall('cdslParse', { key: realKey, body });
    expectVendor('cdslParse', r);
    expect(r.body.meta.cas_type).toBe(VALUES.cas_type.DEPOSITORY_A);
    for (const [id] of PARSE) {
      const sb = await vendorCall(id, { key: SANDBOX, form: formFor(id, file, {}) });
      expectVendor(id, sb);
    }
    // The dialect is chosen per request: a real-name path answers in real names on a spec server too,
    // while a neutral answer fails the vendor's schema (its enums are checked).
    expectVendor('cdslParse', await send(spec.url, 'POST', opById('cdslParse').path, { key: specKey, body }));
    const neutral = await specCall('cdslParse', { key: specKey, body });
    expectSpec('depository_a parse', S.ParsedStatement, neutral);
    expect(vendorValidator('cdslParse', 200)(neutral.body), 'a neutral answer must not pass as a real-name one').toBe(false);
    // Errors on real-name paths: the documented error body, and messages that name CDSL / NSDL.
    const wrongKind = await vendorCall('cdslParse', {
      key: realKey,
      form: formFor('cdslParse', 'depository_b/nsdl-cas.pdf', { password: passwordOf('depository_b/nsdl-cas.pdf') }),
    });
    expectVendor('cdslParse', wrongKind, 400);
    expect(wrongKind.body.msg).toMatch(/NSDL/);
    expectVendor('cdslParse', await vendorCall('cdslParse', { key: realKey, body: { ...body, password: 'WRONG1234X' } }), 400);
    expectVendor(
      'parseContractNote',
      await vendorCall('parseContractNote', {
        key: realKey,
        form: formFor('parseContractNote', 'contract_note/broker_a.pdf', {
          password: passwordOf('contract_note/broker_a.pdf'),
          broker_type: 'broker_z',
        }),
      }),
      400,
    );
    if (repaired.length)
      process.stdout.write(
        `vendor document: enums of nullable members read as allowing null at ${repaired.length} places (its examples show null there)\n`,
      );
  }, 60_000);

  it.each(['broker_a', 'broker_b', 'broker_c', 'broker_d', 'unknown'])(
    'parseContractNote (%s): envelope {status, msg, data}, broker_type in real names both ways',
    async (name) => {
      cover('parseContractNote');
      const file = `contract_note/${name}.pdf`;
      const password = passwordOf(file);
      const fields: Record<string, string> = { password };
      // The documented enum value for a known broker, sent the way an SDK sends it; none (auto-detect) otherwise.
      if (name !== 'unknown') fields.broker_type = VALUES.broker[name as keyof typeof VALUES.broker];
      const r = await vendorCall('parseContractNote', { key: realKey, form: formFor('parseContractNote', file, fields) });
      expectVendor('parseContractNote', r);
      expect(r.body.data.broker_info.broker_type).toBe(VALUES.broker[name as keyof typeof VALUES.broker]);
      const local = await cas(['parse', '--json', '--names', 'real', '--password', password, fixture(file)]);
      expect(r.body).toEqual(JSON.parse(local.stdout));
      const s = await specCall('parseContractNote', { key: specKey, form: formFor('parseContractNote', file, fields) });
      expectSpec('contract note', S.ContractNote, s);
      expect(s.body.broker_info.broker_type).toBe(name);
    },
    60_000,
  );

  it('CDSL OTP fetch (two steps) and the mailback generator, with the sandbox key', async () => {
    for (const [id, srv] of [
      ['cdslFetchRequestOTP', 'real'],
      ['cdslFetchRequestOTP', 'spec'],
    ] as const) {
      cover(id);
      const start =
        srv === 'real'
          ? await vendorCall(id, { key: SANDBOX, body: bodyFor(id) })
          : await specCall(id, { key: SANDBOX, body: bodyFor(id) });
      if (srv === 'real') expectVendor(id, start);
      else expectSpec('fetch', S.FetchResponse, start);
      cover('cdslFetchVerifyOTP');
      const call = srv === 'real' ? vendorCall : specCall;
      const done = await call('cdslFetchVerifyOTP', {
        key: SANDBOX,
        params: { session_id: start.body.session_id },
        body: bodyFor('cdslFetchVerifyOTP'),
      });
      if (srv === 'real') expectVendor('cdslFetchVerifyOTP', done);
      else expectSpec('fetch verify', S.FetchVerifyResponse, done);
      expect(done.body.files.length).toBe(bodyFor('cdslFetchVerifyOTP').num_periods);
    }
    cover('generateCas');
    expectVendor('generateCas', await vendorCall('generateCas', { key: SANDBOX, body: bodyFor('generateCas') }));
    expectVendor('generateCas', await send(real.url, 'POST', '/v4/kfintech/generate', { key: SANDBOX, body: bodyFor('generateCas') }));
    expectSpec('generate', S.MailbackResponse, await specCall('generateCas', { key: SANDBOX, body: bodyFor('generateCas') }));
  });

  it('email import: connect, status, list (cas_types in real names), disconnect', async () => {
    for (const side of ['real', 'spec'] as const) {
      const call = side === 'real' ? vendorCall : specCall;
      cover('inboxConnect');
      // `outlook` (the documented example) needs the hosted service's own OAuth app: gmail here.
      const c = await call('inboxConnect', { key: SANDBOX, body: bodyFor('inboxConnect', { provider: 'gmail' }) });
      if (side === 'real') expectVendor('inboxConnect', c);
      else expectSpec('inbox connect', S.InboxConnectResponse, c);
      const back = await fetch(c.body.oauth_url, { redirect: 'manual' });
      const token = new URL(back.headers.get('location')!).searchParams.get('inbox_token')!;
      expect(token).toBeTruthy();
      const headers = { 'x-inbox-token': token };
      cover('inboxStatus');
      const st = await call('inboxStatus', { key: SANDBOX, headers });
      if (side === 'real') expectVendor('inboxStatus', st);
      else expectSpec('inbox status', S.InboxStatusResponse, st);
      cover('inboxCasList');
      const list = await call('inboxCasList', {
        key: SANDBOX,
        headers,
        body: bodyFor('inboxCasList', { cas_types: [VALUES.source.registrar_a, VALUES.source.registrar_b] }),
      });
      if (side === 'real') {
        expectVendor('inboxCasList', list);
        expect(list.body.files.map((f: { cas_type: string }) => f.cas_type)).toEqual([VALUES.source.registrar_a]);
      } else {
        expectSpec('inbox cas', S.InboxSearchResponse, list);
        expect(list.body.files.map((f: { cas_type: string }) => f.cas_type)).toEqual(['registrar_a']);
      }
      cover('inboxDisconnect');
      const d = await call('inboxDisconnect', { key: SANDBOX, headers });
      if (side === 'real') expectVendor('inboxDisconnect', d);
      else expectSpec('inbox disconnect', S.MailbackResponse, d);
    }
  });

  it('inbound email: create (allowed_sources), list, get, files since +05:30, delete (bodiless)', async () => {
    const spec = {
      create: S.InboundEmail,
      list: S.InboundEmailList,
      files: S.InboxSearchResponse.extend({ cursor: z.string().nullable() }),
      del: S.MailbackResponse,
    };
    for (const side of ['real', 'spec'] as const) {
      const call = side === 'real' ? vendorCall : specCall;
      const key = side === 'real' ? realKey : specKey;
      cover('createInboundEmail');
      const body = bodyFor('createInboundEmail', {
        alias: `sdk-${side}-${Date.now().toString(36)}`,
        callback_url: 'http://127.0.0.1:9/cas-webhook',
      });
      expect(body.allowed_sources).toEqual([VALUES.source.depository_a, VALUES.source.depository_b]);
      const c = await call('createInboundEmail', { key, body });
      if (side === 'real') {
        expectVendor('createInboundEmail', c, 201);
        expect(c.body.allowed_sources).toEqual(body.allowed_sources);
      } else {
        expectSpec('inbound create', spec.create, c, 201);
        expect(c.body.allowed_sources).toEqual(['depository_a', 'depository_b']);
      }
      const params = { inbound_email_id: c.body.inbound_email_id as string };
      cover('listInboundEmails');
      const l = await call('listInboundEmails', { key, query: { status: 'all', limit: '50', offset: '0' } });
      if (side === 'real') expectVendor('listInboundEmails', l);
      else expectSpec('inbound list', spec.list, l);
      cover('getInboundEmail');
      const g = await call('getInboundEmail', { key, params });
      if (side === 'real') expectVendor('getInboundEmail', g);
      else expectSpec('inbound get', spec.create, g);
      cover('listInboundEmailFiles');
      const f = await call('listInboundEmailFiles', { key, params, query: { since: iso(Date.now() - 86_400_000, 330), limit: '20' } });
      if (side === 'real') expectVendor('listInboundEmailFiles', f);
      else expectSpec('inbound files', spec.files, f);
      cover('deleteInboundEmail');
      const d = await call('deleteInboundEmail', { key, params });
      if (side === 'real') expectVendor('deleteInboundEmail', d);
      else expectSpec('inbound delete', spec.del, d);
      expect((await call('getInboundEmail', { key, params })).status).toBe(404);
    }
  });

  it('a forwarded CDSL statement: webhook body, files and cursor polling in real names', async () => {
    const hooks: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hooks.push(body);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const created = await vendorCall('createInboundEmail', {
        key: realKey,
        body: bodyFor('createInboundEmail', {
          alias: `fwd-${Date.now().toString(36)}`,
          callback_url: hookUrl,
          allowed_sources: [VALUES.source.depository_a],
        }),
      });
      expectVendor('createInboundEmail', created, 201);
      const smtpPort = Number(/SMTP on 127\.0\.0\.1:(\d+)/.exec(real.log())![1]);
      const sender = /`(\S+@cdslstatement\.com)`/.exec(doc.tags.find((t: { name: string }) => t.name === 'Inbound Email').description)![1];
      const t = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
      await t.sendMail({
        from: 'Investor <investor@mail.example>',
        to: created.body.email,
        subject: 'Fwd: CAS',
        text: `---------- Forwarded message ---------\nFrom: CDSL <${sender}>\nDate: Tue, 7 Apr 2026 at 10:15\nSubject: CAS\nTo: <investor@mail.example>\n\nYour statement is attached.\n`,
        attachments: ['MAR2026_AA07602549_TXN.pdf', 'FEB2026_AA07602549_TXN.pdf'].map((filename) => ({
          filename,
          content: readFileSync(fixture('depository_a/cdsl-cas.pdf')),
          contentType: 'application/pdf',
        })),
      });
      t.close();
      for (let i = 0; i < 200 && !hooks.length; i++) await new Promise((r) => setTimeout(r, 50));
      expect(hooks.length, 'the webhook arrived').toBe(1);
      const payload = JSON.parse(hooks[0]);
      expectVendorComponent('InboundEmailWebhookPayload', payload);
      expect(payload.files.map((f: { cas_type: string }) => f.cas_type)).toEqual([VALUES.source.depository_a, VALUES.source.depository_a]);
      const params = { inbound_email_id: created.body.inbound_email_id as string };
      const all = await vendorCall('listInboundEmailFiles', { key: realKey, params, query: { since: iso(Date.now() - 86_400_000, 330) } });
      expectVendor('listInboundEmailFiles', all);
      expect(all.body.count).toBe(2);
      expect(all.body.files[0].filename.startsWith(`${VALUES.source.depository_a}_`)).toBe(true);
      const pdf = await fetch(all.body.files[0].url);
      expect(pdf.status).toBe(200);
      expect(Buffer.from(await pdf.arrayBuffer()).equals(readFileSync(fixture('depository_a/cdsl-cas.pdf')))).toBe(true);
      // The hosted API's polling, one file at a time: the cursor, passed back as `since`, returns
      // only newer files, and no file is lost or repeated (even two received in the same instant).
      const seen: string[] = [];
      let since = iso(Date.now() - 86_400_000, 0);
      for (let i = 0; i < 5; i++) {
        const page = await vendorCall('listInboundEmailFiles', { key: realKey, params, query: { since, limit: '1' } });
        expectVendor('listInboundEmailFiles', page);
        seen.push(...page.body.files.map((f: { original_filename: string }) => f.original_filename));
        if (!page.body.count) {
          expect(page.body.cursor).toBe(since);
          break;
        }
        since = page.body.cursor;
      }
      expect(seen.sort()).toEqual(all.body.files.map((f: { original_filename: string }) => f.original_filename).sort());
    } finally {
      receiver.close();
    }
  }, 60_000);

  it('KYC status of a PAN: agencies and modes in real names', async () => {
    cover('checkKycPanStatus');
    const r = await vendorCall('checkKycPanStatus', { key: SANDBOX, body: bodyFor('checkKycPanStatus') });
    expectVendor('checkKycPanStatus', r);
    expect(Object.keys(r.body.kras).sort()).toEqual(Object.values(VALUES.kra).sort());
    expectSpec('kyc', S.KycStatusResponse, await specCall('checkKycPanStatus', { key: SANDBOX, body: bodyFor('checkKycPanStatus') }));
  });

  it('DigiLocker: session (consent_purpose, documents aadhaar), consent redirect, result (fetched)', async () => {
    const LockerStart = z.object({
      status: z.literal('success'),
      session_id: z.string(),
      authorization_url: z.url(),
      expires_in: z.number().int(),
    });
    const LockerResult = z.object({
      status: z.literal('success'),
      identity: S.VerifiedIdentity.nullable(),
      consent: S.ConsentReceipt,
      documents: z.array(S.LockerDocument),
      records: z.object({
        pan: S.PanCertificate.nullable(),
        national_id: S.NationalIdRecord.nullable(),
        driving_licence: S.DrivingLicence.nullable(),
      }),
    });
    for (const side of ['real', 'spec'] as const) {
      const call = side === 'real' ? vendorCall : specCall;
      cover('startDigilockerSession');
      const body = bodyFor('startDigilockerSession');
      const s = await call('startDigilockerSession', {
        key: SANDBOX,
        body:
          side === 'real'
            ? body
            : { consent: true, purpose: body.consent_purpose, redirect_url: body.redirect_url, documents: ['national_id', 'pan'] },
      });
      if (side === 'real') expectVendor('startDigilockerSession', s);
      else expectSpec('locker session', LockerStart, s);
      const back = await fetch(s.body.authorization_url, { redirect: 'manual' });
      const to = new URL(back.headers.get('location')!);
      expect(to.searchParams.get('success')).toBe('true');
      expect(to.searchParams.get('id')).toBe(s.body.session_id);
      cover('digilockerResult');
      const r = await call('digilockerResult', {
        key: SANDBOX,
        params: { session_id: s.body.session_id },
        body: bodyFor('digilockerResult'),
      });
      if (side === 'real') {
        expectVendor('digilockerResult', r);
        expect(r.body.identity.digilocker_id).toBeTruthy();
      } else expectSpec('locker result', LockerResult, r);
    }
  });

  it('regulator verification (/v1/verify/sebi): authority and fields in real names', async () => {
    cover('verifySebiIntermediary');
    const r = await vendorCall('verifySebiIntermediary', { key: realKey, body: bodyFor('verifySebiIntermediary') });
    expectVendor('verifySebiIntermediary', r);
    expectSpec(
      'regulator',
      S.RegulatorResponse,
      await specCall('verifySebiIntermediary', { key: specKey, body: bodyFor('verifySebiIntermediary') }),
    );
  });

  it('x-cas-names chooses the dialect of a shared path per request; the cas CLI asks for spec and works against a real-names server', async () => {
    const file = 'contract_note/broker_d.pdf';
    const form = () => formFor('parseContractNote', file, { password: passwordOf(file) });
    const asSpec = await send(real.url, 'POST', '/v4/contract_note/parse', {
      key: realKey,
      form: form(),
      headers: { 'x-cas-names': 'spec' },
    });
    expectSpec('contract note (x-cas-names: spec)', S.ContractNote, asSpec);
    expectVendor(
      'parseContractNote',
      await send(spec.url, 'POST', '/v4/contract_note/parse', { key: specKey, form: form(), headers: { 'x-cas-names': 'real' } }),
    );
    // A real-name path stays real whatever the header says.
    expectVendor(
      'cdslParse',
      await send(spec.url, 'POST', '/v4/cdsl/parse', {
        key: SANDBOX,
        form: formFor('cdslParse', 'depository_a/cdsl-cas.pdf', {}),
        headers: { 'x-cas-names': 'spec' },
      }),
    );
    for (const args of [['credits'], ['inbound', 'list']]) {
      const r = await cas(['--json', ...args], { env: { CAS_API_KEY: realKey, CAS_BASE_URL: real.url } });
      expect(r.exitCode, `cas ${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
  }, 60_000);

  it('/openapi.json lists the real-name operations with the vendor operationIds', async () => {
    const d = (await (await fetch(`${real.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    for (const id of covered) {
      const o = opById(id);
      expect(d.paths[o.path]?.[o.method.toLowerCase()], `${o.method} ${o.path} in /openapi.json`).toBeTruthy();
    }
    expect(d.paths['/v4/cdsl/parse'].post.operationId).toBe('cdslParse');
    // Every answer seen above fits the schema the server's own document gives for it (real names on
    // the real-name server, SPEC.md's on the other), so an SDK generated from /openapi.json reads what
    // the server sends.
    const sd = (await (await fetch(`${spec.url}/openapi.json`)).json()) as typeof d;
    for (const [served, ownDoc, answers, pathOf] of [
      ['real', d, realAnswers, (p: string) => p],
      ['spec', sd, specAnswers, specPath],
    ] as const) {
      const own = new Ajv2020.default({ strict: false, allErrors: true });
      for (const f of ['date', 'date-time', 'email', 'uri']) own.addFormat(f, ajv.formats[f] as never);
      const base = `https://cas.invalid/${served}/openapi.json`;
      own.addSchema({ $id: base, components: (ownDoc as any).components });
      expect(answers.size).toBeGreaterThan(15);
      for (const [id, list] of answers) {
        const o = opById(id);
        const op = ownDoc.paths[pathOf(o.path)]?.[o.method.toLowerCase()] as any;
        expect(op, `${served}: ${o.method} ${pathOf(o.path)} in /openapi.json`).toBeTruthy();
        const schema = op.responses[String(list[0].status)].content['application/json'].schema;
        const validate = own.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`)));
        for (const a of list) {
          const ok = validate(a.body);
          expect(
            ok ? [] : validate.errors!.slice(0, 5).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`),
            `${served} ${id}: the answer fits /openapi.json`,
          ).toEqual([]);
        }
      }
    }
  });

  it('covers every vendor operation cas serve implements; the others answer 404 and are listed with the reason', async () => {
    const missing: string[] = [];
    for (const o of vendorOps) {
      if (covered.has(o.id)) continue;
      expect(NOT_OFFERED[o.id], `${o.id} is neither covered nor listed as not offered`).toBeTruthy();
      const r = await send(real.url, o.method, o.path, {
        key: SANDBOX,
        params: { token: 'a'.repeat(32), session_id: 'x' },
        body: o.method === 'GET' ? undefined : {},
      });
      expect(r.status, `${o.id} is not offered`).toBe(404);
      missing.push(`  ${o.id} (${o.method} ${o.path}): ${NOT_OFFERED[o.id]}`);
    }
    for (const id of Object.keys(NOT_OFFERED)) expect(covered.has(id), `${id} is listed as not offered but is covered`).toBe(false);
    process.stdout.write(
      `generated-SDK conformance: ${covered.size} of ${vendorOps.length} operations of the vendor document covered; not offered by cas serve:\n${missing.join('\n')}\n`,
    );
    expect(covered.size + missing.length).toBe(vendorOps.length);
  });
});

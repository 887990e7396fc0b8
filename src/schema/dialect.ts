/**
 * The real-name dialect of every response and request that differs between SPEC.md and the
 * hosted service it resembles, built on the one table in `names.ts`.
 *
 * `toReal(shape, value)` turns a neutral response into what the hosted service's clients expect:
 * real enum values and keys, the contract-note envelope `{status, msg, data}`, and no `null` where
 * the hosted document declares a plain (non-nullable) type: such a field is left out instead,
 * which every generated client reads as "not given". `requestFromReal(kind, body)` accepts real
 * values in requests (neutral ones pass unchanged). `realJsonSchema` does the same to a JSON
 * Schema, for `/openapi.json`. No zod, no server code: `cas parse --names real` loads this file.
 */
import { FIELDS, neutralValue, realValue, VALUES, type ValueDomain } from './names.js';

/** The response shapes that have a real-name form. */
export type Shape =
  | 'parse'
  | 'statement'
  | 'contract_note'
  | 'email_files'
  | 'inbound_email'
  | 'inbound_list'
  | 'webhook'
  | 'kyc'
  | 'locker_result'
  | 'regulator'
  | 'credits'
  | 'token_verify'
  | 'inbox_status'
  | 'usage'
  | 'usage_summary';

/** The request bodies that may carry real values. */
export type RequestKind = 'contract_note' | 'inbox_search' | 'inbound_create' | 'locker_session' | 'locker_result';

type Json = unknown;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Copy of `value` without the `null` members whose path matches `drop` (paths are keys joined by
 * `.`, array items as `[]`, e.g. `demat_accounts.[].bo_id`).
 */
function prune(value: Json, drop: (path: string, key: string) => boolean, path = ''): Json {
  if (Array.isArray(value)) return value.map((v) => prune(v, drop, path ? `${path}.[]` : '[]'));
  if (!isObj(value)) return value;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    const p = path ? `${path}.${k}` : k;
    if (v === null && drop(p, k)) continue;
    out[k] = prune(v, drop, p);
  }
  return out;
}

const endsWithAny = (path: string, suffixes: string[]): boolean => suffixes.some((s) => path === s || path.endsWith(`.${s}`));

/** Statement members the hosted document declares nullable; every other `null` is left out. */
const STATEMENT_NULLABLE = [
  'transactions.[].amount',
  'transactions.[].nav',
  'transactions.[].dividend_rate',
  'additional_info.open_units',
  'additional_info.close_units',
  'additional_info.is_demat',
  'additional_info.tier',
];

const mapValue = (domain: ValueDomain, v: unknown): unknown => (typeof v === 'string' ? realValue(domain, v) : v);
const mapArray = (domain: ValueDomain, v: unknown): unknown => (Array.isArray(v) ? v.map((x) => mapValue(domain, x)) : v);
const renameKeys = (o: unknown, map: Record<string, string>): unknown => {
  if (!isObj(o)) return o;
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) out[map[k] ?? k] = v;
  return out;
};

function statement(s: Json): Json {
  const out = prune(s, (p) => !endsWithAny(p, STATEMENT_NULLABLE)) as Obj;
  if (isObj(out.meta)) out.meta = { ...out.meta, cas_type: mapValue('cas_type', out.meta.cas_type) };
  if (Array.isArray(out.demat_accounts))
    out.demat_accounts = out.demat_accounts.map((a) => (isObj(a) ? { ...a, demat_type: mapValue('demat_type', a.demat_type) } : a));
  return out;
}

function contractNote(c: Json): Json {
  const data = prune(c, () => true) as Obj;
  if (isObj(data.broker_info))
    data.broker_info = renameKeys({ ...data.broker_info, broker_type: mapValue('broker', data.broker_info.broker_type) }, FIELDS);
  if (isObj(data.charges_summary)) data.charges_summary = renameKeys(data.charges_summary, FIELDS);
  return { status: 'success', msg: 'success', data };
}

const SOURCE_PREFIX = new RegExp(`^(${Object.keys(VALUES.source).join('|')})_`);
/** `depository_a_20260101_x.pdf` -> `cdsl_20260101_x.pdf` (download links must be made with this name). */
export function realFileName(name: string): string {
  return name.replace(SOURCE_PREFIX, (_m, s: string) => `${realValue('source', s)}_`);
}
function emailFile(f: Json): Json {
  if (!isObj(f)) return f;
  const out = prune(f, () => true) as Obj;
  out.cas_type = mapValue('source', out.cas_type);
  if (typeof out.filename === 'string') out.filename = realFileName(out.filename);
  return out;
}

function inboundEmail(e: Json): Json {
  if (!isObj(e)) return e;
  const out = prune(e, (p) => p !== 'reference') as Obj;
  out.allowed_sources = mapArray('source', out.allowed_sources);
  return out;
}

function kyc(k: Json): Json {
  if (!isObj(k)) return k;
  const agency = (a: unknown): unknown => (isObj(a) ? { ...a, kyc_mode: mapValue('kyc_mode', a.kyc_mode) } : a);
  const kras: Obj = {};
  if (isObj(k.kras)) for (const [name, a] of Object.entries(k.kras)) kras[realValue('kra', name)] = agency(a);
  return { ...k, kyc_mode: mapValue('kyc_mode', k.kyc_mode), active_kra: mapValue('kra', k.active_kra), kras };
}

/** Locker members the hosted document declares as plain strings or objects (never null). */
const LOCKER_PLAIN = [
  'signature',
  'documents.[].name',
  'documents.[].type',
  'documents.[].doctype',
  'documents.[].issuer',
  'documents.[].issuerid',
  'documents.[].uri',
  'categories.[].code',
  'categories.[].abbreviation',
  'categories.[].description',
  'categories.[].issue_date',
];
function lockerResult(r: Json, body?: unknown): Json {
  if (!isObj(r)) return r;
  const out = prune(r, (p) => endsWithAny(p, LOCKER_PLAIN)) as Obj;
  if (isObj(out.identity)) {
    const id = renameKeys(out.identity, FIELDS) as Obj;
    if (isObj(id.verified)) id.verified = renameKeys(id.verified, VALUES.locker_document);
    out.identity = id;
  }
  if (isObj(out.records)) {
    const wanted =
      isObj(body) && Array.isArray(body.fetch_documents)
        ? body.fetch_documents.map((d) => neutralValue('locker_document', String(d)))
        : undefined;
    const fetched: Obj = {};
    for (const [doc, rec] of Object.entries(out.records)) {
      if (wanted && !wanted.includes(doc)) continue;
      fetched[realValue('locker_document', doc)] = doc === 'national_id' ? renameKeys(rec, FIELDS) : rec;
    }
    delete out.records;
    out[FIELDS.records] = fetched;
  }
  return out;
}

function regulator(r: Json): Json {
  if (!isObj(r)) return r;
  return { ...r, authority: mapValue('authority', r.authority), is_perpetual: r.is_perpetual ?? false };
}

const dropNullKeys =
  (keys: string[]) =>
  (v: Json): Json =>
    prune(v, (p) => keys.includes(p));

const TO_REAL: Record<Shape, (v: Json, body?: unknown) => Json> = {
  parse: (v) => parseResultToReal(v),
  statement,
  contract_note: contractNote,
  email_files: (v) => (isObj(v) && Array.isArray(v.files) ? { ...v, files: v.files.map(emailFile) } : v),
  webhook: (v) => (isObj(v) && Array.isArray(v.files) ? { ...v, files: v.files.map(emailFile) } : v),
  inbound_email: inboundEmail,
  inbound_list: (v) => (isObj(v) && Array.isArray(v.inbound_emails) ? { ...v, inbound_emails: v.inbound_emails.map(inboundEmail) } : v),
  kyc,
  locker_result: lockerResult,
  regulator,
  credits: (v) => {
    const out = dropNullKeys(['limit'])(v);
    return isObj(out) ? { ...out, enabled_features: mapArray('feature', out.enabled_features) } : out;
  },
  usage: (v) =>
    isObj(v) && Array.isArray(v.logs)
      ? { ...v, logs: v.logs.map((l) => (isObj(l) ? { ...l, feature: mapValue('feature', l.feature) } : l)) }
      : v,
  usage_summary: (v) => {
    if (!isObj(v) || !isObj(v.summary) || !Array.isArray(v.summary.by_feature)) return v;
    return {
      ...v,
      summary: {
        ...v.summary,
        by_feature: v.summary.by_feature.map((f) => (isObj(f) ? { ...f, feature: mapValue('feature', f.feature) } : f)),
      },
    };
  },
  token_verify: dropNullKeys(['masked_api_key', 'error']),
  inbox_status: dropNullKeys(['provider', 'email']),
};

/** The real-name form of a neutral response of the given shape. */
export function toReal(shape: Shape, value: Json, requestBody?: unknown): Json {
  return TO_REAL[shape](value, requestBody);
}

/** A parse result (statement or contract note) in real names, for the CLI. */
export function parseResultToReal(data: Json): Json {
  return isObj(data) && isObj(data.broker_info) ? contractNote(data) : statement(data);
}

const neutralOr = (domain: ValueDomain, v: unknown): unknown => (typeof v === 'string' ? (neutralValue(domain, v) ?? v) : v);
const neutralArray = (domain: ValueDomain, v: unknown): unknown => (Array.isArray(v) ? v.map((x) => neutralOr(domain, x)) : v);

/** A request body with real values turned neutral (neutral values and unknown ones pass unchanged). */
export function requestFromReal(kind: RequestKind, body: unknown): unknown {
  if (!isObj(body)) return body;
  const b: Obj = { ...body };
  switch (kind) {
    case 'contract_note':
      if (b.broker_type !== undefined) b.broker_type = neutralOr('broker', b.broker_type);
      break;
    case 'inbox_search':
      if (b.cas_types !== undefined) b.cas_types = neutralArray('source', b.cas_types);
      break;
    case 'inbound_create':
      if (b.allowed_sources !== undefined) b.allowed_sources = neutralArray('source', b.allowed_sources);
      if (b.callback_url === null) delete b.callback_url;
      break;
    case 'locker_session': {
      if (b[FIELDS.purpose] !== undefined && b.purpose === undefined) b.purpose = b[FIELDS.purpose];
      delete b[FIELDS.purpose];
      if (Array.isArray(b.documents)) {
        // `email` and `mobile` are parts of the verified identity, which is always returned.
        const docs = b.documents.filter((d) => d !== 'email' && d !== 'mobile').map((d) => neutralOr('locker_document', d));
        if (docs.length) b.documents = docs;
        else delete b.documents;
      }
      // The hosted flow's sign-in hints have no meaning for a locker reached directly.
      for (const k of ['user_flow', 'prefill_mobile', 'state']) delete b[k];
      break;
    }
    case 'locker_result':
      if (b.fetch_documents !== undefined) b.fetch_documents = neutralArray('locker_document', b.fetch_documents);
      break;
  }
  return b;
}

/* ---------- JSON Schema (for /openapi.json) ---------- */

const SCHEMA_KEYS: Record<string, string> = {
  ...VALUES.kra,
  national_id: VALUES.locker_document.national_id,
  regulator_registration: FIELDS.regulator_registration,
  regulator_turnover_fees: FIELDS.regulator_turnover_fees,
  locker_id: FIELDS.locker_id,
  masked_national_id: FIELDS.masked_national_id,
  records: FIELDS.records,
};
const DOMAINS = Object.values(VALUES) as Record<string, string>[];
const SOURCE_WORD = new RegExp(Object.keys(VALUES.source).join('|'), 'g');

const allowsNull = (s: unknown): boolean =>
  isObj(s) &&
  (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || (Array.isArray(s.anyOf) && s.anyOf.some(allowsNull)));

function mapEnum(values: unknown[]): unknown[] {
  const strings = values.filter((v): v is string => typeof v === 'string');
  const domain = DOMAINS.find((d) => strings.length > 0 && strings.every((v) => v in d) && strings.some((v) => d[v] !== v));
  return domain ? values.map((v) => (typeof v === 'string' ? domain[v] : v)) : values;
}

/** A neutral JSON Schema renamed to real names; members that may be null may also be left out. */
export function realJsonSchema(shape: Shape | undefined, schema: unknown): unknown {
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (!isObj(s)) return s;
    const out: Obj = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties' && isObj(v)) {
        const props: Obj = {};
        for (const [name, sub] of Object.entries(v)) props[SCHEMA_KEYS[name] ?? name] = walk(sub);
        out.properties = props;
      } else if (k === 'enum' && Array.isArray(v)) out.enum = mapEnum(v);
      else if (k === 'const' && typeof v === 'string') out.const = mapEnum([v])[0];
      // File names start with the source (`cdsl_20260101_....pdf`).
      else if (k === 'pattern' && typeof v === 'string') out.pattern = v.replace(SOURCE_WORD, (m) => realValue('source', m));
      else out[k] = walk(v);
    }
    if (Array.isArray(s.required) && isObj(s.properties)) {
      const props = s.properties;
      out.required = (s.required as string[]).filter((r) => !allowsNull(props[r])).map((r) => SCHEMA_KEYS[r] ?? r);
    }
    return out;
  };
  const real = walk(schema);
  if (shape === 'contract_note')
    return {
      type: 'object',
      required: ['status', 'msg', 'data'],
      properties: { status: { type: 'string', const: 'success' }, msg: { type: 'string' }, data: real },
    };
  return real;
}

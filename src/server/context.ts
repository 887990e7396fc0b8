/** What every route module receives, and the per-request state the hooks keep. */
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Db } from './store/sql.js';
import type { KeyRow } from './store/keys.js';
import type { Feature } from './billing.js';
import type { ParsePool } from '../core/pool.js';
import type { FetchLimits } from './net/check.js';
import type { FileStore } from './store/files.js';
import type { Names } from '../schema/names.js';
import type { RequestKind, Shape } from '../schema/dialect.js';

/** The upstream seams (src/server/providers.ts implements them: sandbox, http, none). */
export interface FetchStart {
  pan: string;
  bo_id: string;
  dob: string;
}
export interface FetchedFile {
  filename: string;
  bytes: Uint8Array;
}

export interface DepositoryFetchProvider {
  readonly name: string;
  start(input: FetchStart): Promise<{ ref: string }>;
  verify(ref: string, otp: string, numPeriods: number): Promise<{ files: FetchedFile[] } | { wrongOtp: true }>;
}

export interface MailbackRequest {
  email: string;
  from_date: string;
  to_date: string;
  password: string;
  pan_no?: string;
}
export interface MailbackProvider {
  readonly name: string;
  request(input: MailbackRequest): Promise<void>;
}

export interface ProviderConfig {
  fetch: 'sandbox' | 'http' | 'none';
  mailback: 'sandbox' | 'http' | 'none';
  upstreamUrl?: string;
  timeoutMs: number;
}

export interface ServerConfig {
  host: string;
  port: number;
  /** The store: a SQLite file (default DATA_DIR/cas.db) or a `postgres://` URL (`CAS_DATABASE_URL` / `--database`). */
  dbPath: string;
  dataDir: string;
  /** Stored statement PDFs (`CAS_FILES_DIR` / `--files-dir`; default DATA_DIR/files): every instance of a database mounts the same one. */
  filesDir?: string;
  /** This instance's name in logs (`CAS_INSTANCE_ID`; default host-pid-random). */
  instanceId?: string;
  /** How often an instance writes its heartbeat (`CAS_HEARTBEAT_MS`); three missed beats and another instance takes back what it held. */
  heartbeatMs: number;
  sandboxKey: string;
  sandboxRate: number;
  /** Dialect of the shared paths (`/v4/smart/parse`, inbox, inbound email, KYC, account): `spec` (SPEC.md's names) or `real`. */
  names: Names;
  maxUploadBytes: number;
  fetch: FetchLimits;
  /** The only base of the links the service hands out (`CAS_PUBLIC_URL`); without it, the listening address. */
  publicUrl?: string;
  /** The key that encrypts stored secrets, 32 bytes as base64 or hex (`CAS_SECRET_KEY`), or a file holding it (`CAS_SECRET_KEY_FILE`). */
  secretKey?: string;
  secretKeyFile?: string;
  /** Usage-log rows older than this many days are deleted (at start-up and hourly); 0 keeps them. */
  usageRetentionDays: number;
  /** Uploads (parse-like requests) in flight at once, per server and per key; more are refused (503 / 429) with Retry-After. */
  maxUploads: number;
  maxUploadsPerKey: number;
  /** Uploads in flight at once on the public sandbox key (`CAS_SANDBOX_MAX_UPLOADS`), so it cannot fill the server's. */
  sandboxMaxUploads: number;
  /** A request body must arrive within this many ms (`CAS_BODY_TIMEOUT_SECONDS`) ... */
  bodyTimeoutMs: number;
  /** ... and, after its first 5 s, at this many bytes per second on average (`CAS_BODY_MIN_RATE`; 0: no minimum): else 408. */
  bodyMinRate: number;
  /** Failed (uncharged) parses a key may have in any minute before its uploads get 429 (`CAS_MAX_FAILED_PARSES`; 0: no limit). */
  maxFailedParses: number;
  providers: ProviderConfig;
  sessionTtlSeconds: number;
  linkTtlSeconds: number;
  maxOtpAttempts: number;
  kyc: { provider: 'sandbox' | 'recorded' | 'none'; dir?: string; timeoutMs: number };
  locker: { url?: string; clientId: string; clientSecret: string };
  gmail: { authUrl: string; tokenUrl: string; apiUrl: string; revokeUrl: string; clientId: string; clientSecret: string };
  mail: {
    smtpPort?: number;
    inboundDomain: string;
    maxMessageBytes: number;
    tlsKeyFile?: string;
    tlsCertFile?: string;
    requireTls: boolean;
    linkTtlSeconds?: number;
    offlineDns: boolean;
    webhookBackoffMs: number;
    webhookRetryForMs: number;
    webhookConcurrency: number;
    /** One webhook POST's time limit (`CAS_WEBHOOK_TIMEOUT_MS`); a claimed delivery's lease is this plus 5 s. */
    webhookTimeoutMs: number;
  };
}

export interface Principal {
  sandbox: boolean;
  viaToken: boolean;
  key: KeyRow | null;
  keyId: number;
}

/** Route options read by the hooks. */
export interface RouteMeta {
  feature: Feature;
  /** `key`: API key only; `v4`: API key or access token; `none`: no authentication. */
  auth: 'key' | 'v4' | 'none';
  /** Answer access tokens with `{detail}` (the usage logs endpoint). */
  tokenDetail?: boolean;
  /** An access token in x-api-key is the token to check (the hosted API's bodiless `/v1/token/verify`). */
  tokenSelfCheck?: boolean;
  /** Shape of the 2xx body, turned into real names when the request is in the real dialect. */
  shape?: Shape;
  /** Request body that may carry real values (accepted in both dialects). */
  request?: RequestKind;
}

export interface RequestState {
  id: string;
  start: bigint;
  principal?: Principal;
  charged: number;
  always: boolean;
  /** The request's dialect: `real` on a real-name path, `spec` on a neutral-only one, the server's on a shared one. */
  names: Names;
  /** Billable outcome, decided by the handler (defaults to any 2xx). */
  success?: boolean;
  /** Id of the credits reservation (store/credits.ts), 0 or absent when nothing is held. */
  reservation?: number;
  /** The reservation was settled (refunded or kept); settled once, whatever ends the request. */
  settled?: boolean;
  /** An answer has begun (its serialization and onSend hooks run); the body deadline must not begin another. */
  answering?: boolean;
  /** Its credit was given back by another instance while it ran, and the key could not pay again: answered 402. */
  unpaid?: boolean;
  /** The PDF was read and failed to parse (counted against CAS_MAX_FAILED_PARSES when refunded). */
  parseFailed?: boolean;
  /** The access token sent in x-api-key to a `tokenSelfCheck` route (no principal is set then). */
  selfToken?: string;
}

export interface App {
  db: Db;
  /** This `cas serve` process among the instances of its database (reservations and webhook leases name it). */
  instanceId: string;
  pool: ParsePool;
  config: ServerConfig;
  files: FileStore;
  providers: { fetch: DepositoryFetchProvider | null; mailback: MailbackProvider | null };
  /** Set when the server is stopping: answers close their connections (a keep-alive client must not hold the exit). */
  closing?: boolean;
  /** The address the server listens on (`http://127.0.0.1:PORT`), set once it listens: the links' base without `publicUrl`. */
  listenUrl?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    cas: RequestState;
  }
  interface FastifyContextConfig {
    meta?: RouteMeta;
    doc?: RouteDocExtra;
  }
  interface FastifySchema {
    /** OpenAPI operationId of the route's SPEC.md path. */
    operationId?: string;
    summary?: string;
  }
}

/** What the OpenAPI document needs beyond the route's schemas. */
export interface RouteDocExtra {
  /** operationIds of the real-name paths, in names.ts order (the hosted document's, where it has one). */
  realIds?: string[];
  /** Multipart field names that may carry the PDF (the route also takes multipart/form-data). */
  fileFields?: readonly string[];
  /** Request body of the real-name paths, when it differs (JSON Schema). */
  realBody?: Record<string, unknown>;
}

/** A route's request and response schemas (zod), and its OpenAPI operationId and summary. */
export interface RouteSchema {
  body?: z.ZodType;
  querystring?: z.ZodType;
  params?: z.ZodType;
  headers?: z.ZodType;
  response?: Record<number, z.ZodType>;
  operationId?: string;
  summary?: string;
}

/**
 * A route's declaration, as data: its section's plugin registers it with its handler
 * (`f.route({ ...decl, handler })`), the OpenAPI writer (http/openapi-doc.ts) reads it, with no app.
 */
export interface RouteDecl {
  method: 'get' | 'post' | 'delete' | 'put' | 'patch';
  /** Fastify's form: `/v4/inbound-email/:id`. */
  url: string;
  schema?: RouteSchema;
  config?: { meta?: RouteMeta; doc?: RouteDocExtra };
}

/** A route declaration, its schemas' types kept (the handler's request and reply are typed from them). */
export const route = <const D extends RouteDecl>(d: D): D => d;

/** A section of SPEC.md as a Fastify plugin: its routes, schemas declared with zod. */
export type Section = FastifyPluginAsyncZod<{ app: App }>;

/** The common error body. */
export function fail(reply: FastifyReply, status: number, msg: string): FastifyReply {
  return reply.code(status).send({ status: 'failed', msg });
}

/**
 * A refusal thrown by a handler; the one error handler answers it with SPEC's error shape
 * `{status: "failed", msg}` (or `body`, for the mailbox's reconnect answer).
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

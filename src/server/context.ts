/** What every route module receives, and the per-request state the hooks keep. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DB } from './db.js';
import type { KeyRow } from './keys.js';
import type { ParsePool } from '../core/pool.js';
import type { FetchLimits } from './fetch-url.js';
import type { FileStore } from './files.js';
import type { DepositoryFetchProvider, MailbackProvider, ProviderConfig } from './providers.js';
import type { Names } from '../schema/names.js';
import type { RequestKind, Shape } from '../schema/dialect.js';

export interface ServerConfig {
  host: string;
  port: number;
  dbPath: string;
  dataDir: string;
  sandboxKey: string;
  sandboxRate: number;
  /** Dialect of the shared paths (`/v4/smart/parse`, inbox, inbound email, KYC, account): `spec` (SPEC.md's names) or `real`. */
  names: Names;
  maxUploadBytes: number;
  fetch: FetchLimits;
  publicUrl?: string;
  providers: ProviderConfig;
  sessionTtlSeconds: number;
  linkTtlSeconds: number;
  maxOtpAttempts: number;
  kyc: { provider: 'sandbox' | 'recorded' | 'none'; dir?: string; timeoutMs: number };
  locker: { url?: string; clientId: string; clientSecret: string };
  gmail: { authUrl: string; tokenUrl: string; apiUrl: string; revokeUrl: string; clientId: string; clientSecret: string };
  mail: { smtpPort?: number; inboundDomain: string; maxMessageBytes: number; tlsKeyFile?: string; tlsCertFile?: string; requireTls: boolean; linkTtlSeconds?: number; offlineDns: boolean; webhookBackoffMs: number; webhookRetryForMs: number };
}

export interface Principal {
  sandbox: boolean;
  viaToken: boolean;
  key: KeyRow | null;
  keyId: number;
}

/** Route options read by the hooks. */
export interface RouteMeta {
  feature: string;
  /** `key`: API key only; `v4`: API key or access token; `none`: no authentication. */
  auth: 'key' | 'v4' | 'none';
  /** Answer access tokens with `{detail}` (the usage logs endpoint). */
  tokenDetail?: boolean;
  /** An access token in x-api-key is the token to check (the hosted API's bodiless `/v1/token/verify`). */
  tokenSelfCheck?: boolean;
  billable?: boolean;
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
  /** The access token sent in x-api-key to a `tokenSelfCheck` route (no principal is set then). */
  selfToken?: string;
}

export interface App {
  db: DB;
  pool: ParsePool;
  config: ServerConfig;
  files: FileStore;
  providers: { fetch: DepositoryFetchProvider | null; mailback: MailbackProvider | null };
}

declare module 'fastify' {
  interface FastifyRequest {
    cas: RequestState;
  }
  interface FastifyContextConfig {
    meta?: RouteMeta;
  }
}

export type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The common error body. */
export function fail(reply: FastifyReply, status: number, msg: string): FastifyReply {
  return reply.code(status).send({ status: 'failed', msg });
}

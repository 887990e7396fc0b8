/**
 * Limits of one parse job, enforced from outside the job by the worker pool (wall clock, memory)
 * and at the door by the PDF reader (bytes, pages). Settings with defaults; the environment
 * (CAS_PARSE_*) overrides them, and callers (CLI flags, server config) override both.
 */
import { UsageError } from '../errors.js';

export interface ParseLimits {
  /** Wall-clock budget of one file, in ms (CAS_PARSE_TIMEOUT, in seconds). */
  timeoutMs: number;
  /** Memory of one worker (its JS heap, and what the pool sees it take), in MB (CAS_PARSE_MAX_MEMORY_MB). */
  memoryMb: number;
  /** Most pages a PDF may have (CAS_PARSE_MAX_PAGES). */
  maxPages: number;
  /** Largest PDF, in bytes (CAS_PARSE_MAX_BYTES). */
  maxBytes: number;
}

export const DEFAULT_PARSE_LIMITS: Readonly<ParseLimits> = {
  timeoutMs: 60_000,
  // 256 MB: a generated 500-page statement parses under 128 MB (JS heap and PDFium's heap each), and
  // every genuine statement tried opens; a FlateDecode bomb stops at about 360 MB of RSS (1,024 MB let it reach 1.15 GB).
  memoryMb: 256,
  maxPages: 1000,
  maxBytes: 50 * 1024 * 1024,
};

const ENV: { key: keyof ParseLimits; name: string; scale: number; min: number }[] = [
  { key: 'timeoutMs', name: 'CAS_PARSE_TIMEOUT', scale: 1000, min: 0.1 },
  { key: 'memoryMb', name: 'CAS_PARSE_MAX_MEMORY_MB', scale: 1, min: 64 },
  { key: 'maxPages', name: 'CAS_PARSE_MAX_PAGES', scale: 1, min: 1 },
  { key: 'maxBytes', name: 'CAS_PARSE_MAX_BYTES', scale: 1, min: 1 },
];

/** A positive number from a setting, or a usage error naming it. */
export function limitValue(name: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!raw.trim() || !Number.isFinite(n) || n < min) throw new UsageError(`${name} must be a number of at least ${min} (got '${raw}')`);
  return n;
}

/** The limits in force: defaults < environment < `over` (entries left undefined are ignored). */
export function parseLimits(over: Partial<ParseLimits> = {}, env: NodeJS.ProcessEnv = process.env): ParseLimits {
  const out: ParseLimits = { ...DEFAULT_PARSE_LIMITS };
  for (const e of ENV) {
    const raw = env[e.name];
    if (raw !== undefined && raw !== '') out[e.key] = Math.round(limitValue(e.name, raw, e.min) * e.scale);
  }
  for (const [k, v] of Object.entries(over)) if (v !== undefined) out[k as keyof ParseLimits] = v;
  return out;
}

/** Workers of a pool: CAS_PARSE_WORKERS, else the number of cores. */
export function defaultWorkers(env: NodeJS.ProcessEnv = process.env, cores = 1): number {
  const raw = env.CAS_PARSE_WORKERS;
  return raw ? Math.floor(limitValue('CAS_PARSE_WORKERS', raw, 1)) : Math.max(1, cores);
}

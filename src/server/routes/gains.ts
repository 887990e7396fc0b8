/**
 * `POST /v4/smart/gains`: the realised capital gains (src/gains) of a statement sent like the parse
 * endpoints (JSON `pdf_file` base64 or `pdf_url`, or multipart `file`/`pdf_file`; `password`), billed
 * like smart parse (feature `parse`, 1 credit on success). Options: `fy` (query string or JSON),
 * and in JSON `scheme_types` (the `--scheme-types` CSV text) and `fmv` (the `--fmv` NAV history text).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { computeGains, normaliseFy, parseFmvFile, parseSchemeTypes, type GainsOptions } from '../../gains/index.js';
import type { ParsedStatement } from '../../schema/index.js';
import { fail, type App } from '../context.js';
import { fetchPdf, FetchError } from '../fetch-url.js';
import { sample } from '../sandbox.js';
import { readInput } from './parse.js';

function options(req: FastifyRequest): GainsOptions | string {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const body = (!req.isMultipart() && req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
  const out: GainsOptions = {};
  const fy = body.fy ?? q.fy;
  if (fy !== undefined) {
    if (typeof fy !== 'string' || !normaliseFy(fy)) return 'fy must be a financial year like 2025-26';
    out.fy = fy;
  }
  try {
    if (body.scheme_types !== undefined) {
      if (typeof body.scheme_types !== 'string') return 'scheme_types must be the CSV text ISIN,equity|debt|other';
      out.schemeTypes = parseSchemeTypes(body.scheme_types);
    }
    if (body.fmv !== undefined) {
      if (typeof body.fmv !== 'string') return 'fmv must be the text of the NAV history download';
      out.fmv = parseFmvFile(body.fmv);
    }
  } catch (err) {
    return (err as Error).message.replace(/^--(scheme-types|fmv)/, (_, n: string) => n.replace('-', '_'));
  }
  return out;
}

export function gainsRoutes(f: FastifyInstance, { pool, config }: App): void {
  f.post('/v4/smart/gains', { config: { meta: { feature: 'parse', auth: 'v4' } } }, async (req: FastifyRequest, reply: FastifyReply) => {
    const opts = options(req);
    if (typeof opts === 'string') return fail(reply, 400, opts);
    const input = await readInput(req, ['file', 'pdf_file'], config.maxUploadBytes);
    if (typeof input === 'string') return fail(reply, 400, input);
    if (req.cas.principal?.sandbox) return computeGains([sample('registrar-detailed') as ParsedStatement], opts);
    let bytes = input.bytes;
    if (!bytes) {
      try {
        bytes = await fetchPdf(input.url!, config.fetch);
      } catch (err) {
        return fail(reply, 400, err instanceof FetchError ? err.message : 'pdf_url could not be fetched');
      }
    }
    const out = await pool.run({ bytes: new Uint8Array(bytes), password: input.password });
    if (!out.ok) {
      const msg = out.code === 'PasswordRequired' ? 'the PDF is password-protected: give its password' : out.code === 'IncorrectPassword' ? 'invalid password for this PDF' : out.message;
      return fail(reply, out.exitCode === 3 ? 400 : 500, msg);
    }
    const data = out.data as ParsedStatement;
    if (!data || !Array.isArray(data.mutual_funds)) return fail(reply, 400, 'gains need a statement with mutual fund transactions, not a contract note');
    return computeGains([data], opts);
  });
}

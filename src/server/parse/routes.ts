/**
 * Parsing: smart parse and one endpoint per statement format (src/formats FORMATS). JSON
 * (`pdf_file` base64 or `pdf_url`) or multipart (`pdf_file`; `file` too on smart parse); exactly
 * one source; `password`; `broker_type` for contract notes. Parsing runs on the worker pool.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as S from '../../schema/index.js';
import { BROKERS, FORMATS, resolveBroker, type BrokerId, type FormatId } from '../../formats/index.js';
import { ApiError, type App, route, type Section } from '../context.js';
import { fetchPdf, FetchError } from '../net/fetch.js';
import { sample } from '../sandbox.js';
import { realPaths } from '../../schema/names.js';

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** The JSON body of every parse-like endpoint (multipart carries the same fields, the PDF as a file). */
export const ParseBody = z.object({
  pdf_file: z.string().regex(BASE64, 'must be the PDF encoded as base64').optional().meta({ contentEncoding: 'base64' }),
  pdf_url: z.string().optional().meta({ format: 'uri' }),
  password: z.string().optional(),
  broker_type: z.string().optional(),
});

interface ParseInput {
  bytes?: Buffer;
  url?: string;
  password?: string;
  broker?: string;
}

/** The PDF and its options from a JSON (validated `ParseBody`) or multipart request; exactly one source. */
export async function readInput(req: FastifyRequest, fileFields: readonly string[], maxBytes: number): Promise<ParseInput> {
  const input: ParseInput = {};
  if (req.isMultipart()) {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (!fileFields.includes(part.fieldname)) {
          part.file.resume();
          throw new ApiError(400, `unexpected file field '${part.fieldname}'; send the PDF as ${fileFields.join(' or ')}`);
        }
        input.bytes = await part.toBuffer();
      } else {
        const v = String(part.value ?? '');
        if (part.fieldname === 'password') input.password = v;
        else if (part.fieldname === 'broker_type') input.broker = v;
        else if (part.fieldname === 'pdf_url') input.url = v;
      }
    }
  } else {
    const body = req.body as z.output<typeof ParseBody>;
    if (body.pdf_file !== undefined) {
      input.bytes = Buffer.from(body.pdf_file, 'base64');
      if (input.bytes.length > maxBytes) throw new ApiError(400, `pdf_file is larger than the limit of ${maxBytes} bytes`);
    }
    input.url = body.pdf_url;
    input.password = body.password;
    input.broker = body.broker_type;
  }
  if (input.bytes && input.url) throw new ApiError(400, 'give exactly one of pdf_file or pdf_url, not both');
  if (!input.bytes && !input.url) throw new ApiError(400, `missing the PDF: give ${fileFields.join(' / ')} or pdf_url`);
  return input;
}

/** Fetch (when given by URL) and parse the PDF on the pool; a failure is the client's 400 or our 500. */
/** What a parse answers: a statement, or a contract note. */
export type Parsed = S.ParsedStatement | S.ContractNote;

export async function parseInput(
  { pool, config }: App,
  input: ParseInput,
  type?: FormatId,
  broker?: BrokerId,
  req?: FastifyRequest,
): Promise<Parsed> {
  let bytes = input.bytes;
  if (!bytes) {
    try {
      bytes = await fetchPdf(input.url!, config.fetch);
    } catch (err) {
      throw new ApiError(400, err instanceof FetchError ? err.message : 'pdf_url could not be fetched');
    }
  }
  const out = await pool.run({ bytes: new Uint8Array(bytes), password: input.password, type, broker });
  // The parse core's one error map names the answer (status and message) of every failure.
  if (!out.ok) {
    // Failed parses are refunded; auth.ts counts them per key (CAS_MAX_FAILED_PARSES).
    if (req) req.cas.parseFailed = true;
    throw new ApiError(out.httpStatus, out.apiMessage);
  }
  // The core hands its document across the worker boundary untyped; it is one of these two.
  return out.data as Parsed;
}

/** The hosted API's operationId of a real-name parse path: `/v4/cams_kfintech/parse` -> `camsKfintechParse`. */
const realId = (p: string): string => p.replace(/^\/v4\//, '').replace(/[/_]+(.)/g, (_, c: string) => c.toUpperCase());

/** Smart parse, then each format's own endpoint. */
const ENDPOINTS = [
  {
    path: '/v4/smart/parse',
    operationId: 'smartParse',
    summary: 'Detect the statement type and parse',
    type: undefined,
    feature: 'parse',
    fileFields: ['file', 'pdf_file'],
    sample: 'depository_a',
    passwordRequired: false,
    contract: false,
  },
  ...FORMATS.map((f) => ({ ...f.endpoint, summary: `Parse a ${f.label}`, type: f.id, contract: f.schema === 'contract-note' })),
] as const;

/** One declaration per parse endpoint, with the endpoint it serves. */
const PARSE = ENDPOINTS.map((e) => ({
  e,
  decl: route({
    method: 'post',
    url: e.path,
    schema: {
      operationId: e.operationId,
      summary: e.summary,
      body: ParseBody,
      response: { 200: e.contract ? S.ContractNote : S.ParsedStatement },
    },
    config: {
      meta: {
        feature: e.feature,
        auth: 'v4',
        shape: e.type === undefined ? 'parse' : e.contract ? 'contract_note' : 'statement',
        request: 'contract_note',
      },
      doc: { fileFields: e.fileFields, realIds: realPaths(e.path).map(realId) },
    },
  }),
}));

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const PARSE_ROUTES = PARSE.map((p) => p.decl);

export const parseRoutes: Section = async (f, { app }) => {
  for (const { e, decl } of PARSE) {
    f.route({
      ...decl,
      handler: async (req) => {
        const input = await readInput(req, e.fileFields, app.config.maxUploadBytes);
        let broker: BrokerId | undefined;
        if (input.broker) {
          broker = resolveBroker(input.broker);
          if (!broker)
            throw new ApiError(
              400,
              `broker_type must be one of ${BROKERS.map((b) => (req.cas.names === 'real' ? b.realValue : b.id)).join(', ')}`,
            );
        }
        if (req.cas.principal?.sandbox) return sample(e.sample) as Parsed;
        if (e.passwordRequired && !input.password)
          throw new ApiError(400, `password is required for ${e.type === 'contract_note' ? 'contract notes' : 'this statement'}`);
        return await parseInput(app, input, e.type, broker, req);
      },
    });
  }
};

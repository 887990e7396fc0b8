/**
 * Parsing: the five parse endpoints. JSON (`pdf_file` base64 or `pdf_url`) or multipart
 * (`pdf_file`; `file` on smart parse); exactly one source; `password`; `broker_type` for
 * contract notes. Parsing runs on the worker pool.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BrokerType } from '../../schema/index.js';
import type { StatementKind } from '../../parsers/index.js';
import { fail, type App } from '../context.js';
import { fetchPdf, FetchError } from '../fetch-url.js';
import { sample } from '../sandbox.js';
import { neutralValue } from '../../schema/names.js';

interface ParseInput { bytes?: Buffer; url?: string; password?: string; broker?: string }

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

export async function readInput(req: FastifyRequest, fileFields: string[], maxBytes: number): Promise<ParseInput | string> {
  const input: ParseInput = {};
  if (req.isMultipart()) {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (!fileFields.includes(part.fieldname)) {
          part.file.resume();
          return `unexpected file field '${part.fieldname}'; send the PDF as ${fileFields.join(' or ')}`;
        }
        input.bytes = await part.toBuffer();
      } else {
        const v = String(part.value ?? '');
        if (part.fieldname === 'password') input.password = v;
        else if (part.fieldname === 'broker_type') input.broker = neutralValue('broker', v) ?? v;
        else if (part.fieldname === 'pdf_url') input.url = v;
      }
    }
  } else {
    const body = req.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return 'send a JSON object with pdf_file (base64) or pdf_url';
    if (body.pdf_file !== undefined) {
      if (typeof body.pdf_file !== 'string' || !BASE64.test(body.pdf_file)) return 'pdf_file must be the PDF encoded as base64';
      input.bytes = Buffer.from(body.pdf_file, 'base64');
      if (input.bytes.length > maxBytes) return `pdf_file is larger than the limit of ${maxBytes} bytes`;
    }
    if (body.pdf_url !== undefined) {
      if (typeof body.pdf_url !== 'string') return 'pdf_url must be a string';
      input.url = body.pdf_url;
    }
    if (body.password !== undefined) {
      if (typeof body.password !== 'string') return 'password must be a string';
      input.password = body.password;
    }
    if (body.broker_type !== undefined) input.broker = String(body.broker_type);
  }
  if (input.bytes && input.url) return 'give exactly one of pdf_file or pdf_url, not both';
  if (!input.bytes && !input.url) return `missing the PDF: give ${fileFields.join(' / ')} or pdf_url`;
  return input;
}

const ENDPOINTS: { url: string; type?: StatementKind; feature: string; fileFields: string[]; sample: Parameters<typeof sample>[0]; shape: 'parse' | 'statement' | 'contract_note' }[] = [
  { url: '/v4/smart/parse', feature: 'parse', fileFields: ['file', 'pdf_file'], sample: 'depository_a', shape: 'parse' },
  { url: '/v4/depository_a/parse', type: 'depository_a', feature: 'parse', fileFields: ['pdf_file'], sample: 'depository_a', shape: 'statement' },
  { url: '/v4/depository_b/parse', type: 'depository_b', feature: 'parse', fileFields: ['pdf_file'], sample: 'depository_b', shape: 'statement' },
  { url: '/v4/registrar_a_registrar_b/parse', type: 'registrar', feature: 'parse', fileFields: ['pdf_file'], sample: 'registrar-detailed', shape: 'statement' },
  { url: '/v4/contract_note/parse', type: 'contract_note', feature: 'contract_note', fileFields: ['pdf_file'], sample: 'contract-note-broker_a', shape: 'contract_note' },
];

export function parseRoutes(f: FastifyInstance, { pool, config }: App): void {
  for (const e of ENDPOINTS) {
    f.post(e.url, { config: { meta: { feature: e.feature, auth: 'v4', shape: e.shape, request: 'contract_note' } } }, async (req: FastifyRequest, reply: FastifyReply) => {
      const input = await readInput(req, e.fileFields, config.maxUploadBytes);
      if (typeof input === 'string') return fail(reply, 400, input);
      let broker: BrokerType | undefined;
      if (input.broker) {
        const b = BrokerType.safeParse(input.broker);
        if (!b.success || b.data === 'unknown') return fail(reply, 400, req.cas.names === 'real' ? 'broker_type must be one of zerodha, groww, upstox, icici' : 'broker_type must be one of broker_a, broker_b, broker_c, broker_d');
        broker = b.data;
      }
      if (req.cas.principal?.sandbox) return sample(e.sample);
      if (e.type === 'contract_note' && !input.password) return fail(reply, 400, 'password is required for contract notes');
      let bytes = input.bytes;
      if (!bytes) {
        try {
          bytes = await fetchPdf(input.url!, config.fetch);
        } catch (err) {
          return fail(reply, 400, err instanceof FetchError ? err.message : 'pdf_url could not be fetched');
        }
      }
      const out = await pool.run({ bytes: new Uint8Array(bytes), password: input.password, type: e.type, broker });
      if (!out.ok) {
        const msg = out.code === 'PasswordRequired' ? 'the PDF is password-protected: give its password' : out.code === 'IncorrectPassword' ? 'invalid password for this PDF' : out.message;
        return fail(reply, out.exitCode === 3 ? 400 : 500, msg);
      }
      return out.data;
    });
  }
}

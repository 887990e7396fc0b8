/**
 * `POST /v4/smart/gains`: the realised capital gains (src/gains) of a statement sent like the parse
 * endpoints (JSON `pdf_file` base64 or `pdf_url`, or multipart `file`/`pdf_file`; `password`), billed
 * like smart parse (feature `parse`, 1 credit on success). Options: `fy` (query string or JSON),
 * and in JSON `scheme_types` (the `--scheme-types` CSV text) and `fmv` (the `--fmv` NAV history text).
 */
import { z } from 'zod';
import { computeGains, normaliseFy, parseFmvFile, parseSchemeTypes, type GainsOptions } from '../../gains/index.js';
import * as S from '../../schema/index.js';
import { ApiError, route, type Section } from '../context.js';
import { sample } from '../sandbox.js';
import { ParseBody, parseInput, readInput } from '../parse/routes.js';

const Fy = z.string().refine((fy) => Boolean(normaliseFy(fy)), 'must be a financial year like 2025-26');
const GainsBody = ParseBody.omit({ broker_type: true }).extend({
  fy: Fy.optional(),
  scheme_types: z
    .string('must be the CSV text ISIN,equity|debt|other')
    .optional()
    .meta({ description: 'CSV lines ISIN,equity|debt|other' }),
  fmv: z
    .string('must be the text of the NAV history download')
    .optional()
    .meta({ description: 'NAV history download text holding the NAVs of 31 Jan 2018' }),
});

function options(body: z.output<typeof GainsBody>, fy: string | undefined): GainsOptions {
  const out: GainsOptions = {};
  if (fy !== undefined) out.fy = fy;
  try {
    if (body.scheme_types !== undefined) out.schemeTypes = parseSchemeTypes(body.scheme_types);
    if (body.fmv !== undefined) out.fmv = parseFmvFile(body.fmv);
  } catch (err) {
    throw new ApiError(
      400,
      (err as Error).message.replace(/^--(scheme-types|fmv)/, (_, n: string) => n.replace('-', '_')),
    );
  }
  return out;
}

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const GAINS_ROUTES = [
  route({
    method: 'post',
    url: '/v4/smart/gains',
    schema: {
      operationId: 'smartGains',
      summary: 'Realised capital gains of a detailed registrar statement (FIFO, Indian tax rules by date); billed like smart parse',
      querystring: z.object({ fy: Fy.optional() }),
      body: GainsBody,
      response: { 200: S.GainsReport },
    },
    config: { meta: { feature: 'parse', auth: 'v4' }, doc: { fileFields: ['file', 'pdf_file'] } },
  }),
] as const;
const [smartGains] = GAINS_ROUTES;

export const gainsRoutes: Section = async (f, { app }) => {
  f.route({
    ...smartGains,
    handler: async (req) => {
      const multipart = req.isMultipart();
      const opts = options(multipart ? {} : req.body, (multipart ? undefined : req.body.fy) ?? req.query.fy);
      const input = await readInput(req, ['file', 'pdf_file'], app.config.maxUploadBytes);
      if (req.cas.principal?.sandbox) return computeGains([sample('registrar-detailed') as S.ParsedStatement], opts);
      const data = (await parseInput(app, input, undefined, undefined, req)) as S.ParsedStatement;
      if (!data || !Array.isArray(data.mutual_funds))
        throw new ApiError(400, 'gains need a statement with mutual fund transactions, not a contract note');
      return computeGains([data], opts);
    },
  });
};

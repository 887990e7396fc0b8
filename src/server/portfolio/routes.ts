/**
 * `POST /v4/smart/portfolio`: one portfolio (src/portfolio) from several statements in one request.
 * JSON: `files`, each `{pdf_file (base64) | pdf_url, password?, name?}`, a `password` for the files
 * without their own, `allow_mixed_investors`; or multipart: one `file` / `pdf_file` part per PDF,
 * `password` and `allow_mixed_investors` fields. Billed per file like smart parse (feature `parse`,
 * 1 credit for each file that parses): the request holds one credit per file while it runs, and
 * what is kept is one per parsed file. A file that does not parse is named in `left_out`, free,
 * and the rest still merges; when none parses the answer is that file's 400, and nothing is charged.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { computePortfolio, MixedInvestorsError, type StatementInput } from '../../portfolio/index.js';
import * as S from '../../schema/index.js';
import { ApiError, type App, route, type Section } from '../context.js';
import { sample } from '../sandbox.js';
import { release, remaining, reserve } from '../store/credits.js';
import { parseInput, ParseBody } from '../parse/routes.js';

/** Files in one request at most. */
export const MAX_PORTFOLIO_FILES = 16;
const FILE_FIELDS = ['file', 'pdf_file'] as const;

const PortfolioFile = ParseBody.omit({ broker_type: true }).extend({
  name: z.string().max(300).optional().meta({ description: 'a name for the file in the answer (sources, left_out)' }),
});
const PortfolioBody = z.object({
  files: z
    .array(PortfolioFile)
    .min(1, 'give at least one file')
    .max(MAX_PORTFOLIO_FILES, `at most ${MAX_PORTFOLIO_FILES} files in one request`)
    // Optional to the validator only: a multipart request carries its PDFs as parts (checked in the handler).
    .optional(),
  password: z.string().optional().meta({ description: 'the password of every file that gives none' }),
  allow_mixed_investors: z.boolean().optional().meta({ description: 'merge statements of different PANs instead of refusing' }),
});

interface FileInput {
  name: string | null;
  bytes?: Buffer;
  url?: string;
  password?: string;
}

async function readFiles(req: FastifyRequest, maxBytes: number): Promise<{ files: FileInput[]; allowMixed: boolean }> {
  const files: FileInput[] = [];
  let password: string | undefined;
  let allowMixed = false;
  if (req.isMultipart()) {
    try {
      for await (const part of req.parts({ limits: { files: MAX_PORTFOLIO_FILES, fileSize: maxBytes, fields: 10 } })) {
        if (part.type === 'file') {
          if (!(FILE_FIELDS as readonly string[]).includes(part.fieldname)) {
            part.file.resume();
            throw new ApiError(400, `unexpected file field '${part.fieldname}'; send each PDF as ${FILE_FIELDS.join(' or ')}`);
          }
          files.push({ name: part.filename || null, bytes: await part.toBuffer() });
        } else {
          const v = String(part.value ?? '');
          if (part.fieldname === 'password') password = v;
          else if (part.fieldname === 'allow_mixed_investors') allowMixed = /^(true|1|yes)$/i.test(v);
          else if (part.fieldname === 'pdf_url') files.push({ name: null, url: v });
        }
      }
    } catch (err) {
      if ((err as { code?: string }).code === 'FST_FILES_LIMIT')
        throw new ApiError(413, `at most ${MAX_PORTFOLIO_FILES} files in one request`);
      throw err;
    }
    for (const f of files) f.password = password;
  } else {
    const body = req.body as z.output<typeof PortfolioBody>;
    allowMixed = Boolean(body.allow_mixed_investors);
    (body.files ?? []).forEach((f, i) => {
      const where = `files[${i}]`;
      if (f.pdf_file !== undefined && f.pdf_url !== undefined)
        throw new ApiError(400, `${where}: give exactly one of pdf_file or pdf_url, not both`);
      if (f.pdf_file === undefined && f.pdf_url === undefined)
        throw new ApiError(400, `${where}: missing the PDF: give pdf_file or pdf_url`);
      const bytes = f.pdf_file === undefined ? undefined : Buffer.from(f.pdf_file, 'base64');
      if (bytes && bytes.length > maxBytes) throw new ApiError(400, `${where}: pdf_file is larger than the limit of ${maxBytes} bytes`);
      files.push({ name: f.name ?? null, bytes, url: f.pdf_url, password: f.password ?? body.password });
    });
  }
  if (!files.length) throw new ApiError(400, `missing the PDFs: send each as ${FILE_FIELDS.join(' / ')} (multipart) or in files (JSON)`);
  return { files, allowMixed };
}

/** Hold `credits` for this request instead of the one credit the billing hook reserved; false when the key has too few. */
async function hold(app: App, req: FastifyRequest, credits: number): Promise<boolean> {
  const s = req.cas;
  const key = s.principal?.key;
  if (!key || s.principal?.sandbox || !s.reservation || s.charged === credits) return true;
  const old = s.reservation;
  s.reservation = 0;
  s.charged = 0;
  await release(app.db, old, true);
  const id = credits > 0 ? await reserve(app.db, key, credits, app.instanceId) : 0;
  if (id === null) return false;
  s.reservation = id;
  s.charged = credits;
  return true;
}

const smartPortfolio = route({
  method: 'post',
  url: '/v4/smart/portfolio',
  schema: {
    operationId: 'smartPortfolio',
    summary: `One portfolio from several statements (at most ${MAX_PORTFOLIO_FILES}): holdings merged and de-duplicated, gaps, XIRR; billed per parsed file like smart parse`,
    body: PortfolioBody,
    response: { 200: S.Portfolio },
  },
  config: { meta: { feature: 'parse', auth: 'v4' }, doc: { fileFields: FILE_FIELDS } },
});

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const PORTFOLIO_ROUTES = [smartPortfolio] as const;

export const portfolioRoutes: Section = async (f, { app }) => {
  f.route({
    ...smartPortfolio,
    bodyLimit: Math.ceil(app.config.maxUploadBytes * 1.4) * MAX_PORTFOLIO_FILES + 65_536,
    handler: async (req) => {
      const { files, allowMixed } = await readFiles(req, app.config.maxUploadBytes);
      const named = (f: FileInput, i: number): string => f.name ?? `files[${i}]`;
      if (req.cas.principal?.sandbox)
        return computePortfolio(
          [
            { file: 'registrar-detailed', data: sample('registrar-detailed') as S.ParsedStatement },
            { file: 'depository_a', data: sample('depository_a') as S.ParsedStatement },
          ],
          { allowMixedInvestors: allowMixed },
        );
      if (!(await hold(app, req, files.length)))
        throw new ApiError(
          402,
          `insufficient credits: ${files.length} files cost up to ${files.length} (1 per parsed file), ${(await remaining(app.db, req.cas.principal!.keyId)) ?? 0} remain`,
        );
      const outcomes = await Promise.allSettled(
        files.map((f) => parseInput(app, { bytes: f.bytes, url: f.url, password: f.password }, undefined, undefined)),
      );
      const statements: StatementInput[] = [];
      const leftOut: { file: string | null; message: string; status: number }[] = [];
      outcomes.forEach((o, i) => {
        const file = named(files[i], i);
        if (o.status === 'rejected') {
          const e = o.reason as { statusCode?: number; message?: string };
          if (!(o.reason instanceof ApiError) || (e.statusCode ?? 500) >= 500) throw o.reason;
          leftOut.push({ file, message: e.message ?? 'failed', status: e.statusCode ?? 400 });
        } else if (!o.value || !Array.isArray((o.value as S.ParsedStatement).mutual_funds))
          leftOut.push({ file, message: 'a contract note, not a statement', status: 400 });
        else statements.push({ file, data: o.value as S.ParsedStatement });
      });
      if (!statements.length)
        throw new ApiError(leftOut[0].status, `no file parsed: ${leftOut.map((l) => `${l.file}: ${l.message}`).join('; ')}`);
      let portfolio: S.Portfolio;
      try {
        portfolio = computePortfolio(statements, {
          allowMixedInvestors: allowMixed,
          leftOut: leftOut.map(({ file, message }) => ({ file, message })),
        });
      } catch (err) {
        if (err instanceof MixedInvestorsError)
          throw new ApiError(400, err.message.replace('--allow-mixed-investors', 'allow_mixed_investors: true'));
        throw err;
      }
      // Keep one credit per parsed file: the others are given back before the answer.
      if (!(await hold(app, req, statements.length)))
        throw new ApiError(
          402,
          `insufficient credits for ${statements.length} parsed files (credits were spent by another request meanwhile)`,
        );
      return portfolio;
    },
  });
};

/** Files: stored statements behind signed, expiring download links (src/server/files.ts). */
import { z } from 'zod';
import { ApiError, route, type Section } from '../context.js';

const downloadFile = route({
  method: 'get',
  url: '/files/:sha/:name',
  schema: {
    operationId: 'downloadFile',
    summary: 'A stored statement PDF, through a signed link the API handed out',
    params: z.object({ sha: z.string(), name: z.string() }),
    querystring: z.object({ exp: z.string().optional(), sig: z.string().optional() }),
    response: { 200: z.unknown().describe('the PDF (application/pdf)') },
  },
});

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const FILE_ROUTES = [downloadFile] as const;

export const fileRoutes: Section = async (f, { app }) => {
  f.route({
    ...downloadFile,
    handler: async (req, reply) => {
      const { sha, name } = req.params;
      const p = `/files/${sha}/${encodeURIComponent(name)}`;
      const verdict = /^[0-9a-f]{64}$/.test(sha) ? app.files.check(p, req.query.exp, req.query.sig) : 'invalid';
      if (verdict === 'invalid') throw new ApiError(403, 'invalid or tampered download link');
      if (verdict === 'expired') throw new ApiError(403, 'this download link has expired; request the files again');
      const data = await app.files.read(sha);
      if (!data) throw new ApiError(404, 'the file is no longer stored');
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`)
        .send(data);
    },
  });
};

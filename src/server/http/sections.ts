/**
 * The sections of SPEC.md, in registration order: each one's Fastify plugin (its handlers) and its
 * route declarations (data: method, url, schemas, meta). The app registers the plugins; the OpenAPI
 * document is written from the declarations alone, with no app built (src/server/openapi.ts).
 */
import type { RouteDecl, Section } from '../context.js';
import { ACCOUNT_ROUTES, accountRoutes } from '../account/routes.js';
import { PARSE_ROUTES, parseRoutes } from '../parse/routes.js';
import { GAINS_ROUTES, gainsRoutes } from '../gains/routes.js';
import { PORTFOLIO_ROUTES, portfolioRoutes } from '../portfolio/routes.js';
import { RETRIEVAL_ROUTES, retrievalRoutes } from '../retrieval/routes.js';
import { VERIFICATION_ROUTES, verificationRoutes } from '../verification/routes.js';
import { LOCKER_ROUTES, lockerRoutes } from '../locker/routes.js';
import { INBOUND_ROUTES, inboundRoutes } from '../inbound/routes.js';
import { INBOX_ROUTES, inboxRoutes } from '../inbox/routes.js';
import { FILE_ROUTES, fileRoutes } from '../files/routes.js';
import { META_ROUTES, metaRoutes } from './meta.js';

/** The route plugins, one per SPEC.md section, in registration order, each with its declarations. */
export const SECTIONS: readonly { plugin: Section; routes: readonly RouteDecl[] }[] = [
  { plugin: accountRoutes, routes: ACCOUNT_ROUTES },
  { plugin: parseRoutes, routes: PARSE_ROUTES },
  { plugin: gainsRoutes, routes: GAINS_ROUTES },
  { plugin: portfolioRoutes, routes: PORTFOLIO_ROUTES },
  { plugin: retrievalRoutes, routes: RETRIEVAL_ROUTES },
  { plugin: verificationRoutes, routes: VERIFICATION_ROUTES },
  { plugin: lockerRoutes, routes: LOCKER_ROUTES },
  { plugin: inboundRoutes, routes: INBOUND_ROUTES },
  { plugin: inboxRoutes, routes: INBOX_ROUTES },
  { plugin: fileRoutes, routes: FILE_ROUTES },
  { plugin: metaRoutes, routes: META_ROUTES },
];

/** Every route the service serves, in registration order (HEAD twins of GET routes are Fastify's). */
export const ROUTES: readonly RouteDecl[] = SECTIONS.flatMap((s) => s.routes);

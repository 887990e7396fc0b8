/**
 * Which handler runs each command: the definitions (src/cli/definitions) bound to their handler
 * modules (src/cli/commands), each behind a dynamic import so that building the program, help and
 * completion load no handler code. `bind` checks at compile time that a handler takes its
 * definition's input.
 */
import { bind, type CommandSpec, type Loader } from './command.js';
import { creditsSpec, tokenCreateSpec, tokenVerifySpec, usageSpec } from './definitions/account.js';
import { completionSpec } from './definitions/completion.js';
import { configGetSpec, configListSpec, configPathSpec, configSetSpec, configUnsetSpec } from './definitions/config.js';
import { gainsSpec } from './definitions/gains.js';
import {
  inboundCreateSpec,
  inboundDeleteSpec,
  inboundFilesSpec,
  inboundGetSpec,
  inboundListSpec,
  inboundPauseSpec,
  inboundResumeSpec,
  verifySignatureSpec,
} from './definitions/inbound.js';
import { inboxConnectSpec, inboxDisconnectSpec, inboxDownloadSpec, inboxListSpec, inboxStatusSpec } from './definitions/inbox.js';
import { parseSpec, smartSpec } from './definitions/parse.js';
import { portfolioSpec } from './definitions/portfolio.js';
import { fetchSpec, mailbackSpec, verifyOtpSpec } from './definitions/retrieval.js';
import { openapiSpec, schemaSpec } from './definitions/schema.js';
import { creditsAddSpec, keysCreateSpec, keysListSpec, keysRevokeSpec, registryImportSpec, serveSpec } from './definitions/serve.js';
import { kycSpec, lockerResultSpec, lockerSessionSpec, verifyRegulatorSpec } from './definitions/verify.js';

const account = () => import('./commands/account.js');
const config = () => import('./commands/config.js');
const inbound = () => import('./commands/inbound.js');
const inbox = () => import('./commands/inbox.js');
const retrieval = () => import('./commands/retrieval.js');
const schema = () => import('./commands/schema.js');
const serve = () => import('./commands/serve.js');
const verify = () => import('./commands/verify.js');

export const HANDLERS: ReadonlyMap<CommandSpec, Loader> = new Map([
  bind(parseSpec, () => import('./commands/parse.js').then((m) => m.run)),
  bind(smartSpec, () => import('./commands/smart.js').then((m) => m.run)),
  bind(gainsSpec, () => import('./commands/gains.js').then((m) => m.run)),
  bind(portfolioSpec, () => import('./commands/portfolio.js').then((m) => m.run)),
  bind(schemaSpec, () => schema().then((m) => m.run)),
  bind(openapiSpec, () => import('./commands/openapi.js').then((m) => m.openapi)),
  bind(configGetSpec, () => config().then((m) => m.get)),
  bind(configSetSpec, () => config().then((m) => m.set)),
  bind(configUnsetSpec, () => config().then((m) => m.unset)),
  bind(configListSpec, () => config().then((m) => m.list)),
  bind(configPathSpec, () => config().then((m) => m.path)),
  bind(fetchSpec, () => retrieval().then((m) => m.fetchStatements)),
  bind(verifyOtpSpec, () => retrieval().then((m) => m.verifyOtp)),
  bind(mailbackSpec, () => retrieval().then((m) => m.mailback)),
  bind(verifyRegulatorSpec, () => verify().then((m) => m.verifyRegulator)),
  bind(kycSpec, () => verify().then((m) => m.kyc)),
  bind(lockerSessionSpec, () => verify().then((m) => m.lockerSession)),
  bind(lockerResultSpec, () => verify().then((m) => m.lockerResult)),
  bind(inboundCreateSpec, () => inbound().then((m) => m.create)),
  bind(inboundListSpec, () => inbound().then((m) => m.list)),
  bind(inboundGetSpec, () => inbound().then((m) => m.byId('get'))),
  bind(inboundDeleteSpec, () => inbound().then((m) => m.byId('delete'))),
  bind(inboundPauseSpec, () => inbound().then((m) => m.byId('pause'))),
  bind(inboundResumeSpec, () => inbound().then((m) => m.byId('resume'))),
  bind(inboundFilesSpec, () => inbound().then((m) => m.files)),
  bind(verifySignatureSpec, () => inbound().then((m) => m.verifySignature)),
  bind(inboxConnectSpec, () => inbox().then((m) => m.connect)),
  bind(inboxStatusSpec, () => inbox().then((m) => m.status)),
  bind(inboxListSpec, () => inbox().then((m) => m.list)),
  bind(inboxDownloadSpec, () => inbox().then((m) => m.download)),
  bind(inboxDisconnectSpec, () => inbox().then((m) => m.disconnect)),
  bind(creditsSpec, () => account().then((m) => m.credits)),
  bind(usageSpec, () => account().then((m) => m.usage)),
  bind(tokenCreateSpec, () => account().then((m) => m.tokenCreate)),
  bind(tokenVerifySpec, () => account().then((m) => m.tokenVerify)),
  bind(serveSpec, () => serve().then((m) => m.serve)),
  bind(keysCreateSpec, () => serve().then((m) => m.keysCreate)),
  bind(keysListSpec, () => serve().then((m) => m.keysList)),
  bind(keysRevokeSpec, () => serve().then((m) => m.keysRevoke)),
  bind(registryImportSpec, () => serve().then((m) => m.registryImport)),
  bind(creditsAddSpec, () => serve().then((m) => m.creditsAdd)),
  bind(completionSpec, () => import('./commands/completion.js').then((m) => m.run)),
]);

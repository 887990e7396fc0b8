/** `cas smart`: detect, report the type and evidence on stderr, and parse (or only detect). */
import type { CommandInput, Handler } from '../command.js';
import type { smartSpec } from '../definitions/parse.js';
import { runParse } from './parse.js';

export const run: Handler<CommandInput<typeof smartSpec>> = async (ctx, input) => runParse(ctx, input, 'smart');

/** `cas config get|set|unset|list|path`: the definitions. */
import { defineSpec } from '../command.js';

export const configGetSpec = defineSpec({
  name: 'get',
  summary: 'print one value (secrets masked unless --reveal)',
  args: ['<key>'],
  examples: ['cas config get base_url', 'cas config get base_url --effective'],
  options: [
    { flags: '--reveal', description: 'print a secret in clear' },
    { flags: '--effective', description: 'the value in force: flag > env > config file (source on stderr)' },
  ],
});
export const configSetSpec = defineSpec({
  name: 'set',
  summary: 'set a value (for secrets: - reads stdin; no value prompts hidden)',
  args: ['<key>', '[value]'],
  examples: ['cas config set pan ABCPM1234K'],
});
export const configUnsetSpec = defineSpec({
  name: 'unset',
  summary: 'remove a value',
  args: ['<key>'],
  examples: ['cas config unset api_key'],
});
export const configListSpec = defineSpec({
  name: 'list',
  summary: 'list all values (secrets masked)',
  examples: ['cas config list --json'],
});
export const configPathSpec = defineSpec({ name: 'path', summary: 'print the config file path', examples: ['cas config path'] });

export const configSpec = defineSpec({
  name: 'config',
  examples: [
    'cas config set base_url http://127.0.0.1:8080',
    'printf %s "$KEY" | cas config set api_key -',
    'cas config list',
    'cas config path',
  ],
  subcommands: [configGetSpec, configSetSpec, configUnsetSpec, configListSpec, configPathSpec],
});

/** `cas completion <shell>`: the definition. */
import { defineSpec } from '../command.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export const completionSpec = defineSpec({
  name: 'completion',
  args: ['<shell>'],
  examples: [
    'cas completion bash > /etc/bash_completion.d/cas',
    'cas completion zsh > "${fpath[1]}/_cas"',
    'cas completion fish > ~/.config/fish/completions/cas.fish',
  ],
});

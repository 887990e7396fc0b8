/** API keys and access tokens (the repository is src/server/store/keys.ts; `cas serve keys` imports this path). */
export * from './store/keys.js';

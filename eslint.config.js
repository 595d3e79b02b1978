// Lint rules: the recommended JavaScript and TypeScript sets, and the direction of imports between the layers.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const DRIVERS = ['mongodb', 'mongodb/*', 'neo4j-driver', 'neo4j-driver/*', 'ioredis', 'ioredis/*'];
const NODE_IO = ['fs', 'fs/*', 'net', 'http', 'https', 'child_process', 'node:fs', 'node:fs/*', 'node:net', 'node:http', 'node:https', 'node:child_process'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', '.cache/', 'coverage/', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The engine is pure: it computes on what it is given and does no I/O.
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/stores', '**/stores/**', '**/services', '**/services/**', '**/surfaces', '**/surfaces/**'], message: 'The engine imports nothing that does I/O: no stores, services or surfaces.' },
        { group: [...NODE_IO, ...DRIVERS], message: 'The engine imports nothing that does I/O.' },
      ] }],
    },
  },
  {
    // Services depend on the ports (src/stores/ports/); only the composition root (src/app.ts) picks the adapters.
    files: ['src/services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/stores/mongo', '**/stores/mongo/**', '**/stores/neo4j', '**/stores/neo4j/**', '**/stores/redis', '**/stores/redis/**'], message: 'Services import ports (stores/ports/), never an adapter.' },
        { group: [...DRIVERS, 'rate-limiter-flexible'], message: 'Services reach stores through the ports; drivers belong in the adapters under src/stores/.' },
      ] }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
);

// Lint rules: the recommended JavaScript and TypeScript sets, and the direction of imports between the layers.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const DRIVERS = ['mongodb', 'mongodb/*', 'neo4j-driver', 'neo4j-driver/*', 'ioredis', 'ioredis/*', 'bullmq', 'bullmq/*', 'nodemailer', 'nodemailer/*', '@aws-sdk/*'];
/** The adapters under src/stores/ (one folder each, the in-memory twins included): only the composition picks them. */
const ADAPTERS = [...['mongo', 'neo4j', 'redis', 'files', 'queue', 'mail', 'memory'].flatMap((d) => [`**/stores/${d}`, `**/stores/${d}/**`]), // The compositions that build them: a module receives the bag (ports/stores.ts), it never builds it.
  '**/stores/stores', '**/stores/stores.js'];
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
        { group: ['**/stores', '**/stores/**', '**/services', '**/services/**', '**/surfaces', '**/surfaces/**'],
          message: 'The engine imports nothing that does I/O: no stores, services or surfaces.' },
        { group: [...NODE_IO, ...DRIVERS], message: 'The engine imports nothing that does I/O.' },
      ] }],
    },
  },
  {
    // Services, module wiring (src/wiring) and surfaces depend on the ports (src/stores/ports/); only the composition (src/stores/stores.ts,
    // src/app.ts) picks the adapters.
    files: ['src/services/**/*.ts', 'src/wiring/**/*.ts', 'src/surfaces/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ADAPTERS, message: 'Services, modules and surfaces import ports (stores/ports/), never an adapter: src/stores/stores.ts builds them.' },
        { group: [...DRIVERS, 'rate-limiter-flexible'],
          message: 'Services, modules and surfaces reach stores, queues and mail through the ports; drivers belong in the adapters under src/stores/.' },
      ] }],
    },
  },
  {
    // The in-memory twins stand in for the servers: they load no driver, so the fast tier runs without one.
    files: ['src/stores/memory/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: [...DRIVERS, 'rate-limiter-flexible'], message: 'An in-memory twin loads no driver: it keeps its state in Maps (shared ones on a MemoryHub).' },
        { group: ['**/stores/mongo', '**/stores/mongo/**', '**/stores/neo4j', '**/stores/neo4j/**', '**/stores/redis', '**/stores/redis/**'],
          message: 'A twin imports no adapter (they load drivers).' },
      ] }],
    },
  },
  {
    // GraphQL's lazy half loads through one dynamic import (surfaces/graphql/runtime.ts): two imports at once that share
    // modules fail now and then in Jest's VM linker ("... is not in cache", nodejs/node#33216), a 500 on a first request.
    files: ['src/**/*.ts'],
    ignores: ['src/surfaces/graphql/runtime.ts'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: String.raw`ImportExpression[source.value=/(admin-schema|client-schema|apollo-handler)(\.js)?$|^(@apollo\/server|graphql|@escape\.tech\/graphql-armor)(\/|$)/]`,
        message: "GraphQL's lazily loaded modules come through one import of surfaces/graphql/runtime.ts (two imports at once race in Jest's linker).",
      }],
    },
  },
  {
    // Small files with one concern and functions a reader can hold: max-lines counts every line (blank lines and comments
    // too, so a file cannot grow by its comments); functions count code only.
    files: ['src/**/*.ts', 'infra/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    ignores: ['src/client/generated/**'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } } },
);

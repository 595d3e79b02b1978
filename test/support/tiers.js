// Which integration files run in which tier; jest.config.js reads it. Plain JavaScript because jest reads its config
// before any TypeScript loader.

/** The slow tier (faults, crash rounds, soak-like loads, a sample of the hostile corpus, multi-process runs): on the real servers. */
export const SLOW_FILES = [
  'store-faults',
  'crash-recovery',
  'communications-faults',
  'hostile-input',
  'conformance-two-processes',
  'partitioned-index',
  'state-large',
  'rebuild-under-load',
  'write-path',
];

/**
 * Service and transport tests that pass whole on the in-memory twins (startService with TEST_STORES=memory): they run
 * in the fast tier with no server. What the stores themselves do is tested on the real servers by the contract suites
 * (test/contract/, run by contract-real-*.test.ts). A file that reads a store directly or needs a real server's
 * behaviour stays in the stack tier.
 */
export const MEMORY_FILES = [
  'authz-behaviour',
  'authz-validation',
  'bind-addresses',
  'call-log',
  'change-feed',
  'chat',
  'check-reasons',
  'cli-push',
  'cli-server',
  'client-auth-teams',
  'client-freshness',
  'client-graphql-routes',
  'commit-failures',
  'config',
  'definition-in-force',
  'graphql',
  'grpc',
  'grpc-reflection',
  'http-hardening',
  'keep-alive',
  'lean-routes',
  'long-ids',
  'mcp',
  'metrics-logs',
  'openapi',
  'playground-static',
  'rate-limits',
  'realtime',
  'relations-write',
  'schema-definitions',
  'sdk',
  'state-import-guards',
  'team-join-order',
  'tracing',
  'transports',
];

/**
 * Service tests on the twins too, but longer ones (pages in Chromium, whole state imports, the README's blocks, the
 * database module's documents, uploads, sends): the twins tier, so the fast tier stays quick to run while working.
 */
export const TWIN_FILES = [
  // Pages in headless Chromium: a browser's start costs seconds of CPU each.
  'docs-page',
  'playground',
  'playground-files',
  'realtime-browser',
  // Longer service tests.
  'communications',
  'conformance-orders',
  'fuzz-twins',
  // Also in the slow tier, with a smaller corpus on the real stores.
  'hostile-input',
  'write-path',
  'custom-endpoints',
  'database-config-route',
  'database-hardening',
  'database-module',
  'foundation',
  'limits',
  'read-caches',
  'readme-blocks',
  'rebuild-units-first',
  'state',
  // Also in the stack tier (STACK_TOO).
  'projection-decisions',
  'relation-list',
  'storage',
  'storage-uploads',
];

/**
 * Files of TWIN_FILES that the stack tier runs too, on the real servers: the whole corpus on the twins, where it tests
 * the service's logic in seconds, and a part of it on the real stores, for the reads their adapters make.
 */
export const STACK_TOO = ['projection-decisions', 'relation-list'];

// Which integration files run in which tier; jest.config.js reads it. Plain JavaScript because jest reads its config
// before any TypeScript loader.

/** The slow tier (faults, crash rounds, soak-like loads, the hostile corpus, multi-process runs): on the real servers. */
export const SLOW_FILES = [
  'store-faults',
  'crash-recovery',
  'communications-faults',
  'hostile-input',
  'conformance-two-processes',
  'partitioned-index',
  'state-large',
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
  'communications',
  'config',
  'custom-endpoints',
  'database-config-route',
  'database-hardening',
  'database-module',
  'definition-in-force',
  'docs-page',
  'foundation',
  'graphql',
  'grpc',
  'grpc-reflection',
  'http-hardening',
  'lean-routes',
  'limits',
  'long-ids',
  'mcp',
  'metrics-logs',
  'openapi',
  'playground',
  'playground-files',
  'playground-static',
  'rate-limits',
  'read-caches',
  'readme-blocks',
  'realtime',
  'realtime-browser',
  'relations-write',
  'schema-definitions',
  'sdk',
  'state',
  'state-import-guards',
  'storage',
  'storage-uploads',
  'team-join-order',
  'tracing',
  'transports',
];

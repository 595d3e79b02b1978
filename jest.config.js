// Jest: four tiers as projects (fast and twins: no servers; stack: the real stores, one stack per worker; slow: faults, crash
// rounds, loads). TypeScript through @swc/jest in ESM mode (ts-jest's cold transforms cost the fast tier 35 s of CPU, as
// in every CI clone); type checking is `npm run typecheck`, not this.
import { MEMORY_FILES, SLOW_FILES, STACK_TOO, TWIN_FILES } from './test/support/tiers.js';

/**
 * Workers, and so store stacks: TEST_WORKERS, else 2 (this machine's cores; jest's default would be one, in band).
 * Servers given from outside (MONGO_URL, NEO4J_URI, REDIS_URL) are one stack: one worker then, or two would wipe each
 * other's data.
 */
const given = Boolean(process.env.MONGO_URL || process.env.NEO4J_URI || process.env.REDIS_URL);
const workers = given ? 1 : Number(process.env.TEST_WORKERS ?? 2);
process.env.JEST_STACK_WORKERS = String(workers);

const common = {
  testEnvironment: '<rootDir>/test/support/open-handles-environment.mjs',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, sourceMaps: 'inline' }] },
};
const inIntegration = (files) => files.map((f) => `<rootDir>/test/integration/${f}.test.ts`);
const notIn = (files) => files.map((f) => `/${f}\\.test\\.ts$`);
const onStack = {
  ...common,
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFiles: ['<rootDir>/test/support/worker-stack.ts'],
};

export default {
  maxWorkers: workers,
  testSequencer: '<rootDir>/test/support/sequencer.mjs',
  testTimeout: 60000,
  projects: [
    // The engine, the CLI offline and the ports' twins, and the service tests that run whole on the twins.
    { ...common, displayName: 'fast', testMatch: ['<rootDir>/test/unit/**/*.test.ts', ...inIntegration(MEMORY_FILES)], setupFiles: ['<rootDir>/test/support/memory-tier.ts'] },
    // Longer service tests on the twins: no servers either.
    { ...common, displayName: 'twins', testMatch: inIntegration(TWIN_FILES), setupFiles: ['<rootDir>/test/support/memory-tier.ts'] },
    { ...onStack, displayName: 'stack', testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...notIn(SLOW_FILES), ...notIn(MEMORY_FILES), ...notIn(TWIN_FILES.filter((f) => !STACK_TOO.includes(f)))] },
    { ...onStack, displayName: 'slow', testMatch: inIntegration(SLOW_FILES) },
  ],
  // No forceExit: a test that leaves a socket, timer or child open keeps the run alive, and the global teardown then
  // names what is still open and fails the run (test/support/stack-teardown.ts).
};

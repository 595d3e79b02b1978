// Jest: three tiers as projects (fast: no servers; stack: the real stores, one stack per worker; slow: faults, crash
// rounds, loads). TypeScript through ts-jest in ESM mode; type checking is `npm run typecheck`, not this.
import { SLOW_FILES } from './test/support/tiers.js';

/** Workers, and so store stacks: TEST_WORKERS, else 2 (this machine's cores; jest's default would be one, in band). */
const workers = Number(process.env.TEST_WORKERS ?? 2);
process.env.JEST_STACK_WORKERS = String(workers);

const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }] },
};
const slow = SLOW_FILES.map((f) => `<rootDir>/test/integration/${f}.test.ts`);
const onStack = {
  ...common,
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFiles: ['<rootDir>/test/support/worker-stack.ts'],
};

export default {
  maxWorkers: workers,
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'fast', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...onStack, displayName: 'stack', testMatch: ['<rootDir>/test/integration/**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/', ...SLOW_FILES.map((f) => `/${f}\\.test\\.ts$`)] },
    { ...onStack, displayName: 'slow', testMatch: slow },
  ],
  // No forceExit: a test that leaves a socket, timer or child open keeps the run alive, and the global teardown then
  // names what is still open and fails the run (test/support/stack-teardown.ts).
};

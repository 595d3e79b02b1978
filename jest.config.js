// Jest: TypeScript through ts-jest in ESM mode; type checking is `npm run typecheck`, not this.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 60000,
  maxWorkers: 1,
  // No forceExit: a test that leaves a socket, timer or child open keeps the run alive, and the global teardown then
  // names what is open and fails the run (test/support/stack-teardown.ts).
};

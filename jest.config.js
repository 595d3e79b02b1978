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
  // A client to a server a test killed or never started (port 1) may keep reconnecting after its service stopped;
  // the run must end when the tests do. Leaks show as "did not exit" in a single-file run (--detectOpenHandles).
  forceExit: true,
};

// The slow tier's files (faults, crash rounds, soak-like loads, the hostile corpus, two-process runs): jest.config.js
// keeps them out of the stack tier. Plain JavaScript because jest reads its config before any TypeScript loader.
export const SLOW_FILES = [
  'store-faults',
  'crash-recovery',
  'communications-faults',
  'hostile-input',
  'conformance-two-processes',
  'partitioned-index',
  'state-large',
];

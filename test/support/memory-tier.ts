// Jest setup file of the fast tier: the service tests in it run on the in-memory twins (see MEMORY_FILES in tiers.js).
process.env.TEST_STORES = 'memory';

// The contract suites of the MongoDB-backed ports, run against their in-memory twins (no servers).
import { memoryAuthzStore } from '../../src/stores/memory/authz.js';
import { definitionsContract } from '../contract/definitions.contract.js';
import { grantsContract } from '../contract/grants.contract.js';
import { tuplesContract } from '../contract/tuples.contract.js';

/** A fresh twin per test: nothing to clean up. */
const twin = <S>(build: () => S) => async () => ({ store: build(), cleanup: async () => undefined });

definitionsContract(twin(memoryAuthzStore));
tuplesContract(twin(memoryAuthzStore));
grantsContract(twin(memoryAuthzStore));

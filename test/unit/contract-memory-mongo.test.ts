// The contract suites of the MongoDB-backed ports, run against their in-memory twins (no servers).
import { memoryAdminStore } from '../../src/stores/memory/admins.js';
import { memoryApiTokenStore } from '../../src/stores/memory/api-tokens.js';
import { memoryAuthzStore } from '../../src/stores/memory/authz.js';
import { memoryChangeLog, memoryChangeLogState, memoryRevisionCounter } from '../../src/stores/memory/change-log.js';
import { memoryDocumentStore } from '../../src/stores/memory/documents.js';
import { memorySchemaStore } from '../../src/stores/memory/schemas.js';
import { memoryTeamStore } from '../../src/stores/memory/teams.js';
import { memoryUserStore } from '../../src/stores/memory/users.js';
import { adminsContract } from '../contract/admins.contract.js';
import { apiTokensContract } from '../contract/api-tokens.contract.js';
import { changeLogContract } from '../contract/change-log.contract.js';
import { definitionsContract } from '../contract/definitions.contract.js';
import { documentsContract } from '../contract/documents.contract.js';
import { grantsContract } from '../contract/grants.contract.js';
import { schemasContract } from '../contract/schemas.contract.js';
import { teamsContract } from '../contract/teams.contract.js';
import { tuplesContract } from '../contract/tuples.contract.js';
import { usersContract } from '../contract/users.contract.js';

/** A fresh twin per test: nothing to clean up. */
const twin = <S>(build: () => S) => async () => ({ store: build(), cleanup: async () => undefined });

definitionsContract(twin(memoryAuthzStore));
tuplesContract(twin(memoryAuthzStore));
grantsContract(twin(memoryAuthzStore));
changeLogContract(async () => {
  const state = memoryChangeLogState();
  const counter = memoryRevisionCounter();
  return { store: memoryChangeLog(counter, state), counter, reopen: async () => memoryChangeLog(memoryRevisionCounter(), state), cleanup: async () => undefined };
});
schemasContract(async () => {
  const documents = memoryDocumentStore();
  return {
    store: memorySchemaStore(() => documents.collections()),
    createCollection: async (name: string) => { await documents.insert(name, { _id: 'first' }); },
    cleanup: async () => undefined,
  };
});
documentsContract(twin(memoryDocumentStore));
usersContract(twin(memoryUserStore));
teamsContract(twin(memoryTeamStore));
apiTokensContract(twin(memoryApiTokenStore));
adminsContract(twin(memoryAdminStore));

// The contract suites of the MongoDB-backed ports, run against their in-memory twins (no servers).
import { memoryAccessViewStore } from '../../src/stores/memory/access-views.js';
import { memoryAdminStore } from '../../src/stores/memory/admins.js';
import { memoryApiTokenStore } from '../../src/stores/memory/api-tokens.js';
import { memoryAuthzStore } from '../../src/stores/memory/authz.js';
import { memoryChangeLog, memoryChangeLogState } from '../../src/stores/memory/change-log.js';
import { MemoryHub } from '../../src/stores/memory/hub.js';
import { memoryRevisionCounter } from '../../src/stores/memory/revision-counter.js';
import { memoryChatStore } from '../../src/stores/memory/chat.js';
import { memoryCommunicationStores } from '../../src/stores/memory/communications.js';
import { memoryConfigStore } from '../../src/stores/memory/config.js';
import { memoryEndpointStore } from '../../src/stores/memory/custom-endpoints.js';
import { memoryDocumentStore } from '../../src/stores/memory/documents.js';
import { memoryFileRecordStore } from '../../src/stores/memory/file-records.js';
import { memoryRebuildState } from '../../src/stores/memory/rebuild-state.js';
import { memoryRefreshTokenStore } from '../../src/stores/memory/refresh-tokens.js';
import { memorySchemaStore } from '../../src/stores/memory/schemas.js';
import { memoryTeamStore } from '../../src/stores/memory/teams.js';
import { memoryUserStore } from '../../src/stores/memory/users.js';
import { accessViewsContract } from '../contract/access-views.contract.js';
import { adminsContract } from '../contract/admins.contract.js';
import { apiTokensContract } from '../contract/api-tokens.contract.js';
import { changeLogContract } from '../contract/change-log.contract.js';
import { chatContract } from '../contract/chat.contract.js';
import { communicationsContract } from '../contract/communications.contract.js';
import { configContract } from '../contract/config.contract.js';
import { customEndpointsContract } from '../contract/custom-endpoints.contract.js';
import { definitionsContract } from '../contract/definitions.contract.js';
import { documentsContract } from '../contract/documents.contract.js';
import { fileRecordsContract } from '../contract/file-records.contract.js';
import { grantsContract } from '../contract/grants.contract.js';
import { rebuildStateContract } from '../contract/rebuild-state.contract.js';
import { refreshTokensContract } from '../contract/refresh-tokens.contract.js';
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
  const counter = memoryRevisionCounter(new MemoryHub(), 'authz');
  // Reopened over the same log with a counter of a Redis that lost everything.
  return { store: memoryChangeLog(counter, state), counter, reopen: async () => memoryChangeLog(memoryRevisionCounter(new MemoryHub(), 'authz'), state),
    withCounter: async (wrap) => memoryChangeLog(wrap(counter), state), cleanup: async () => undefined,
    strand: async (revision, owner) => void state.pending.set(revision, { revision, owner, at: new Date() }) };
});
schemasContract(async () => {
  const documents = memoryDocumentStore();
  return {
    store: memorySchemaStore(() => documents.collections()),
    createCollection: async (name: string) => {
      await documents.insert(name, { _id: 'first' });
    },
    cleanup: async () => undefined,
  };
});
documentsContract(twin(memoryDocumentStore));
usersContract(twin(memoryUserStore));
teamsContract(twin(memoryTeamStore));
apiTokensContract(twin(memoryApiTokenStore));
adminsContract(twin(memoryAdminStore));
refreshTokensContract(twin(memoryRefreshTokenStore));
configContract(twin(memoryConfigStore));
rebuildStateContract(twin(memoryRebuildState));
accessViewsContract(twin(memoryAccessViewStore));
customEndpointsContract(twin(memoryEndpointStore));
fileRecordsContract(twin(memoryFileRecordStore));
communicationsContract(twin(memoryCommunicationStores));
chatContract(twin(memoryChatStore));

// The contract suites of the MongoDB-backed ports, run against the real adapters on a database of this file's own.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Db, MongoClient } from 'mongodb';
import { mongoAccessViewStore } from '../../src/stores/mongo/access-views.js';
import { mongoAdminStore } from '../../src/stores/mongo/admins.js';
import { mongoApiTokenStore } from '../../src/stores/mongo/api-tokens.js';
import { mongoAuthzStore } from '../../src/stores/mongo/authz.js';
import { mongoChangeLog } from '../../src/stores/mongo/change-log.js';
import { CHAT_COLLECTIONS, mongoChatStore } from '../../src/stores/mongo/chat.js';
import { mongoCommunicationStores } from '../../src/stores/mongo/communications.js';
import { mongoConfigStore } from '../../src/stores/mongo/config.js';
import { COLLECTIONS, connectMongo } from '../../src/stores/mongo/connection.js';
import { ENDPOINTS_COLLECTION, mongoEndpointStore } from '../../src/stores/mongo/custom-endpoints.js';
import { mongoDocumentStore } from '../../src/stores/mongo/documents.js';
import { FILES_COLLECTION, mongoFileRecordStore } from '../../src/stores/mongo/file-records.js';
import { mongoRebuildState } from '../../src/stores/mongo/index-state.js';
import { mongoRefreshTokenStore } from '../../src/stores/mongo/refresh-tokens.js';
import { mongoSchemaStore } from '../../src/stores/mongo/schemas.js';
import { mongoTeamStore } from '../../src/stores/mongo/teams.js';
import { mongoUserStore } from '../../src/stores/mongo/users.js';
import { redisRevisionCounter } from '../../src/stores/redis/revision-counter.js';
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
import { ownDatabase } from '../support/own-db.js';

let client: MongoClient;
let db: Db;
let redis: Redis;

beforeAll(async () => {
  // connectMongo creates the indexes the adapters rely on (unique names, emails, tuple texts), as the service does.
  ({ client, db } = await connectMongo(await ownDatabase('contract_real_mongo')));
  redis = new Redis(process.env.REDIS_URL!);
});
afterAll(async () => {
  await client?.close();
  redis?.disconnect();
});

/** Empties these collections (their indexes kept), so a test starts from an empty store. */
const empty = (collections: string[]) => Promise.all(collections.map((c) => db.collection(c).deleteMany({})));
/** The adapter over its collections emptied first. */
const fresh = <S>(build: (db: Db) => S, ...collections: string[]) => async () => {
  await empty(collections);
  return { store: build(db), cleanup: async () => undefined };
};

const C = COLLECTIONS;
definitionsContract(fresh(mongoAuthzStore, C.definitions));
tuplesContract(fresh(mongoAuthzStore, C.relations));
grantsContract(fresh(mongoAuthzStore, C.grants));
// The production pair: the log in MongoDB, its counter in Redis (a prefix of its own per test, as a fresh Redis).
changeLogContract(async () => {
  await empty([C.changes, C.changeBlocks, C.pending, C.revisionMark]);
  const counter = redisRevisionCounter(redis, `contract-${randomUUID()}`);
  return {
    store: mongoChangeLog(db, counter),
    counter,
    cleanup: async () => undefined,
    reopen: async () => mongoChangeLog(db, redisRevisionCounter(redis, `contract-${randomUUID()}`)),
    withCounter: async (wrap) => mongoChangeLog(db, wrap(counter)),
    strand: async (revision, owner) => void await db.collection<{ _id: number; owner: string; at: Date }>(C.pending).insertOne({ _id: revision, owner, at: new Date() }),
  };
});
schemasContract(async () => {
  await empty([C.schemas, C.introspected]);
  const documents = mongoDocumentStore(db);
  return { store: mongoSchemaStore(db), createCollection: (name: string) => documents.insert(name, { _id: 'first' }), cleanup: async () => undefined };
});
// Each documents test names collections of its own; they are dropped with the database at the next run.
documentsContract(async () => ({ store: mongoDocumentStore(db), cleanup: async () => undefined }));
usersContract(fresh(mongoUserStore, C.users));
teamsContract(fresh(mongoTeamStore, C.teams, C.invitations));
apiTokensContract(fresh(mongoApiTokenStore, C.apiTokens));
adminsContract(fresh(mongoAdminStore, C.admins));
refreshTokensContract(fresh(mongoRefreshTokenStore, C.refreshTokens, C.revokedFamilies));
configContract(fresh(mongoConfigStore, C.config));
rebuildStateContract(fresh(mongoRebuildState, C.indexState));
accessViewsContract(fresh(mongoAccessViewStore, C.accessViews, C.accessViewChunks));
customEndpointsContract(fresh(mongoEndpointStore, ENDPOINTS_COLLECTION));
fileRecordsContract(fresh(mongoFileRecordStore, FILES_COLLECTION));
communicationsContract(fresh(mongoCommunicationStores, C.deviceTokens, C.notifications, C.outbox, C.pendingSends));
chatContract(fresh(mongoChatStore, CHAT_COLLECTIONS.rooms, CHAT_COLLECTIONS.messages));

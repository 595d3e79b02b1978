// The contract suites of the MongoDB-backed ports, run against the real adapters on a database of this file's own.
import type { Db, MongoClient } from 'mongodb';
import { mongoAuthzStore } from '../../src/stores/mongo/authz.js';
import { COLLECTIONS, connectMongo } from '../../src/stores/mongo/connection.js';
import { definitionsContract } from '../contract/definitions.contract.js';
import { grantsContract } from '../contract/grants.contract.js';
import { tuplesContract } from '../contract/tuples.contract.js';
import { ownDatabase } from '../support/own-db.js';

let client: MongoClient;
let db: Db;

beforeAll(async () => {
  // connectMongo creates the indexes the adapters rely on (unique names, emails, tuple texts), as the service does.
  ({ client, db } = await connectMongo(await ownDatabase('contract_real_mongo')));
});
afterAll(async () => { await client?.close(); });

/** The adapter over its collections emptied first (their indexes kept), so each test starts from an empty store. */
const fresh = <S>(build: (db: Db) => S, ...collections: string[]) => async () => {
  await Promise.all(collections.map((c) => db.collection(c).deleteMany({})));
  return { store: build(db), cleanup: async () => undefined };
};

const C = COLLECTIONS;
definitionsContract(fresh(mongoAuthzStore, C.definitions));
tuplesContract(fresh(mongoAuthzStore, C.relations));
grantsContract(fresh(mongoAuthzStore, C.grants));

// Connects to a MongoDB-wire server and creates the indexes the stores rely on (FerretDB v1 compatible).
import { MongoClient, type Db } from 'mongodb';
import { isDuplicateKey } from './duplicate-key.js';

export const COLLECTIONS = {
  admins: 'admins',
  apiTokens: 'api_tokens',
  definitions: 'resource_definitions',
  relations: 'relationships',
  grants: 'direct_grants',
  changes: 'change_log',
  pending: 'pending_changes',
  indexState: 'index_state',
  users: 'users',
  refreshTokens: 'refresh_tokens',
  teams: 'teams',
  invitations: 'team_invitations',
  schemas: 'schemas',
  introspected: 'introspected_schemas',
  config: 'config',
  revokedFamilies: 'revoked_token_families',
  accessViews: 'access_views',
} as const;

export async function connectMongo(url: string): Promise<{ client: MongoClient; db: Db }> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10000, ignoreUndefined: true });
  await client.connect();
  const db = client.db();
  await ensureIndexes(db);
  return { client, db };
}

async function ensureIndexes(db: Db): Promise<void> {
  const c = COLLECTIONS;
  await Promise.all([
    db.collection(c.admins).createIndex({ username: 1 }, { unique: true }),
    db.collection(c.apiTokens).createIndex({ adminId: 1 }),
    db.collection(c.definitions).createIndex({ name: 1 }, { unique: true }),
    db.collection(c.relations).createIndex({ computedTuple: 1 }, { unique: true }),
    db.collection(c.relations).createIndex({ subject: 1 }),
    db.collection(c.relations).createIndex({ resource: 1, relation: 1 }),
    db.collection(c.relations).createIndex({ resourceType: 1 }),
    db.collection(c.relations).createIndex({ subjectType: 1 }),
    db.collection(c.grants).createIndex({ computedTuple: 1 }, { unique: true }),
    db.collection(c.grants).createIndex({ subject: 1 }),
    db.collection(c.grants).createIndex({ resource: 1 }),
    db.collection(c.users).createIndex({ email: 1 }, { unique: true }),
    db.collection(c.refreshTokens).createIndex({ family: 1 }),
    db.collection(c.schemas).createIndex({ name: 1 }, { unique: true }),
    // One schema per collection (two would share documents and access rules). A database that already holds two owners
    // still starts: creating and adopting schemas check the owner first, and the second owner is an operator's to fix.
    db.collection(c.schemas).createIndex({ collectionName: 1 }, { unique: true }).catch((e: unknown) => { if (!isDuplicateKey(e)) throw e; }),
  ]);
}

export async function pingMongo(db: Db): Promise<void> {
  await db.command({ ping: 1 });
}

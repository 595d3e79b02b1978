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
  /** The change log's settled blocks, sealed for the feed (change-blocks.ts). */
  changeBlocks: 'change_log_blocks',
  /** The highest revision taken (revision-mark.ts). */
  revisionMark: 'revision_mark',
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
  accessViewChunks: 'access_view_chunks',
  deviceTokens: 'device_tokens',
  notifications: 'notifications',
  outbox: 'communication_outbox',
  pendingSends: 'communication_pending',
} as const;

/**
 * How long a call waits for an unreachable server before it fails (and the request answers 503). The driver's 30 s
 * default, or the 10 s used before, held every write that long while FerretDB was down; a live server is selected at once.
 */
const SELECTION_TIMEOUT_MS = 2000;
/** At start-up the server may come up a little after the service: connecting is tried again for this long. */
const CONNECT_WITHIN_MS = 10_000;

/**
 * socketTimeoutMS bounds one command on a server that stops answering but keeps its connections open (a hung
 * process): the driver's default is none, so such a call held its request forever. It bounds a single command, not
 * a cursor's life (the time between getMores is the reader's). The service's own commands stay far below a minute
 * since the rebuild stopped counting and listing whole collections; a user's count on a large schema may not.
 * A timeout or handshake bound written in MONGO_URL wins over these.
 */
export async function connectMongo(url: string, options: { socketTimeoutMS?: number } = {}): Promise<{ client: MongoClient; db: Db }> {
  const deadline = Date.now() + CONNECT_WITHIN_MS;
  const inUrl = (name: string) => new RegExp(`[?&]${name}=`, 'i').test(url);
  const socketTimeoutMS = options.socketTimeoutMS ?? 60_000;
  const bounds = {
    ...(inUrl('socketTimeoutMS') ? {} : { socketTimeoutMS }),
    // A new connection to a hung server completes TCP (the kernel answers), then waits on its handshake. The bound
    // also times the driver's heartbeats, so it has a floor: a busy server must not be taken for a dead one.
    ...(inUrl('connectTimeoutMS') ? {} : { connectTimeoutMS: Math.min(Math.max(socketTimeoutMS, 2000), 10_000) }),
  };
  let client: MongoClient;
  for (;;) {
    client = new MongoClient(url, { serverSelectionTimeoutMS: SELECTION_TIMEOUT_MS, ...bounds, ignoreUndefined: true });
    try {
      await client.connect();
      break;
    } catch (e) {
      await client.close().catch(() => undefined);
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
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
    db.collection(c.refreshTokens).createIndex({ expiresAt: 1 }),
    db.collection(c.revokedFamilies).createIndex({ revokedAt: 1 }),
    db.collection(c.schemas).createIndex({ name: 1 }, { unique: true }),
    db.collection(c.accessViewChunks).createIndex({ view: 1, version: 1 }),
    // One schema per collection (two would share documents and access rules). A database that already holds two owners
    // still starts: creating and adopting schemas check the owner first, and the second owner is an operator's to fix.
    db.collection(c.schemas).createIndex({ collectionName: 1 }, { unique: true }).catch((e: unknown) => {
      if (!isDuplicateKey(e)) throw e;
    }),
  ]);
}

export async function pingMongo(db: Db): Promise<void> {
  await db.command({ ping: 1 });
}

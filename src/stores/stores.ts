// Connects MongoDB, Neo4j and Redis and builds every adapter the modules use: the only place that knows which store holds what.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { openFileStorage } from './files/open.js';
import { smtpMailer } from './mail/smtp.js';
import { mongoAccessViewStore } from './mongo/access-views.js';
import { mongoAdminStore } from './mongo/admins.js';
import { mongoApiTokenStore } from './mongo/api-tokens.js';
import { mongoAuthzStore } from './mongo/authz.js';
import { mongoChangeLog } from './mongo/change-log.js';
import { ENDPOINTS_COLLECTION, mongoEndpointStore } from './mongo/custom-endpoints.js';
import { CHAT_COLLECTIONS, mongoChatStore } from './mongo/chat.js';
import { mongoCommunicationStores } from './mongo/communications.js';
import { mongoConfigStore } from './mongo/config.js';
import { COLLECTIONS, connectMongo, pingMongo } from './mongo/connection.js';
import { mongoDocumentStore } from './mongo/documents.js';
import { FILES_COLLECTION, mongoFileRecordStore } from './mongo/file-records.js';
import { mongoRebuildState } from './mongo/index-state.js';
import { primaryDb } from './mongo/primary-db.js';
import { mongoRefreshTokenStore } from './mongo/refresh-tokens.js';
import { mongoSchemaStore } from './mongo/schemas.js';
import { mongoTeamStore } from './mongo/teams.js';
import { tunedDb } from './mongo/tuned-db.js';
import { mongoUserStore } from './mongo/users.js';
import { bullmqJobQueues } from './queue/bullmq.js';
import { connectNeo4j, pingNeo4j, requireNeo4jVersion } from './neo4j/connection.js';
import { neo4jGraphStore } from './neo4j/graph.js';
import { neo4jIndexStore } from './neo4j/index-store.js';
import { warmAll } from './neo4j/warm.js';
import { neo4jTupleListing } from './neo4j/tuple-listing.js';
import { closeRedis, connectRedis, pingRedis } from './redis/connection.js';
import { redisChatChannel } from './redis/chat-channel.js';
import { redisDecisionStore } from './redis/decision-cache.js';
import { redisDeletionHints } from './redis/deletion-hints.js';
import { redisEpoch } from './redis/epoch.js';
import { InvalidationBus } from './redis/invalidation-bus.js';
import { Heartbeat } from './redis/lease.js';
import { redisRateCounter } from './redis/rate-limits.js';
import { redisCoordination } from './redis/coordination.js';
import { redisRevisionCounter } from './redis/revision-counter.js';
import { redisTokenDenyList } from './redis/token-deny-list.js';
import type { Invalidation } from './ports/invalidation-bus.js';
import type { Stores } from './ports/stores.js';

export interface StoreUrls {
  MONGO_URL: string;
  MONGO_SOCKET_TIMEOUT_MS?: number;
  NEO4J_URI: string;
  NEO4J_USER: string;
  NEO4J_PASSWORD: string;
  REDIS_URL: string;
  REDIS_PREFIX: string;
  /** Plan the statements at start (NEO4J_WARM_PLANS); on unless false. */
  NEO4J_WARM_PLANS?: boolean;
}

export async function connectStores(urls: StoreUrls, log: Logger): Promise<Stores> {
  const { client: mongo } = await connectMongo(urls.MONGO_URL, { socketTimeoutMS: urls.MONGO_SOCKET_TIMEOUT_MS });
  // The write path reads the primary and writes acknowledged whatever the config says; only the documents of database
  // schemas follow the `database` module's config, retuned in place (read preference, concerns).
  const db = primaryDb(mongo);
  const tuned = tunedDb(mongo);
  const neo = await connectNeo4j(urls.NEO4J_URI, urls.NEO4J_USER, urls.NEO4J_PASSWORD);
  await requireNeo4jVersion(neo);
  if (urls.NEO4J_WARM_PLANS !== false) {
    const warmStarted = Date.now();
    log.info({ ...await warmAll(neo), ms: Date.now() - warmStarted }, 'Neo4j query plans warmed');
  }
  const tupleListing = neo4jTupleListing(neo);
  // Once, on the first start of this version over an older projection (a few thousand tuples a second).
  await tupleListing.prepare(() => log.info('filling the list fields of the projected tuples (once)')).then(
    (n) => {
      if (n) log.info({ tuples: n }, 'list fields filled');
    },
    (e: Error) => log.warn({ err: e.message }, 'could not fill the list fields of older tuples; a soft reconstruct fills them'),
  );
  const redis = connectRedis(urls.REDIS_URL);
  let redisDown = false;
  redis.on('error', (err) => {
    if (!redisDown) log.warn({ err: err.message }, 'redis connection error');
    redisDown = true;
  });
  redis.on('ready', () => {
    if (redisDown) log.info('redis connection restored');
    redisDown = false;
  });
  const prefix = urls.REDIS_PREFIX;
  const counter = redisRevisionCounter(redis, prefix);
  let beat: Heartbeat | undefined;
  return {
    admins: mongoAdminStore(db),
    apiTokens: mongoApiTokenStore(db),
    authz: mongoAuthzStore(db),
    changeLog: mongoChangeLog(db, counter),
    rebuildState: mongoRebuildState(db),
    accessViews: mongoAccessViewStore(db),
    users: mongoUserStore(db),
    refreshTokens: mongoRefreshTokenStore(db),
    teams: mongoTeamStore(db),
    schemas: mongoSchemaStore(db),
    documents: mongoDocumentStore(tuned.db),
    /** Custom endpoint definitions of the database module. */
    customEndpoints: mongoEndpointStore(db),
    files: mongoFileRecordStore(db),
    /** Where file bytes go: local disk or an S3 bucket, as the `storage` module's config names them. */
    fileStorage: openFileStorage,
    config: mongoConfigStore(db),
    /** Push device tokens, notifications and the outbox of sent messages. */
    communications: mongoCommunicationStores(db),
    /** Job queues (BullMQ on this Redis, connections of their own): a handle connects when it is opened. */
    jobQueue: bullmqJobQueues(urls.REDIS_URL, prefix),
    /** Email sent through an SMTP server. */
    mailer: smtpMailer,
    /** Collections of the service itself, which introspection never offers as schemas. */
    systemCollections: new Set<string>([...Object.values(COLLECTIONS), FILES_COLLECTION, ...Object.values(CHAT_COLLECTIONS), ENDPOINTS_COLLECTION]),
    chat: mongoChatStore(db),
    index: neo4jIndexStore(neo),
    graph: neo4jGraphStore(neo),
    /** Pages and counts of the admin list of relations, from the projection's indexes. */
    tupleListing,
    hints: redisDeletionHints(redis, prefix),
    ...redisCoordination(redis, prefix),
    decisionStore: redisDecisionStore(redis, prefix),
    rateCounter: redisRateCounter(redis, prefix),
    denyList: redisTokenDenyList(redis, prefix),
    epoch: (name: string) => redisEpoch(redis, `${prefix}:ep:~${name}`),
    heartbeat: (ttlMs?: number) => (beat ??= new Heartbeat(redis, prefix, randomUUID(), ttlMs)),
    bus: (apply: (inv: Invalidation) => void, reset: () => void) => new InvalidationBus(redis, prefix, apply, reset),
    chatChannel: (onMessage: (message: string) => void) => redisChatChannel(redis, prefix, onMessage),
    /** Applies the `database` module's config (read preference, concerns) to document calls from the next on. */
    tuneDatabase: (options: Parameters<typeof tuned.set>[0]) => tuned.set(options),
    probes: (checkRedis: boolean) => ({
      mongo: () => pingMongo(db),
      neo4j: () => pingNeo4j(neo),
      ...(checkRedis ? { redis: () => pingRedis(redis) } : {}),
    }),
    async close() {
      await Promise.allSettled([mongo.close(), neo.close(), closeRedis(redis)]);
    },
  };
}

export type { Stores };

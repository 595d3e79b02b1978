// The composition root: connects the stores, builds the services and the two HTTP surfaces. No singletons.
import { AppError } from './errors.js';
import { createServer, type Server } from 'node:http';
import { VERSION } from './root.js';
import bcrypt from 'bcrypt';
import { bytesOf, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { AdminAuth } from './services/admin-auth.js';
import { ApiTokens } from './services/api-tokens.js';
import { Health } from './services/health.js';
import { connectMongo, pingMongo } from './stores/mongo/connection.js';
import { tunedDb } from './stores/mongo/tuned-db.js';
import { mongoAdminStore } from './stores/mongo/admins.js';
import { mongoApiTokenStore } from './stores/mongo/api-tokens.js';
import { connectNeo4j, pingNeo4j, warmNeo4j } from './stores/neo4j/connection.js';
import { closeRedis, connectRedis, pingRedis } from './stores/redis/connection.js';
import { createHttpApp } from './surfaces/http/express-adapter.js';
import { leanRoutes } from './surfaces/http/lean-routes.js';
import { Registry } from './surfaces/registry.js';
import { Pipeline } from './surfaces/pipeline.js';
import { coreRoutes } from './surfaces/routes/core.js';
import { authorizationRoutes } from './surfaces/routes/authorization.js';
import { randomUUID } from 'node:crypto';
import { Applier } from './services/authorization/applier.js';
import { Checks } from './services/authorization/checks.js';
import { DecisionWatch } from './services/authorization/decision-watch.js';
import { Activity } from './services/activity.js';
import type { Invalidation } from './stores/ports/invalidation-bus.js';
import { GrpcTransport } from './surfaces/grpc/server.js';
import { RealtimeTransport } from './surfaces/socket/realtime.js';
import { adminFeedSocket } from './surfaces/socket/admin-feed.js';
import { AccessViews } from './services/authorization/access-views.js';
import { ChangeFeed } from './services/authorization/change-feed.js';
import { mongoAccessViewStore } from './stores/mongo/access-views.js';
import { DecisionCache } from './services/authorization/decision-cache.js';
import { LocalDecisions } from './services/authorization/local-decisions.js';
import { InvalidationBus } from './stores/redis/invalidation-bus.js';
import { redisDecisionStore } from './stores/redis/decision-cache.js';
import { Definitions } from './services/authorization/definitions.js';
import { IndexBatch } from './services/authorization/index-batch.js';
import { ModelSource } from './services/authorization/model-source.js';
import { Rebuilds } from './services/authorization/rebuilds.js';
import { Relations } from './services/authorization/relations.js';
import { Revisions } from './services/authorization/revisions.js';
import { mongoAuthzStore } from './stores/mongo/authz.js';
import { mongoChangeLog } from './stores/mongo/change-log.js';
import { mongoRebuildState } from './stores/mongo/index-state.js';
import { redisDeletionHints } from './stores/redis/deletion-hints.js';
import { Heartbeat, Lease } from './stores/redis/lease.js';
import { LeaseTimeout } from './stores/ports/lease.js';
import { redisRevisionCounter } from './stores/redis/revision-counter.js';
import { neo4jGraphStore } from './stores/neo4j/graph.js';
import { neo4jIndexStore } from './stores/neo4j/index-store.js';
import { ClientAuth } from './services/client-auth.js';
import { Teams } from './services/teams.js';
import { effectiveRateLimits, parseRateLimits, RateLimits, readRateLimits } from './services/rate-limits.js';
import { redisRateCounter } from './stores/redis/rate-limits.js';
import { Settings } from './services/config/settings.js';
import { mongoConfigStore } from './stores/mongo/config.js';
import { configRoutes } from './surfaces/routes/config.js';
import { State } from './services/state/state.js';
import { stateRoutes } from './surfaces/routes/state.js';
import { mongoUserStore } from './stores/mongo/users.js';
import { mongoRefreshTokenStore } from './stores/mongo/refresh-tokens.js';
import { mongoTeamStore } from './stores/mongo/teams.js';
import { redisTokenDenyList } from './stores/redis/token-deny-list.js';
import { redisEpoch } from './stores/redis/epoch.js';
import { adminSchema } from './surfaces/graphql/admin-schema.js';
import { clientSchema, usableSchemas } from './surfaces/graphql/client-schema.js';
import { graphqlEndpoint } from './surfaces/graphql/endpoint.js';
import { mountToolServer } from './surfaces/mcp/tool-server.js';
import { Metrics } from './services/metrics.js';
import { metricsRoutes } from './surfaces/routes/metrics.js';
import { usageGuide } from './surfaces/docs/guide.js';
import { openApiDocument } from './surfaces/docs/openapi.js';
import { docsRoutes, mountSwaggerAssets, swaggerPage } from './surfaces/docs/routes.js';
import { MODULE_NAMES } from './services/config/modules.js';
import { authenticationRoutes } from './surfaces/routes/authentication.js';
import { clientAuthorizationRoutes } from './surfaces/routes/client-authorization.js';
import { databaseRoutes } from './surfaces/routes/database.js';
import { Documents } from './services/database/documents.js';
import { Schemas } from './services/database/schemas.js';
import { mongoSchemaStore } from './stores/mongo/schemas.js';
import { mongoDocumentStore } from './stores/mongo/documents.js';
import { COLLECTIONS } from './stores/mongo/connection.js';

/** A port the service listens on, by name (admin, client, socket, grpc). */
export interface Listener { name: string; port: number }

/** The port of the listener named `name`. */
export function portOf(listeners: Listener[], name: string): number {
  const l = listeners.find((x) => x.name === name);
  if (!l) throw new Error(`no listener named ${name}`);
  return l.port;
}

export interface App {
  registry: Registry;
  log: Logger;
  listen(): Promise<Listener[]>;
  close(): Promise<void>;
}

export async function createApp(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<App> {
  const { client: mongo } = await connectMongo(config.MONGO_URL);
  // Stores keep their collections; the config module `database` retunes them (read preference, concerns) in place.
  const tuned = tunedDb(mongo);
  const db = tuned.db;
  const neo = await connectNeo4j(config.NEO4J_URI, config.NEO4J_USER, config.NEO4J_PASSWORD);
  const warmStarted = Date.now();
  log.info({ statements: await warmNeo4j(neo), ms: Date.now() - warmStarted }, 'Neo4j query plans warmed');
  const redis = connectRedis(config.REDIS_URL);
  let redisDown = false;
  redis.on('error', (err) => { if (!redisDown) log.warn({ err: err.message }, 'redis connection error'); redisDown = true; });
  redis.on('ready', () => { if (redisDown) log.info('redis connection restored'); redisDown = false; });

  const admins = mongoAdminStore(db);
  const bootstrap = await admins.upsert(config.ADMIN_USERNAME,
    await (async () => {
      const existing = await admins.findByUsername(config.ADMIN_USERNAME);
      if (existing && await bcrypt.compare(config.ADMIN_PASSWORD, existing.passwordHash)) return existing.passwordHash;
      return bcrypt.hash(config.ADMIN_PASSWORD, 10);
    })());
  const tokenStore = mongoApiTokenStore(db);
  const auth = new AdminAuth({
    admins, tokens: tokenStore, masterKey: config.MASTER_KEY, jwtSecret: config.ADMIN_JWT_SECRET,
    jwtTtlSeconds: config.ADMIN_JWT_TTL_SECONDS, bootstrapAdminId: () => bootstrap._id,
  });
  const tokens = new ApiTokens(tokenStore);

  const probes: Record<string, () => Promise<void>> = { mongo: () => pingMongo(db), neo4j: () => pingNeo4j(neo) };
  if (config.READY_CHECK_REDIS) probes.redis = () => pingRedis(redis);
  const registry = new Registry();
  const health = new Health(probes, config.READY_REQUIRED_MODULES, () => registry.modules());
  registry.add(...coreRoutes({ health, auth, tokens }));

  const store = mongoAuthzStore(db);
  const index = neo4jIndexStore(neo);
  const graph = neo4jGraphStore(neo);
  await index.meta();
  const prefix = config.REDIS_PREFIX;
  const counter = redisRevisionCounter(redis, prefix);
  const changeLog = mongoChangeLog(db, counter);
  const hints = redisDeletionHints(redis, prefix);
  const models = new ModelSource(store, redisEpoch(redis, `${prefix}:ep:~definitions`));
  const decisions = new LocalDecisions(config.LOCAL_DECISIONS);
  // Every invalidation, from this process's index batches or the others' through the bus, also reaches these.
  const activity = new Activity();
  const watchers: Array<(inv: Invalidation) => void> = [() => activity.notify()];
  const bus = new InvalidationBus(redis, prefix, (inv) => {
    decisions.invalidate(inv.keys, inv.structure);
    for (const w of watchers) w(inv);
  }, () => decisions.reset());
  decisions.trustWhile(() => bus.trusted());
  await bus.start();
  const cache = new DecisionCache(redisDecisionStore(redis, prefix), { decisions, bus });
  const revisions = new Revisions(changeLog);
  const heartbeat = new Heartbeat(redis, prefix, randomUUID());
  const batch = new IndexBatch(store, graph, index, hints);
  const applier = new Applier({
    log: changeLog, lease: new Lease(redis, `${prefix}:lease:index`), heartbeat, batch, index, graph, models, cache, logger: log,
  });
  const rebuilds = new Rebuilds({
    state: mongoRebuildState(db), stateLease: new Lease(redis, `${prefix}:lease:rebuild-state`, 5000),
    runLease: new Lease(redis, `${prefix}:lease:rebuild`, 30_000), heartbeat, applier, store, graph, index, batch, models, cache, logger: log,
  });
  const definitions = new Definitions(store, models, changeLog, applier);
  await definitions.seedBuiltins();
  const relations = new Relations(store, changeLog, applier, models, hints);
  const checks = new Checks(index, graph, models, cache, revisions, config.LIST_WHOLE);
  const watch = new DecisionWatch(checks, revisions, log);
  watchers.push((inv) => watch.onInvalidation(inv));
  applier.start();
  rebuilds.start();
  const feed = new ChangeFeed(changeLog, revisions);
  registry.add(...authorizationRoutes({
    definitions, relations, checks, feed, views: new AccessViews(mongoAccessViewStore(db), checks, revisions),
    indexer: {
      async reconstruct(soft) {
        // Logged for the record, not pending: rebuilds are tracked on their own, so reads never wait on one.
        const revision = await changeLog.commit({ kind: 'reconstruct', op: soft ? 'soft' : 'hard' }, heartbeat.owner, { pending: false });
        await rebuilds.request(soft, revision);
        return revision;
      },
      async status() {
        const meta = await index.meta();
        const pending = await changeLog.pending();
        return { pending: pending.length, appliedRevision: await revisions.applied(), revision: await revisions.latest(),
          generation: meta.gen, building: meta.building, ...(await rebuilds.status()) };
      },
    },
  }));

  const users = mongoUserStore(db);
  const deny = redisTokenDenyList(redis, prefix);
  const clientAuth = new ClientAuth({
    users, refresh: mongoRefreshTokenStore(db), deny, jwtSecret: config.CLIENT_JWT_SECRET,
    accessTtlSeconds: config.CLIENT_ACCESS_TTL_SECONDS, refreshTtlSeconds: config.CLIENT_REFRESH_TTL_SECONDS,
  });
  const teams = new Teams({ teams: mongoTeamStore(db), users, store, relations, checks });
  registry.add(...authenticationRoutes({ clientAuth, teams }), ...clientAuthorizationRoutes({ checks, revisions }));
  const docs = mongoDocumentStore(db);
  const schemas = new Schemas({ schemas: mongoSchemaStore(db), docs, definitions, systemCollections: new Set(Object.values(COLLECTIONS)), epoch: redisEpoch(redis, `${prefix}:ep:~schemas`) });
  registry.add(...databaseRoutes({ schemas, documents: new Documents({ schemas, docs, relations, checks }) }));

  /** Runs `fn` alone among every process (it can ask whether it still is); BUSY when the lease stays taken for `waitMs`. */
  const exclusively = async <T>(key: string, waitMs: number, what: string, fn: (held: () => boolean) => Promise<T>): Promise<T> => {
    const lease = new Lease(redis, key, 15_000);
    try {
      await lease.acquire(waitMs);
    } catch (e) {
      if (e instanceof LeaseTimeout) throw new AppError('BUSY', `${what} is running in another request; retry when it ends`);
      throw e;
    }
    try { return await fn(() => lease.held()); } finally { await lease.release(); }
  };
  const settings = new Settings({
    store: mongoConfigStore(db), epoch: redisEpoch(redis, `${prefix}:ep:~config`), log,
    exclusive: (fn) => exclusively(`${prefix}:lease:config`, 5000, 'A config change', fn),
    base: config.ROUTER_RATE_LIMITS ? { router: { rateLimits: readRateLimits(config.ROUTER_RATE_LIMITS) } } : {},
  });
  await settings.start();
  settings.on('database', (options) => tuned.set(options));
  const state = new State({
    store, definitions, schemas, settings, relations, models, latest: () => revisions.latest(), log,
    exclusive: (fn) => exclusively(`${prefix}:lease:state-import`, 10_000, 'A state import', fn),
  });
  registry.add(...configRoutes({ settings }), ...stateRoutes({ state }), ...docsRoutes(() => registry.all(), VERSION));
  const limits = new RateLimits(redisRateCounter(redis, prefix), parseRateLimits(config.ROUTER_RATE_LIMITS));
  settings.on('router', (router) => limits.update(effectiveRateLimits(router.rateLimits)));
  const metrics = new Metrics({ latest: () => revisions.latest(), applied: () => revisions.applied(), pending: async () => (await changeLog.pending()).length });
  checks.onDecision = (allowed, cached) => metrics.decision(allowed, cached);
  registry.add(...metricsRoutes({ metrics }));
  const pipeline = new Pipeline(registry, {
    auth, clientAuth, limits, log, checkReplies: config.CHECK_REPLIES, maxInputBytes: bytesOf(config.BODY_LIMIT),
    enabled: (t) => (t === 'rest' ? true : settings.get('core').transports[t]),
  });
  const http = {
    pipeline, log, bodyLimit: config.BODY_LIMIT, trustProxy: config.TRUST_PROXY,
    observe: (surface: string, method: string, route: string, status: number, seconds: number) => metrics.request(surface, method, route, status, seconds),
  };
  const adminGraphql = graphqlEndpoint({ surface: 'admin', pipeline, log, version: async () => 'routes', build: async () => adminSchema(pipeline) });
  const clientGraphql = graphqlEndpoint({
    surface: 'client', pipeline, log, version: () => schemas.version(),
    build: async () => {
      const all = await schemas.records();
      const { skipped } = usableSchemas(all);
      if (skipped.length) log.warn({ schemas: skipped }, 'schemas left out of GraphQL: their generated names clash');
      return clientSchema(all, pipeline);
    },
  });
  const routes = () => registry.all();
  const toolServer = mountToolServer({
    pipeline, version: VERSION, configModules: MODULE_NAMES,
    docs: [{
      uri: 'service://docs/guide', name: 'guide', mimeType: 'text/markdown', description: 'How to authenticate and call the API, and every route',
      read: async () => usageGuide(routes()),
    }, {
      uri: 'service://docs/admin-api', name: 'admin-api', mimeType: 'application/json', description: 'OpenAPI 3.1 document of the admin surface',
      read: async () => JSON.stringify(openApiDocument('admin', routes(), VERSION)),
    }, {
      uri: 'service://docs/client-api', name: 'client-api', mimeType: 'application/json', description: 'OpenAPI 3.1 document of the client surface',
      read: async () => JSON.stringify(openApiDocument('client', routes(), VERSION)),
    }, {
      uri: 'service://docs/admin-api/swagger', name: 'admin-api-swagger', mimeType: 'text/html',
      description: 'Swagger UI page of the admin surface (served at {admin}/docs)', read: async () => swaggerPage('admin'),
    }],
  });
  const adminApp = createHttpApp('admin', http, [adminGraphql, toolServer, mountSwaggerAssets]);
  const clientApp = createHttpApp('client', http, [clientGraphql, mountSwaggerAssets]);
  const servers: Server[] = [];
  const limitsOfSockets = { maxBuffered: bytesOf(config.SOCKET_MAX_BUFFER), heartbeatMs: config.SOCKET_HEARTBEAT_MS };
  const grpc = new GrpcTransport({
    pipeline, activity, host: config.HOST, port: config.GRPC_PORT, maxMessageBytes: bytesOf(config.BODY_LIMIT),
    ready: async () => (await health.ready()).status === 'ready',
  });
  const realtime = new RealtimeTransport({
    ...limitsOfSockets, pipeline, watch, host: config.HOST, port: config.SOCKET_PORT, trustProxy: config.TRUST_PROXY,
    maxMessageBytes: bytesOf(config.BODY_LIMIT), maxSubscriptions: config.SOCKET_MAX_SUBSCRIPTIONS, liveCheckMs: 5000,
  });
  const adminFeed = adminFeedSocket({ ...limitsOfSockets, pipeline, activity, trustProxy: config.TRUST_PROXY });

  // The lean table answers the checks; every other request goes to Express.
  const listenOn = (app: typeof adminApp, lean: ReturnType<typeof leanRoutes>, port: number, upgrade?: typeof adminFeed.upgrade) => new Promise<number>((resolve, reject) => {
    const server = createServer((req, res) => { if (!lean(req, res)) app(req, res); });
    if (upgrade) server.on('upgrade', upgrade);
    server.once('error', reject);
    server.listen(port, config.HOST, () => {
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
    servers.push(server);
  });

  return {
    registry,
    log,
    async listen() {
      const admin = await listenOn(adminApp, leanRoutes('admin', http), config.ADMIN_PORT, adminFeed.upgrade);
      const client = await listenOn(clientApp, leanRoutes('client', http), config.CLIENT_PORT);
      const socket = await realtime.start();
      return [{ name: 'admin', port: admin }, { name: 'client', port: client }, { name: 'socket', port: socket }, { name: 'grpc', port: await grpc.start() }];
    },
    async close() {
      // Stop taking connections and let requests in flight finish (bounded), then stop the background work;
      // what is left in the outbox is applied at the next start.
      adminFeed.stop();
      await Promise.all([grpc.stop(), realtime.stop()]);
      await Promise.all(servers.map((s) => new Promise<void>((r) => {
        s.close(() => r());
        s.closeIdleConnections();
        setTimeout(() => s.closeAllConnections(), 5000).unref();
      })));
      await rebuilds.stop();
      await applier.stop();
      settings.stop();
      await bus.stop();
      await Promise.allSettled([mongo.close(), neo.close(), closeRedis(redis)]);
    },
  };
}

// Starts the real service in-process against the test stack, on free ports, with a fresh database.
import { randomBytes } from 'node:crypto';
import { createApp, portOf, type App, type AppOptions, type Listener } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { memoryBackend, memoryStores, type MemoryBackend } from '../../src/stores/memory/stores.js';
import { establishBus } from '../../src/stores/memory/invalidation-bus.js';
import type { Stores } from '../../src/stores/ports/stores.js';
import { openPeer, type Peer } from './peer.js';

export interface TestService {
  app: App;
  config: Config;
  admin: string;
  client: string;
  /** Every listener, with the address it is bound to. */
  listeners: Listener[];
  /** host:port of the gRPC listener; the realtime socket's ws:// URL. */
  grpc: string;
  socket: string;
  http(method: string, path: string,
    opts?: { body?: unknown; headers?: Record<string, string>; raw?: string }): Promise<{ status: number; body: any; text: string; headers: Headers }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  asAdmin: Record<string, string>;
  /** A second process's view of this service's leases and pending re-indexes (test/support/peer.ts); close it after. */
  peer(): Promise<Peer>;
  stop(): Promise<void>;
}

/** Empties the shared servers: each test file starts from nothing. */
export async function wipe(urls: { MONGO_URL: string; NEO4J_URI: string; REDIS_URL: string }) {
  // The drivers load here, not at import: a file on the twins never loads them (seconds per file).
  const [{ MongoClient }, { default: neo4j }, { Redis }, redisBus, { COLLECTIONS }] = await Promise.all([import('mongodb'), import('neo4j-driver'), import('ioredis'),
    import('../../src/stores/redis/invalidation-bus.js'), import('../../src/stores/mongo/connection.js')]);
  const mongo = new MongoClient(urls.MONGO_URL);
  await mongo.connect();
  // The service's own collections are emptied, not dropped: a start creates them and their indexes again when they are
  // gone, about 0.9 s of FerretDB's and PostgreSQL's time a start (a start took 1.75 s after a drop, 0.8 s without).
  // Any other collection (the database module's, a test's) is dropped.
  const own = new Set<string>(Object.values(COLLECTIONS));
  const db = mongo.db();
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    await (own.has(name) ? db.collection(name).deleteMany({}) : db.dropCollection(name));
  }
  await mongo.close();
  const driver = neo4j.driver(urls.NEO4J_URI);
  let deleted = 1;
  while (deleted > 0) {
    const r = await driver.executeQuery('MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS c');
    deleted = Number(r.records[0]!.get('c'));
  }
  await driver.close();
  const redis = new Redis(urls.REDIS_URL);
  await redis.flushdb();
  // A Redis emptied here lost no member set: the services' first definition need not wait out a bus lease.
  await redisBus.establishBus(redis, 'authz');
  redis.disconnect();
}

/** The real adapters of file bytes (local disk or S3) and mail (SMTP). */
async function realIo(): Promise<Pick<Stores, 'fileStorage' | 'mailer'>> {
  const [{ openFileStorage }, { smtpMailer }] = await Promise.all([import('../../src/stores/files/open.js'), import('../../src/stores/mail/smtp.js')]);
  return { fileStorage: openFileStorage, mailer: smtpMailer };
}

/** The in-memory servers of this test file's services (TEST_STORES=memory or `memory: true`): a wipe starts new ones. */
let backend: MemoryBackend | null = null;

/** The in-memory servers the last twin service started on, for a test that reads the stored state as a MongoDB client would. */
export const memoryBackendInUse = (): MemoryBackend | null => backend;

/**
 * `spanExporter`: tracing on, each span handed to it as it ends. `memory`: the service runs on the in-memory twins
 * (TEST_STORES=memory makes it the default), with no server; `wipe: false` then keeps the previous service's state.
 * `realIo`: on the twins too, file bytes and mail go through the real adapters (local disk or S3, SMTP), which need no
 * store server: for a test that looks at what the storage directory holds, or talks to a test SMTP server.
 * `wrapStores`: on the twins, the stores the service gets, made from the twins (a store slowed down, say).
 */
export async function startService(env: Record<string, string> = {},
  opts: { wipe?: boolean; logLines?: string[]; memory?: boolean; realIo?: boolean; wrapStores?: (s: Stores) => Stores } & AppOptions = {}): Promise<TestService> {
  if (opts.memory ?? process.env.TEST_STORES === 'memory') {
    if (opts.wipe !== false || !backend) {
      backend = memoryBackend();
      establishBus(backend.hub, env.REDIS_PREFIX ?? 'authz');
    }
    const twins = memoryStores(backend, env.REDIS_PREFIX);
    // Loaded only then: the S3 SDK and nodemailer cost a file that never uses them a few hundred milliseconds.
    const stores = opts.realIo ? { ...twins, ...await realIo() } : twins;
    return serve(env, { ...opts, stores: opts.wrapStores ? opts.wrapStores(stores) : stores }, backend);
  }
  const urls = { MONGO_URL: process.env.MONGO_URL!, NEO4J_URI: process.env.NEO4J_URI!, REDIS_URL: process.env.REDIS_URL! };
  if (opts.wipe !== false) await wipe(urls);
  return serve({ ...urls, ...env }, opts);
}

async function serve(env: Record<string, string>, opts: { logLines?: string[] } & AppOptions, memory: MemoryBackend | null = null): Promise<TestService> {
  const config = loadConfig({
    ADMIN_PORT: '0',
    CLIENT_PORT: '0',
    GRPC_PORT: '0',
    SOCKET_PORT: '0',
    MASTER_KEY: randomBytes(24).toString('hex'),
    ADMIN_PASSWORD: 'test-admin-password',
    ADMIN_JWT_SECRET: randomBytes(32).toString('hex'),
    CLIENT_JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    CHECK_REPLIES: '1',
    // The global setup warmed this worker's Neo4j once; planning every statement again took 3-5 s of its CPU a start.
    NEO4J_WARM_PLANS: '0',
    // The test's fetch shares the service's event loop: a loop blocked past the idle limit (a slow import, a long
    // synchronous step) sends a request on a socket whose close is due before it is read, and fetch fails with ECONNRESET.
    HTTP_KEEP_ALIVE_MS: '120000',
    ...env,
  });
  const app = await createApp(config, createLogger(config.LOG_LEVEL, opts.logLines ? { write: (l) => {
    opts.logLines!.push(l);
  } } : undefined), { spanExporter: opts.spanExporter, stores: opts.stores });
  const listeners = await app.listen();
  const admin = `http://127.0.0.1:${portOf(listeners, 'admin')}`;
  const client = `http://127.0.0.1:${portOf(listeners, 'client')}`;
  const grpc = `127.0.0.1:${portOf(listeners, 'grpc')}`;
  const socket = `ws://127.0.0.1:${portOf(listeners, 'socket')}/realtime`;
  const asAdmin = { masterkey: config.MASTER_KEY };
  return {
    app,
    config,
    admin,
    client,
    grpc,
    socket,
    asAdmin,
    listeners,
    async http(method, path, o = {}) {
      const base = path.startsWith('http') ? '' : admin;
      const res = await fetch(base + path, {
        method,
        headers: { ...(o.body !== undefined || o.raw ? { 'content-type': 'application/json' } : {}), ...(o.headers ?? asAdmin) },
        body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)),
      });
      const text = await res.text();
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch { /* text reply */ }
      return { status: res.status, body, text, headers: res.headers };
    },
    peer: () => openPeer({ backend: memory, redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX }),
    stop: () => app.close(),
  };
}

// Reads the service configuration from the environment, with the defaults of DESIGN.md section 3.
import { z } from 'zod';

/** STATE_IMPORT_LIMIT's default (also what the offline API documents name). */
export const STATE_IMPORT_LIMIT = '1gb';
const port = (d: number) => z.coerce.number().int().min(0).max(65535).default(d);
const optionalText = z.string().optional().transform((v) => (v ? v : undefined));
const flag = z.string().optional().transform((v) => v !== undefined && v !== '' && v !== '0' && v !== 'false');
/** As `flag`, but on unless set to `0` or `false`. */
const flagOn = z.string().optional().transform((v) => v !== '0' && v !== 'false');

const LOOPBACK = '127.0.0.1';

const schema = z.object({
  CLIENT_PORT: port(3000),
  ADMIN_PORT: port(3030),
  /** The realtime socket (ws, path /realtime). */
  SOCKET_PORT: port(3001),
  GRPC_PORT: port(55152),
  /** Deprecated: the address of both surfaces when ADMIN_HOST or CLIENT_HOST is not set. */
  HOST: optionalText,
  /** The operator surfaces (admin HTTP and gRPC): loopback unless told, so they are never exposed by accident. */
  ADMIN_HOST: optionalText,
  /** The application surfaces (client HTTP and the realtime socket). */
  CLIENT_HOST: optionalText,
  /** Origins browsers may call the client surface from (CORS), comma-separated; none by default. The admin surface allows none. */
  CORS_ORIGINS: z.string().default('').transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .refine((list) => list.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)), 'origins such as https://app.example.com (scheme, host, port; no path), or *'),
  MONGO_URL: z.string().default('mongodb://127.0.0.1:27017/authz'),
  /** A MongoDB call on a server that stops answering without closing the connection fails (503) after this long. */
  MONGO_SOCKET_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  NEO4J_URI: z.string().default('bolt://127.0.0.1:7687'),
  NEO4J_USER: z.string().default('neo4j'),
  NEO4J_PASSWORD: z.string().default(''),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z.string().default('authz'),
  MASTER_KEY: z.string().min(16, 'MASTER_KEY must be at least 16 characters'),
  ADMIN_USERNAME: z.string().min(1).default('admin'),
  ADMIN_PASSWORD: z.string().min(8, 'ADMIN_PASSWORD must be at least 8 characters'),
  ADMIN_JWT_SECRET: z.string().min(32, 'ADMIN_JWT_SECRET must be at least 32 characters'),
  CLIENT_JWT_SECRET: z.string().min(32, 'CLIENT_JWT_SECRET must be at least 32 characters'),
  ADMIN_JWT_TTL_SECONDS: z.coerce.number().int().positive().default(12 * 3600),
  CLIENT_ACCESS_TTL_SECONDS: z.coerce.number().int().positive().default(15 * 60),
  CLIENT_REFRESH_TTL_SECONDS: z.coerce.number().int().positive().default(30 * 24 * 3600),
  READY_CHECK_REDIS: flag,
  READY_REQUIRED_MODULES: z.string().default('').transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
  /** Largest request body (and, on gRPC and the socket, message): `512kb`, `1mb` or a number of bytes. */
  BODY_LIMIT: z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, 'a size such as 512kb or 1mb').default('1mb'),
  /** The largest state import (`POST /state/import`, JSON or NDJSON, streamed to a temporary file and checked there). */
  STATE_IMPORT_LIMIT: z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, 'a size such as 512mb or 1gb').default(STATE_IMPORT_LIMIT),
  /** Express "trust proxy": behind a reverse proxy, set it so rate limits count the client's address, not the proxy's. */
  TRUST_PROXY: z.string().default('').transform((v): boolean | number | string => v === '' || v === 'false' ? false : v === 'true' ? true : /^\d+$/.test(v) ? Number(v) : v),
  /** JSON of the router's rateLimits (DESIGN.md 6.1), over the defaults. */
  ROUTER_RATE_LIMITS: z.string().optional(),
  WORKER_ONLY: flag,
  /** Decisions each process keeps in memory in front of the Redis cache (0: none); see the README on consistency. */
  LOCAL_DECISIONS: z.coerce.number().int().min(0).default(100_000),
  /**
   * Partitions of index work: units on disjoint partitions run at once in different processes. The first process to
   * start on a Redis fixes the number for all (see README); a process asking for another one uses it and says so.
   */
  INDEX_PARTITIONS: z.coerce.number().int().min(1).max(256).default(8),
  INDEX_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
  /**
   * How long a process's index leases outlive it: after a crash, other processes (or the restarted one) take over its
   * index work after this. Its heartbeat lives two thirds of it. Shorter means a faster takeover, and a process paused
   * longer than this (a GC, a frozen VM) losing its lease, which fails its unit, to be replayed.
   */
  LEASE_TTL_MS: z.coerce.number().int().min(2000).max(600_000).default(15_000),
  /** How long a read that must see a revision (at_least_as_fresh, fully_consistent) waits for the index before 503 INDEX_BEHIND. */
  FRESHNESS_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  /** How long the HTTP listeners keep an idle keep-alive connection (Node keeps it a second past the advertised time). */
  HTTP_KEEP_ALIVE_MS: z.coerce.number().int().min(1000).max(600_000).default(5000),
  /** Object lists up to this long are read whole and cached for paging; longer ones are counted and paged in the index. */
  LIST_WHOLE: z.coerce.number().int().min(0).default(10_000),
  /** Decision subscriptions one realtime socket may hold. */
  SOCKET_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** Bytes queued for a socket client that does not read before it is closed (code 4008). */
  SOCKET_MAX_BUFFER: z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i).default('1mb'),
  /** The largest message a realtime socket client may send (at most BODY_LIMIT); larger ones close it with 1009. */
  SOCKET_MAX_MESSAGE: z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i).default('128kb'),
  /** Realtime sockets one user may hold open at once. */
  SOCKET_MAX_PER_USER: z.coerce.number().int().min(1).max(1000).default(10),
  /** How often a realtime socket asks whether its token was revoked: a logout closes it (4001) within this. */
  SOCKET_LIVE_CHECK_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  SOCKET_HEARTBEAT_MS: z.coerce.number().int().min(100).default(15_000),
  /** Input shape limits every call is held to on every transport (README, "Limits"). */
  LIMIT_STRING_BYTES: z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i).default('64kb'),
  LIMIT_ARRAY_ITEMS: z.coerce.number().int().min(1).default(10_000),
  LIMIT_OBJECT_KEYS: z.coerce.number().int().min(1).default(1000),
  LIMIT_JSON_DEPTH: z.coerce.number().int().min(2).max(256).default(32),
  /** GraphQL documents: nesting depth, aliases, lexical tokens, directives and cost (graphql-armor's cost model). */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(30),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(10).default(2000),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).default(20),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(5000),
  /** Failed admin authentications one address may make per minute before it is refused (429) for the rest of it. */
  ADMIN_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /**
   * Plans every Cypher statement (EXPLAIN) at start, so the first calls after a start do not wait for a cold planner
   * (a first subject list took 3.3-3.6 s on a fresh Neo4j, 0.4-0.5 s after). Off saves those seconds of Neo4j CPU at
   * each start, for processes restarted often against a Neo4j that is warm already (the test suite's).
   */
  NEO4J_WARM_PLANS: flagOn,
  /** Checks every JSON reply against its route's registered output schema; a mismatch is a 500 (the test suite runs with it on). */
  CHECK_REPLIES: flag,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Tracing is off unless one of these is set: the OTLP/HTTP collector (`http://collector:4318`; spans go to `/v1/traces`), or the traces URL itself. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /** The `service.name` spans carry. */
  OTEL_SERVICE_NAME: z.string().min(1).default('authz-graph'),
}).transform((c) => ({ ...c, ADMIN_HOST: c.ADMIN_HOST ?? c.HOST ?? LOOPBACK, CLIENT_HOST: c.CLIENT_HOST ?? c.HOST ?? LOOPBACK }));

export type Config = z.infer<typeof schema>;

/** Parses `env`; throws one readable error listing every bad variable (never echoing values). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The input shape limits of the pipeline, from the LIMIT_* settings. */
export const inputLimitsOf = (c: Config) => ({
  stringBytes: bytesOf(c.LIMIT_STRING_BYTES),
  arrayItems: c.LIMIT_ARRAY_ITEMS,
  objectKeys: c.LIMIT_OBJECT_KEYS,
  depth: c.LIMIT_JSON_DEPTH,
});

/** The GraphQL document limits, from the GRAPHQL_MAX_* settings. */
export const graphqlLimitsOf = (c: Config) => ({
  depth: c.GRAPHQL_MAX_DEPTH,
  aliases: c.GRAPHQL_MAX_ALIASES,
  tokens: c.GRAPHQL_MAX_TOKENS,
  directives: c.GRAPHQL_MAX_DIRECTIVES,
  cost: c.GRAPHQL_MAX_COST,
});

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A size as BODY_LIMIT writes it (`1mb`), in bytes, the way Express's body parser reads it. */
export function bytesOf(size: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(size.trim());
  if (!m) throw new Error(`not a size: ${size}`);
  return Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]!);
}

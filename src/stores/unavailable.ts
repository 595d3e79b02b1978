// Tells a store outage (MongoDB, Neo4j or Redis unreachable) from a bug, so the surfaces answer 503, not 500.
const NEO4J_CODES = new Set(['ServiceUnavailable', 'SessionExpired']);
const MONGO_NAMES = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoNotConnectedError',
  'MongoTopologyClosedError', 'MongoPoolClearedError']);
const REDIS_MESSAGES = [/Connection is closed/, /Stream isn't writeable/, /Reached the max retries per request limit/, /ECONNREFUSED/,
  /the lease .* stayed taken/, /the lease .* was lost/, /Command timed out/];

export function storeUnavailable(e: unknown): string | null {
  if (!e || typeof e !== 'object') return null;
  const err = e as { code?: unknown; name?: string; message?: string };
  if (typeof err.code === 'string' && (NEO4J_CODES.has(err.code) || err.code.startsWith('Neo.TransientError.'))) return 'Neo4j';
  if (err.name && MONGO_NAMES.has(err.name)) return 'MongoDB';
  if (err.name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((re) => re.test(err.message ?? ''))) return 'Redis';
  return null;
}

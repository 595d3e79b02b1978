// Tells a store outage (MongoDB, Neo4j or Redis unreachable) from a bug, so the surfaces answer 503, not 500.
const NEO4J_CODES = new Set(['ServiceUnavailable', 'SessionExpired']);
/**
 * The driver's errors for a server it cannot reach or that stopped answering. A pool cleared by a failed connection
 * (PoolClearedOnNetworkError, seen when a handshake timed out) fails the calls waiting on it with a name of its own.
 */
const MONGO_NAMES = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoNotConnectedError', 'MongoTopologyClosedError',
  'MongoPoolClearedError', 'PoolClearedOnNetworkError', 'MongoPoolClosedError', 'MongoWaitQueueTimeoutError', 'MongoServerClosedError']);
/**
 * FerretDB answers with InternalError (code 1) when its PostgreSQL is down, restarting or recovering: pgx's
 * connection failures and PostgreSQL's admin-shutdown, startup and connection-failure states (SQLSTATE 57P0x, 08xxx).
 */
const FERRET_STORAGE_DOWN = [/failed to connect to/, /dial error/, /connection refused/, /unexpected EOF/, /conn closed/, /connection reset by peer/, /broken pipe/,
  /terminating connection/, /the database system is/, /SQLSTATE (57P0\d|08\w{3})/, /failed to (receive|write|deallocate)/, /context deadline exceeded/];
const REDIS_MESSAGES = [/Connection is closed/, /Stream isn't writeable/, /Reached the max retries per request limit/, /ECONNREFUSED/, /the lease .* stayed taken/,
  /the lease .* was lost/, /Command timed out/];

/** Node's own errors for a connection the other end closed or never answered (the Mongo driver may pass one on as it is). */
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT']);
const isSocketError = (e: unknown) =>
  Boolean(e && typeof e === 'object' && (SOCKET_CODES.has(String((e as { code?: unknown }).code))
    || /This socket has been ended by the other party|socket hang up/.test(String((e as { message?: unknown }).message))));

export function storeUnavailable(e: unknown, depth = 0): string | null {
  if (!e || typeof e !== 'object') return null;
  const err = e as { code?: unknown; name?: string; message?: string; cause?: unknown; errorResponse?: unknown };
  if (typeof err.code === 'string' && (NEO4J_CODES.has(err.code) || err.code.startsWith('Neo.TransientError.'))) return 'Neo4j';
  if (err.name && MONGO_NAMES.has(err.name)) return 'MongoDB';
  if (err.code === 1 && /^Mongo/.test(err.name ?? '') && FERRET_STORAGE_DOWN.some((re) => re.test(err.message ?? ''))) return 'MongoDB';
  // A commit whose mark in Redis failed, whatever Redis answered (LOADING, READONLY, OOM, a lost connection).
  if (err.name === 'CommitUnconfirmed') return 'Redis';
  if (err.name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((re) => re.test(err.message ?? ''))) return 'Redis';
  // The driver wraps a connection lost mid-insertMany in a MongoBulkWriteError (the network error is its errorResponse),
  // which may be Node's socket error itself (FerretDB killed during the write: "This socket has been ended ...").
  if (depth >= 3) return null;
  const inner = storeUnavailable(err.cause, depth + 1) ?? storeUnavailable(err.errorResponse, depth + 1);
  if (inner) return inner;
  return /^Mongo/.test(err.name ?? '') && [err.cause, err.errorResponse].some(isSocketError) ? 'MongoDB' : null;
}

/**
 * Whether a failed MongoDB call is over for good: FerretDB answered that its PostgreSQL failed (refused, restarting, or
 * died under the statement), so what the call wrote is stored or not now and cannot land later. A timeout, a closed
 * socket or a failed server selection tells nothing of the kind: a hung server may still apply the call when it resumes.
 */
/**
 * Of FERRET_STORAGE_DOWN, the answers that leave no statement running: PostgreSQL refused the connection, was starting or
 * stopping, or terminated the backend (its postmaster gone). A connection lost mid-statement (EOF, reset, broken pipe),
 * which a proxy can cause while PostgreSQL still finishes a COMMIT, and FerretDB's own deadline are not among them.
 */
const SETTLED_STORAGE_DOWN = [/failed to connect to/, /dial error/, /connection refused/, /terminating connection/, /the database system is/];

export function outcomeSettled(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== 'object' || depth > 2) return false;
  const err = e as { name?: string; code?: unknown; message?: string; errorResponse?: unknown };
  const storageAnswer = err.code === 1 && SETTLED_STORAGE_DOWN.some((re) => re.test(err.message ?? ''));
  if (err.name === 'MongoServerError') return storageAnswer;
  // An insertMany's answer comes wrapped (its errorResponse).
  return err.name === 'MongoBulkWriteError' && (storageAnswer || outcomeSettled(err.errorResponse, depth + 1));
}

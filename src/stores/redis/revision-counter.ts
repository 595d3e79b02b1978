// The revision counter in Redis and the set of revisions not yet applied, so a fully consistent read costs one round trip.
import type { Redis } from 'ioredis';
import type { Frontier, RevisionCounter } from '../ports/change-log.js';

const RAISE = `local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if v < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 0`;
// The pending set holds revisions (score = revision) and one mark (score 0) naming the Redis server run it was
// rebuilt under: lost with the set, and different after a restart, so a set emptied by a loss or eviction, or
// restored from an older snapshot, is never taken for complete.
const MARK = `local m = redis.call('ZRANGEBYSCORE', KEYS[2], 0, 0, 'LIMIT', 0, 1)[1] or ''`;
// KEYS: counter, pending. Returns the revision, marked pending.
const TAKE = `local r = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], r, tostring(r))
return r`;
// KEYS: counter, pending. ARGV: the server's run id. Returns {latest, oldest pending or ''}, or nil when the set
// is not known complete.
const FRONTIER = `local c = redis.call('GET', KEYS[1])
${MARK}
if not c or m ~= ARGV[1] then return nil end
local o = redis.call('ZRANGEBYSCORE', KEYS[2], '(0', '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return {c, o[2] or ''}`;
// KEYS: counter, pending. ARGV: the server's run id, revisions pending in the durable store.
const REBUILD = `for i = 2, #ARGV do redis.call('ZADD', KEYS[2], ARGV[i], ARGV[i]) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], 0, 0)
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 0`;

export function redisRevisionCounter(redis: Redis, prefix: string): RevisionCounter {
  const key = `${prefix}:revision`;
  const pending = `${prefix}:pending-revisions`;
  // The run id of the server this connection reached last; unknown (the set untrusted) from each reconnection
  // until read again. A server restarted from a snapshot has a new one.
  let runId: Promise<string | null> = Promise.resolve(null);
  const readRunId = () => {
    runId = redis.info('server').then((text) => /run_id:(\w+)/.exec(text)?.[1] ?? null, () => null);
  };
  redis.on('ready', readRunId);
  redis.on('close', () => {
    runId = Promise.resolve(null);
  });
  if (redis.status === 'ready') readRunId();
  const currentRun = async () => (await runId) ?? (readRunId(), await runId);
  return {
    next: () => redis.incr(key),
    take: async () => Number(await redis.eval(TAKE, 2, key, pending)),
    // A confirmation is its own member: `heal` may drop a take-mark whose writer has not inserted yet, and that
    // drop must not take away the confirmation the writer adds once it has.
    async confirm(revision) {
      await redis.zadd(pending, revision, `c${revision}`);
    },
    async settle(revisions) {
      if (revisions.length) await redis.zrem(pending, ...revisions.flatMap((r) => [String(r), `c${r}`]));
    },
    async dropMarks(members) {
      if (members.length) await redis.zrem(pending, ...members);
    },
    async frontier(): Promise<Frontier | null> {
      const run = await currentRun();
      if (run === null) return null;
      const r = await redis.eval(FRONTIER, 2, key, pending, `run:${run}`) as [string, string] | null;
      return r ? { latest: Number(r[0]), oldest: r[1] === '' ? null : Number(r[1]) } : null;
    },
    async marked(upTo, limit) {
      return (await redis.zrangebyscore(pending, '(0', upTo, 'LIMIT', 0, limit))
        .map((member) => ({ member, revision: Number(member.startsWith('c') ? member.slice(1) : member) }));
    },
    async rebuild(revisions) {
      const run = await currentRun();
      if (run !== null) await redis.eval(REBUILD, 2, key, pending, `run:${run}`, ...revisions.map(String));
    },
    async raise(floor) {
      await redis.eval(RAISE, 1, key, String(floor));
    },
    async current() {
      return Number((await redis.get(key)) ?? 0);
    },
  };
}

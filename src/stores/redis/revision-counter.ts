// The revision counter in Redis and the set of revisions not yet applied, so a fully consistent read costs one round trip.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Frontier, RevisionCounter } from '../ports.js';

const RAISE = `local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if v < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 0`;
// The pending set holds revisions (score = revision) and one mark (score 0) naming the rebuild it is complete since:
// lost together with the set, so a set emptied by a Redis loss or eviction is never taken for "nothing pending".
const MARK = `local m = redis.call('ZRANGEBYSCORE', KEYS[2], 0, 0, 'LIMIT', 0, 1)[1] or ''`;
// KEYS: counter, pending. Returns the revision, marked pending.
const TAKE = `local r = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], r, tostring(r))
return r`;
// KEYS: counter, pending. Returns {latest, oldest pending or ''}, or nil when the set is not known complete.
const FRONTIER = `local c = redis.call('GET', KEYS[1])
${MARK}
if not c or m == '' then return nil end
local o = redis.call('ZRANGEBYSCORE', KEYS[2], '(0', '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return {c, o[2] or ''}`;
// KEYS: counter, pending. ARGV: new mark, revisions pending in the durable store.
const REBUILD = `for i = 2, #ARGV do redis.call('ZADD', KEYS[2], ARGV[i], ARGV[i]) end
${MARK}
if m == '' then redis.call('ZADD', KEYS[2], 0, ARGV[1]) end
return 0`;

export function redisRevisionCounter(redis: Redis, prefix: string): RevisionCounter {
  const key = `${prefix}:revision`;
  const pending = `${prefix}:pending-revisions`;
  return {
    next: () => redis.incr(key),
    take: async () => Number(await redis.eval(TAKE, 2, key, pending)),
    // A confirmation is its own member: `heal` may drop a take-mark whose writer has not inserted yet, and that
    // drop must not take away the confirmation the writer adds once it has.
    async confirm(revision) { await redis.zadd(pending, revision, `c${revision}`); },
    async settle(revisions) { if (revisions.length) await redis.zrem(pending, ...revisions.flatMap((r) => [String(r), `c${r}`])); },
    async dropMarks(members) { if (members.length) await redis.zrem(pending, ...members); },
    async frontier(): Promise<Frontier | null> {
      const r = await redis.eval(FRONTIER, 2, key, pending) as [string, string] | null;
      return r ? { latest: Number(r[0]), oldest: r[1] === '' ? null : Number(r[1]) } : null;
    },
    async marked(upTo, limit) {
      return (await redis.zrangebyscore(pending, '(0', upTo, 'LIMIT', 0, limit))
        .map((member) => ({ member, revision: Number(member.startsWith('c') ? member.slice(1) : member) }));
    },
    async rebuild(revisions) { await redis.eval(REBUILD, 2, key, pending, randomUUID(), ...revisions.map(String)); },
    async raise(floor) { await redis.eval(RAISE, 1, key, String(floor)); },
    async current() { return Number((await redis.get(key)) ?? 0); },
  };
}

// What processes coordinate through on one Redis (index leases, the partition count, pending re-indexes), with the
// key names in one place: the composition builds them for the service, and a second process (a test's peer) the same.
import type { Redis } from 'ioredis';
import { fixedPartitions } from './index-partitions.js';
import { Lease } from './lease.js';
import { redisReindexState } from './reindex-state.js';

export function redisCoordination(redis: Redis, prefix: string) {
  return {
    lease: (name: string, ttlMs?: number) => new Lease(redis, `${prefix}:lease:${name}`, ttlMs),
    /** How many partitions index work is split into: `wanted`, unless a process on this Redis fixed another number. */
    indexPartitions: (wanted: number) => fixedPartitions(redis, prefix, wanted),
    /** Definition changes still being re-indexed, so every process answers their types from the projection. */
    reindexState: redisReindexState(redis, prefix),
  };
}

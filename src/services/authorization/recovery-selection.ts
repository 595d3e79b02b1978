// Which pending entries a recovery pass takes over, and what it applies of them: apart from the applier that runs the passes.
import type { ChangeEntry, ChangeLog, PendingRecord } from '../../stores/ports/change-log.js';

/** A writer applies its own entry right after its MongoDB change (which may be slow): only older ones of its own are recovered. */
export const OWN_GRACE_MS = 30_000;

/**
 * Which listed pending entries a recovery pass takes over: those of writers whose heartbeat expired, and
 * this process's own that failed or were never handed to the applier (older than the grace period).
 * An entry in flight when the list was read is skipped even if it finished since: the list may predate
 * its completion, and re-applying it would read every tuple back from MongoDB for nothing.
 */
export function toRecover(listed: PendingRecord[], s: {
  owner: string;
  busyBefore: ReadonlySet<number>;
  busyNow: ReadonlySet<number>;
  failed: ReadonlySet<number>;
  alive: ReadonlySet<string>;
  now: number;
  /** How old an entry of this process's own must be to be recovered (30 s, or twice LEASE_TTL_MS when that is longer). */
  graceMs?: number;
}): PendingRecord[] {
  const grace = s.graceMs ?? OWN_GRACE_MS;
  return listed.filter((p) =>
    !s.busyBefore.has(p.revision) && !s.busyNow.has(p.revision) && (p.owner === s.owner
      ? s.failed.has(p.revision) || s.now - p.at.getTime() > grace
      : !s.alive.has(p.owner))
  );
}

/**
 * The entries of the records a pass took over. A record without a log entry (its commit failed, or its writer died
 * before the commit point, so nothing was acknowledged) is closed at once with a void: an insert of its entry still on
 * its way then fails and that writer takes another revision. One whose entry won that race is applied instead.
 */
export async function entriesToApply(log: ChangeLog, taken: PendingRecord[], failed: Set<number>): Promise<ChangeEntry[]> {
  const entries = await log.entries(taken.map((p) => p.revision));
  const logged = new Set(entries.map((e) => e.revision));
  const orphans = taken.filter((p) => !logged.has(p.revision)).map((p) => p.revision);
  const late = await log.abandon(orphans);
  for (const r of orphans) if (!late.includes(r)) failed.delete(r);
  return late.length ? [...entries, ...await log.entries(late)] : entries;
}

// The revision counter in memory and the set of revisions not yet applied, on the shared hub (as the Redis one).
import { randomUUID } from 'node:crypto';
import type { Frontier, RevisionCounter } from '../ports/change-log.js';
import type { MemoryHub } from './hub.js';

/**
 * The pending set maps members to revisions: a take-mark `r`, a confirmation `c<r>`, and one mark (revision 0) naming
 * the hub run it was rebuilt under. The run changes when the hub loses its data, so a set emptied by a loss is never
 * taken for complete (the Redis adapter reads the server's run id for the same end).
 */
export function memoryRevisionCounter(hub: MemoryHub, prefix: string): RevisionCounter {
  const key = `${prefix}:revision`;
  const pending = () => hub.struct(`${prefix}:pending-revisions`, () => new Map<string, number>());
  const run = () => `run:${hub.struct(`${prefix}:run`, () => ({ id: randomUUID() })).id}`;
  const bySet = (a: [string, number], b: [string, number]) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return {
    async next() {
      return hub.incr(key);
    },
    async take() {
      const r = hub.incr(key);
      pending().set(String(r), r);
      return r;
    },
    async confirm(revision) {
      pending().set(`c${revision}`, revision);
    },
    async settle(revisions) {
      for (const r of revisions) {
        pending().delete(String(r));
        pending().delete(`c${r}`);
      }
    },
    async dropMarks(members) {
      for (const m of members) pending().delete(m);
    },
    async frontier(): Promise<Frontier | null> {
      const latest = hub.get(key);
      const mark = [...pending()].find(([, r]) => r === 0)?.[0];
      if (latest === null || mark !== run()) return null;
      const oldest = [...pending()].filter(([, r]) => r > 0).sort(bySet)[0];
      return { latest: Number(latest), oldest: oldest ? oldest[1] : null };
    },
    async marked(upTo, limit) {
      return [...pending()].filter(([, r]) => r > 0 && r <= upTo).sort(bySet).slice(0, limit)
        .map(([member, revision]) => ({ member, revision }));
    },
    async rebuild(revisions) {
      const set = pending();
      for (const r of revisions) set.set(String(r), r);
      for (const [m, r] of [...set]) if (r === 0) set.delete(m);
      set.set(run(), 0);
    },
    async raise(floor) {
      if (Number(hub.get(key) ?? 0) < floor) hub.set(key, String(floor));
    },
    async current() {
      return Number(hub.get(key) ?? 0);
    },
  };
}

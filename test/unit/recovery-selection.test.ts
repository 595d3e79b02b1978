// Which pending entries a recovery pass takes over (the rule, without servers).
import { toRecover } from '../../src/services/authorization/recovery-selection.js';

const now = 1_000_000;
const entry = (revision: number, owner: string, ageMs: number) => ({ revision, owner, at: new Date(now - ageMs) });
const base = { owner: 'me', busyBefore: new Set<number>(), busyNow: new Set<number>(), failed: new Set<number>(), alive: new Set(['other']), now };
const revs = (list: Array<{ revision: number }>) => list.map((p) => p.revision);

describe('recovery selection', () => {
  it('takes entries of dead writers at once, and leaves those of live ones', () => {
    expect(revs(toRecover([entry(1, 'dead', 10), entry(2, 'other', 60_000)], base))).toEqual([1]);
  });
  it('takes own entries only when they failed or were never applied within the grace period', () => {
    const listed = [entry(1, 'me', 10), entry(2, 'me', 10), entry(3, 'me', 31_000)];
    expect(revs(toRecover(listed, { ...base, failed: new Set([2]) }))).toEqual([2, 3]);
  });
  it('waits the grace it is given for own entries (twice a LEASE_TTL_MS longer than 15 s), 30 s otherwise', () => {
    const listed = [entry(1, 'me', 31_000), entry(2, 'me', 61_000)];
    expect(revs(toRecover(listed, base))).toEqual([1, 2]);
    expect(revs(toRecover(listed, { ...base, graceMs: 60_000 }))).toEqual([2]);
  });
  it('skips an old entry that was in flight when the list was read, though it has finished since', () => {
    // A long backlog makes every queued entry older than the grace period; the list is read while
    // entry 5 is being applied, and by the time the pass filters, 5 is done and no longer in flight.
    const listed = [entry(5, 'me', 40_000), entry(6, 'me', 40_000)];
    expect(revs(toRecover(listed, { ...base, busyBefore: new Set([5, 6]), busyNow: new Set([6]) }))).toEqual([]);
    expect(revs(toRecover(listed, { ...base, busyNow: new Set([6]) }))).toEqual([5]);
  });
});

// Which revisions the index has applied: everything below the oldest entry still in the outbox.
import { AppError } from '../../errors.js';
import type { ChangeLog, Frontier } from '../../stores/ports/change-log.js';

const WAIT_MS = 5000;
const POLL_MS = 15;
/** Waiting longer than this, a reader asks MongoDB whether the marks it waits on are left over (see ChangeLog.heal). */
const HEAL_AFTER_MS = 250;

export class Revisions {
  constructor(private readonly log: ChangeLog) {}

  /** The highest revision R such that every change up to R is applied. */
  async applied(): Promise<number> {
    const [oldest, latest] = await Promise.all([this.log.oldestPending(), this.log.latest()]);
    return oldest === null ? latest : oldest - 1;
  }

  latest(): Promise<number> { return this.log.latest(); }

  /**
   * The highest revision R below which nothing is still being written or applied: every revision up to R is in
   * the log or never will be. Redis marks a revision as it is taken, so a writer between taking its revision and
   * recording it holds R below it (MongoDB's pending records stand in while Redis cannot tell).
   */
  async settled(): Promise<number> {
    const f = await this.frontier();
    return f.oldest === null ? f.latest : Math.min(f.latest, f.oldest - 1);
  }

  /**
   * Waits until `revision` (default: the latest, for a fully consistent read) is applied, at most 5 s, else 503
   * INDEX_BEHIND. One Redis round trip when nothing older is pending; MongoDB only while Redis cannot tell.
   */
  async waitFor(revision?: number): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    let healAt = Date.now() + HEAL_AFTER_MS;
    let target = revision;
    for (;;) {
      const f = await this.frontier();
      target ??= f.latest;
      if (f.latest >= target && (f.oldest === null || f.oldest > target)) return;
      const now = Date.now();
      if (now > deadline) {
        const applied = f.oldest === null ? f.latest : f.oldest - 1;
        throw new AppError('INDEX_BEHIND', `The index has applied revision ${applied}, not yet ${target}`);
      }
      if (now > healAt && f.fast) { await this.log.heal(target); healAt = now + HEAL_AFTER_MS; }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private async frontier(): Promise<Frontier & { fast: boolean }> {
    const f = await this.log.frontier();
    if (f) return { ...f, fast: true };
    const [oldest, latest] = await Promise.all([this.log.oldestPending(), this.log.latest()]);
    return { latest, oldest, fast: false };
  }
}

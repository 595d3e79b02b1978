// Which revisions the index has applied: everything below the oldest entry still in the outbox.
import { AppError } from '../../errors.js';
import type { ChangeLog, Frontier } from '../../stores/ports/change-log.js';

const POLL_MS = 15;
/** Waiting longer than this, a reader asks MongoDB whether the marks it waits on are left over (see ChangeLog.heal). */
const HEAL_AFTER_MS = 250;

export class Revisions {
  /** `waitMs`: how long a read that must see a revision waits for the index before 503 INDEX_BEHIND (FRESHNESS_WAIT_MS). */
  constructor(private readonly log: ChangeLog, private readonly waitMs = 5000) {}

  /** The highest revision R such that every change up to R is applied. */
  async applied(): Promise<number> {
    const [oldest, latest] = await Promise.all([this.log.oldestPending(), this.log.latest()]);
    return oldest === null ? latest : oldest - 1;
  }

  latest(): Promise<number> {
    return this.log.latest();
  }

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
   * Waits until `revision` (default: the latest, for a fully consistent read) is applied, at most `waitMs` (5 s by default), else 503
   * INDEX_BEHIND. One Redis round trip when nothing older is pending; MongoDB only while Redis cannot tell.
   * A revision above the latest ever taken was never issued, so no wait could reach it: it is refused at once as
   * 400 VALIDATION_FAILED (bad input, not an index that is behind), rather than holding the request for the whole wait.
   * Readers that must wait join one shared poll loop per process, so many waiters cost one Redis read per tick.
   */
  async waitFor(revision?: number): Promise<void> {
    const f = await this.frontier();
    if (revision !== undefined && revision > f.latest) {
      throw new AppError('VALIDATION_FAILED', `Revision ${revision} was never issued: the latest is ${f.latest}`, [{ path: 'revision',
        message: `at most ${f.latest}, the latest revision issued` }]);
    }
    const target = revision ?? f.latest;
    if (reached(f, target)) return;
    const now = Date.now();
    await new Promise<void>((resolve, reject) => {
      this.waiters.add({ target, deadline: now + this.waitMs, healAt: now + HEAL_AFTER_MS, resolve, reject });
      this.poll ??= setTimeout(() => void this.tick(), POLL_MS);
    });
  }

  private readonly waiters = new Set<Waiter>();
  private poll: NodeJS.Timeout | undefined;

  /** One round of the shared loop: one frontier read answers every waiter; it stops when none is left. */
  private async tick(): Promise<void> {
    try {
      const f = await this.frontier();
      const now = Date.now();
      let heal = -1;
      for (const w of this.waiters) {
        if (reached(f, w.target)) {
          this.waiters.delete(w);
          w.resolve();
        }
        else if (now > w.deadline) {
          this.waiters.delete(w);
          const applied = f.oldest === null ? f.latest : f.oldest - 1;
          w.reject(new AppError('INDEX_BEHIND', `The index has applied revision ${applied}, not yet ${w.target}`));
        } else if (now > w.healAt && f.fast) {
          heal = Math.max(heal, w.target);
          w.healAt = now + HEAL_AFTER_MS;
        }
      }
      if (heal >= 0) await this.log.heal(heal);
    } catch (err) {
      for (const w of this.waiters) w.reject(err);
      this.waiters.clear();
    }
    this.poll = this.waiters.size ? setTimeout(() => void this.tick(), POLL_MS) : undefined;
  }

  private async frontier(): Promise<Frontier & { fast: boolean }> {
    const f = await this.log.frontier();
    if (f) return { ...f, fast: true };
    const [oldest, latest] = await Promise.all([this.log.oldestPending(), this.log.latest()]);
    return { latest, oldest, fast: false };
  }
}

interface Waiter {
  target: number;
  deadline: number;
  healAt: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const reached = (f: Frontier, target: number) => f.latest >= target && (f.oldest === null || f.oldest > target);

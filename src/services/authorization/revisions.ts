// Which revisions the index has applied: everything below the oldest entry still in the outbox.
import { AppError } from '../../errors.js';
import type { ChangeLog } from '../../stores/ports.js';

const WAIT_MS = 5000;
const POLL_MS = 15;

export class Revisions {
  constructor(private readonly log: ChangeLog) {}

  /** The highest revision R such that every change up to R is applied. */
  async applied(): Promise<number> {
    const [oldest, latest] = await Promise.all([this.log.oldestPending(), this.log.latest()]);
    return oldest === null ? latest : oldest - 1;
  }

  latest(): Promise<number> { return this.log.latest(); }

  /** Waits until `revision` is applied, at most 5 s, else 503 INDEX_BEHIND. */
  async waitFor(revision: number): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const [oldest, latest] = await Promise.all([this.log.oldestPending(), this.log.latest()]);
      if (latest >= revision && (oldest === null || oldest > revision)) return;
      if (Date.now() > deadline) {
        const applied = oldest === null ? latest : oldest - 1;
        throw new AppError('INDEX_BEHIND', `The index has applied revision ${applied}, not yet ${revision}`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}

// Keeps the admin tuple search current in the background: index writes leave a tuple's search text to this pass.
import type { Logger } from '../../log.js';
import type { TupleListing } from '../../stores/ports/tuple-listing.js';

/** Tuples one pass makes searchable in one transaction; a full pass is followed by another at once. */
export const CATCH_UP_BATCH = 5000;
/** Between passes that found nothing more to do: an idle pass is one index seek. */
export const CATCH_UP_EVERY_MS = 1000;

/**
 * A write's transaction skips the text index (about 6.5 ms a transaction, paid here once for thousands of tuples).
 * A search catches up by itself before it reads, so this only keeps the backlog short; any process may run it, and
 * two at once set the same text twice.
 */
export class SearchCatchUp {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly listing: TupleListing, private readonly logger: Logger, private readonly everyMs = CATCH_UP_EVERY_MS) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Passes until one finds less than a batch to do. */
  async pass(): Promise<number> {
    let total = 0;
    for (let n = CATCH_UP_BATCH; n === CATCH_UP_BATCH && !this.stopped;) {
      n = await this.listing.catchUp(CATCH_UP_BATCH);
      total += n;
    }
    return total;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass().then(
        (n) => {
          if (n >= CATCH_UP_BATCH) this.logger.debug({ tuples: n }, 'tuple search caught up');
        },
        (e: Error) => this.logger.debug({ err: e.message }, 'tuple search catch-up failed; next pass retries'),
      ).finally(() => this.schedule(this.everyMs));
    }, ms);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}

// Keeps the admin tuple search's text index current in the background: index writes leave new tuples pending for it.
import type { Logger } from '../../log.js';
import { RepeatedWarnings } from '../../log-repeats.js';
import type { TupleListing } from '../../stores/ports/tuple-listing.js';

/** Tuples one transaction puts in the text index: its fixed cost is paid once for all of them, its locks held briefly. */
export const CATCH_UP_BATCH = 1000;
/** Between passes that found nothing more to do: a pass with nothing marked is one index read, with no lease taken. */
export const CATCH_UP_EVERY_MS = 1000;
/** Failed passes in a row after which each one is a warning (an outage fails a few, and the next pass retries). */
const WARN_AFTER_FAILURES = 5;
/**
 * Passes in a row that found the index leases taken, after which the next one waits for them in turn as a unit does:
 * under steady index work they may never all be free at once, and the backlog each search reads would only grow.
 */
export const INSIST_AFTER_PASSES = 10;

/**
 * Runs `work` while no unit of index work runs in any process (holding every index lease), or answers null when the
 * leases stay taken: beside a unit, a batch's locks cost a write a retry of its transaction, about a second. It takes
 * them all at once when they are free; `insist`, it waits for them in turn, as a unit does (units wait behind it).
 */
export type BesideUnits = <T>(work: () => Promise<T>, insist: boolean) => Promise<T | null>;

/**
 * A write's transaction skips the text index (about 6 ms a transaction, paid here once for a thousand tuples). A
 * search also reads the pending tuples, so this only keeps that read short. Each batch runs between units (`beside`),
 * so one process at a time runs one, and a long backlog lets units in between its batches.
 */
export class SearchCatchUp {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private started = false;
  private stopped = false;
  private failures = 0;
  /** Passes in a row that found the leases taken. */
  private starved = 0;
  private readonly warnings: RepeatedWarnings;

  constructor(private readonly listing: TupleListing, private readonly beside: BesideUnits, private readonly logger: Logger, private readonly everyMs = CATCH_UP_EVERY_MS) {
    this.warnings = new RepeatedWarnings(logger);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Batches until one comes back short or the index leases stay taken; none, without a lease, when nothing is marked. */
  async pass(): Promise<number> {
    if (await this.listing.idle()) {
      this.starved = 0; // nothing to do found no lease taken either
      return 0;
    }
    let total = 0;
    for (let n: number | null = CATCH_UP_BATCH; n === CATCH_UP_BATCH && !this.stopped;) {
      n = await this.beside(() => this.listing.catchUp(CATCH_UP_BATCH), this.starved >= INSIST_AFTER_PASSES);
      this.starved = n === null ? this.starved + 1 : 0;
      total += n ?? 0;
    }
    return total;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass().then(() => {
        this.failures = 0;
      }, (e: Error) => {
        this.failures++;
        const fields = { err: e.message, failures: this.failures };
        const message = 'tuple search catch-up failed; the next pass retries (searches still find pending tuples)';
        // A pass a second while a store is down: warned once in a while, with how many were left out.
        if (this.failures >= WARN_AFTER_FAILURES) this.warnings.warn(fields, message);
        else this.logger.debug(fields, message);
      }).finally(() => this.schedule(this.everyMs));
    }, ms);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}

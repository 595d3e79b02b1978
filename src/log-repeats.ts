// Warnings that repeat while a store is down: the first of each kind at once, then at most one a window with a count.
import type { Logger } from './log.js';

/** Kinds remembered at once; past this the oldest is forgotten (a kind's key holds an error message, so it is bounded). */
const MAX_KINDS = 64;

/**
 * A store outage fails every unit of index work and every recovery pass's retry of it, each second: logged one by one,
 * a minute of Neo4j down was 16,692 warnings. Here a kind (the message and the error's text) logs at once, then not
 * again within `windowMs`; the next line of that kind says how many were left out since the last (a count left when the
 * failures stop is not logged: the store's own readiness check says when it is back).
 */
export class RepeatedWarnings {
  private readonly kinds = new Map<string, { at: number; left: number }>();

  // A monotonic clock: a wall clock stepped back would hide a kind for as long as the step.
  constructor(private readonly logger: Logger, private readonly windowMs = 10_000, private readonly now: () => number = () => performance.now()) {}

  warn(fields: Record<string, unknown> & { err?: string }, message: string): void {
    const key = `${message}\n${fields.err ?? ''}`;
    const t = this.now();
    const seen = this.kinds.get(key);
    if (seen && t - seen.at < this.windowMs) {
      seen.left++;
      return;
    }
    this.kinds.delete(key);
    this.kinds.set(key, { at: t, left: 0 });
    if (this.kinds.size > MAX_KINDS) this.kinds.delete(this.kinds.keys().next().value!);
    this.logger.warn(seen?.left ? { ...fields, leftOut: seen.left, sinceMs: t - seen.at } : fields, message);
  }
}

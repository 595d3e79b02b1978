// Runs a use case alone among every process under a lease, answering BUSY when another holds it for too long.
import { AppError } from '../errors.js';
import { LeaseTimeout, type Lease } from '../stores/ports/lease.js';

export type Exclusive = <T>(fn: (held: () => boolean) => Promise<T>) => Promise<T>;

/** `fn` runs holding `lease` (it can ask whether it still does); BUSY when the lease stays taken for `waitMs`. */
export function exclusively(lease: () => Lease, waitMs: number, what: string): Exclusive {
  return async (fn) => {
    const held = lease();
    try {
      await held.acquire(waitMs);
    } catch (e) {
      if (e instanceof LeaseTimeout) throw new AppError('BUSY', `${what} is running in another request; retry when it ends`);
      throw e;
    }
    try {
      return await fn(() => held.held());
    } finally {
      await held.release();
    }
  };
}

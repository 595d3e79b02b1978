// Leases (a named lock held by one process at a time across every process) and process heartbeats.

/** Another holder kept the lease for the whole wait (the store answered: not an outage). */
export class LeaseTimeout extends Error {
  constructor(key: string, ms: number) {
    super(`the lease ${key} stayed taken for ${ms} ms`);
  }
}

/**
 * Leases of a unit of work lapsed while it ran (renewals did not land within their time to live): another process may
 * have interleaved, so the work is failed and done again. Not a bug: the caller answers 503 (retry is safe).
 */
export class LeaseLost extends Error {
  constructor(keys: string[], what: string) {
    super(`the lease ${keys.join(', ')} was lost during ${what}`);
  }
}

/** A lock shared by every process; the holder keeps it renewed, and a holder that dies loses it after its time to live. */
export interface Lease {
  readonly key: string;
  /** One attempt; true when this process now holds the lease. */
  tryAcquire(): Promise<boolean>;
  /** Whether the lease is still known to be ours; false means another process may have held it meanwhile. */
  held(): boolean;
  /** Waits for the lease; throws LeaseTimeout after `timeoutMs`. */
  acquire(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  release(): Promise<void>;
}

/** Marks a process alive while it runs, so others can tell its pending work from a dead process's. */
export interface Heartbeat {
  readonly owner: string;
  start(): void;
  /** Which of these owners are alive now. */
  alive(owners: string[]): Promise<Set<string>>;
  stop(): Promise<void>;
}

/** Waits for a lease by trying it, backing off from 2 to 50 ms; gives up after `timeoutMs` (both adapters wait so). */
export async function acquireByPolling(lease: Pick<Lease, 'tryAcquire'> & { key: string }, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pause = 2;
  while (!(await lease.tryAcquire())) {
    if (signal?.aborted) throw new Error('stopped while waiting for the lease');
    if (Date.now() > deadline) throw new LeaseTimeout(lease.key, timeoutMs);
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 50);
  }
}

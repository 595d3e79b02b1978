// What both lease adapters share: a token per hold, renewed every third of the time to live, and what `held` means.
import { randomUUID } from 'node:crypto';
import { acquireByPolling, type Lease } from './lease.js';

/**
 * A lease over a key-value store: the holder's random token under the key with a time to live, renewed while held; a
 * holder that dies stops renewing, so the lease frees itself after `ttlMs`. An adapter says how to set, renew and free.
 */
export abstract class RenewedLease implements Lease {
  private token: string | null = null;
  private renewer: NodeJS.Timeout | null = null;
  /** When the lease was last known to be ours (acquired or renewed); undefined once a renewal found it taken. */
  private confirmedAt: number | undefined;
  constructor(readonly key: string, protected readonly ttlMs: number) {}

  /** Puts `token` under the key for `ttlMs` unless the key is set; true when it did. */
  protected abstract setIfAbsent(token: string): Promise<boolean>;
  /** Gives the key `ttlMs` more if it still holds `token`; true when it did. */
  protected abstract renew(token: string): Promise<boolean>;
  /** Deletes the key if it still holds `token`: a lease that expired and was taken since stays with its new holder. */
  protected abstract free(token: string): Promise<void>;

  async tryAcquire(): Promise<boolean> {
    const token = randomUUID();
    const at = Date.now();
    if (!(await this.setIfAbsent(token))) return false;
    this.token = token;
    this.confirmedAt = at;
    this.renewer = setInterval(() => {
      const sent = Date.now();
      void this.renew(token).then((renewed) => {
        if (this.token !== token) return;
        this.confirmedAt = renewed ? Math.max(this.confirmedAt ?? 0, sent) : undefined;
      }, () => undefined);
    }, Math.floor(this.ttlMs / 3));
    this.renewer.unref();
    return true;
  }

  /**
   * Whether the lease is still ours: no renewal found it taken, and the last confirmation is younger than its
   * time to live. False means another process may have held it meanwhile; work done under it must be redone.
   */
  held(): boolean {
    return this.token !== null && this.confirmedAt !== undefined && Date.now() - this.confirmedAt < this.ttlMs;
  }

  acquire(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return acquireByPolling(this, timeoutMs, signal);
  }

  async release(): Promise<void> {
    if (this.renewer) clearInterval(this.renewer);
    this.renewer = null;
    const token = this.token;
    this.token = null;
    if (token) await this.free(token);
  }
}

// A wake-up for followers of the change feed: told of every index batch applied (here or, through the bus, elsewhere).
export class Activity {
  private waiters = new Set<() => void>();

  notify(): void {
    const woken = this.waiters;
    this.waiters = new Set();
    for (const w of woken) w();
  }

  /** Resolves at the next notification, or after `ms`, or when `signal` aborts. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

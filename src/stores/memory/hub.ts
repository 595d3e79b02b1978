// The state the Redis twins share: what one Redis is to several processes (keys with expiry, structured values, channels).

interface Entry {
  value: string;
  expires: number | null;
}

/**
 * One hub stands for one Redis: every twin built on it sees the others' writes, so two services on one hub behave
 * like two processes on one Redis. Expiry is read lazily from the clock (no timers to leave open). `flush` loses
 * everything, as a Redis restarted without its data.
 */
export class MemoryHub {
  private readonly kv = new Map<string, Entry>();
  private readonly structs = new Map<string, unknown>();
  private readonly channels = new Map<string, Set<(message: string) => void>>();

  get(key: string): string | null {
    const e = this.kv.get(key);
    if (!e) return null;
    if (e.expires !== null && Date.now() >= e.expires) {
      this.kv.delete(key);
      return null;
    }
    return e.value;
  }

  /** SET with PX and NX: false when `nx` and the key is there. */
  set(key: string, value: string, opts: { px?: number; nx?: boolean } = {}): boolean {
    if (opts.nx && this.get(key) !== null) return false;
    this.kv.set(key, { value, expires: opts.px === undefined ? null : Date.now() + opts.px });
    return true;
  }

  del(key: string): boolean {
    const had = this.get(key) !== null;
    this.kv.delete(key);
    return had;
  }

  /** INCR: a missing key counts from 0; the expiry stays. */
  incr(key: string, by = 1): number {
    const e = this.get(key) === null ? undefined : this.kv.get(key);
    const next = Number(e?.value ?? 0) + by;
    this.kv.set(key, { value: String(next), expires: e?.expires ?? null });
    return next;
  }

  /** Ms the key still lives; -1 without expiry, -2 when missing (PTTL). */
  pttl(key: string): number {
    if (this.get(key) === null) return -2;
    const e = this.kv.get(key)!;
    return e.expires === null ? -1 : Math.max(0, e.expires - Date.now());
  }

  pexpire(key: string, ms: number): boolean {
    if (this.get(key) === null) return false;
    this.kv.get(key)!.expires = Date.now() + ms;
    return true;
  }

  /** A structured value (a hash, a sorted set, a member set) under `key`, created by `init` when missing. */
  struct<T>(key: string, init: () => T): T {
    if (!this.structs.has(key)) this.structs.set(key, init());
    return this.structs.get(key) as T;
  }

  /**
   * Delivers to every subscriber of `channel` (the publisher's own included) after the caller's turn, as a message
   * arrives from Redis later, never inside the publisher's call; how many subscribers there were.
   */
  publish(channel: string, message: string): number {
    const subs = [...this.channels.get(channel) ?? []];
    for (const fn of subs) queueMicrotask(() => fn(message));
    return subs.length;
  }

  subscribe(channel: string, fn: (message: string) => void): () => void {
    let subs = this.channels.get(channel);
    if (!subs) {
      subs = new Set();
      this.channels.set(channel, subs);
    }
    subs.add(fn);
    return () => {
      subs.delete(fn);
    };
  }

  /** Loses every key and structure (subscriptions, being connections, stay). */
  flush(): void {
    this.kv.clear();
    this.structs.clear();
  }
}

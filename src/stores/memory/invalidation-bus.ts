// The invalidation bus in memory: members of one hub acknowledge each invalidation, as processes on one Redis do.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { BusStopped, type Invalidation, type InvalidationBusMember } from '../ports/invalidation-bus.js';
import type { MemoryHub } from './hub.js';

/** The Redis bus's figures (src/stores/redis/invalidation-bus.ts): lease, trust margin, wait for acknowledgements. */
const LEASE_MS = 2000;
const MARGIN_MS = 250;
const ACK_MS = 500;

/** The member set: lease ends (hub clock, ms) by member, and when the set was created. */
interface Members {
  leases: Map<string, number>;
  born: number;
}
interface Message {
  from: string;
  n: number;
  inv: Invalidation;
}

/**
 * The same protocol as the Redis bus over the hub: leases in a member set renewed every quarter of a lease, an
 * invalidation delivered to every subscriber and acknowledged on the publisher's channel, silent members evicted and
 * their leases waited out, an evicted member or a lost set (`hub.flush`) making members drop everything (`reset`).
 */
export class MemoryInvalidationBus implements InvalidationBusMember {
  readonly id = randomUUID();
  private trustedUntil = 0;
  private seq = 0;
  private readonly waiters = new Map<number, { acked: Set<string>; expected: Set<string> | null; done: () => void }>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: Array<() => void> = [];
  private stopped = false;

  /** `leaseMs`: a member's lease (the Redis bus's by default); the contract suite runs the protocol on a shorter one. */
  constructor(private readonly hub: MemoryHub, private readonly prefix: string, private readonly apply: (inv: Invalidation) => void, private readonly reset: () => void,
    private readonly leaseMs = LEASE_MS) {}

  private members(): Members {
    return this.hub.struct(`${this.prefix}:bus:members`, () => ({ leases: new Map(), born: Date.now() }));
  }

  private live(now = Date.now()): Map<string, number> {
    const m = this.members();
    for (const [id, until] of m.leases) if (until <= now) m.leases.delete(id);
    return m.leases;
  }

  trusted(): boolean {
    return this.unsubscribe.length > 0 && performance.now() < this.trustedUntil;
  }

  async start(): Promise<void> {
    const channel = `${this.prefix}:bus:invalidate`;
    this.unsubscribe = [
      this.hub.subscribe(channel, (m) => this.onMessage(m)),
      this.hub.subscribe(`${this.prefix}:bus:ack:${this.id}`, (m) => this.onAck(m)),
    ];
    const tick = () => {
      if (this.stopped) return;
      this.renew();
      this.timer = setTimeout(tick, this.leaseMs / 4);
      this.timer.unref();
    };
    tick();
  }

  private renew(): void {
    const sent = performance.now();
    const leases = this.live();
    if (!leases.has(this.id)) this.drop(); // evicted, or the set was lost: what we hold may be stale
    this.live().set(this.id, Date.now() + this.leaseMs);
    this.trustedUntil = Math.max(this.trustedUntil, sent + this.leaseMs - MARGIN_MS);
  }

  private drop(): void {
    this.trustedUntil = 0;
    this.reset();
  }

  private onMessage(text: string): void {
    const msg = JSON.parse(text) as Message;
    if (msg.from === this.id) return;
    this.apply(msg.inv);
    this.hub.publish(`${this.prefix}:bus:ack:${msg.from}`, `${msg.n} ${this.id}`);
  }

  private onAck(text: string): void {
    const [n, member] = text.split(' ') as [string, string];
    const w = this.waiters.get(Number(n));
    if (!w) return;
    w.acked.add(member);
    if (w.expected && [...w.expected].every((m) => w.acked.has(m))) w.done();
  }

  async publish(inv: Invalidation): Promise<void> {
    if (this.stopped) throw new BusStopped();
    this.apply(inv);
    const n = ++this.seq;
    let done!: () => void;
    const settled = new Promise<void>((resolve) => {
      done = resolve;
    });
    const waiter = { acked: new Set<string>(), expected: null as Set<string> | null, done };
    this.waiters.set(n, waiter);
    try {
      const now = Date.now();
      const leases = this.live(now);
      const live = [...leases.keys()];
      // A set younger than a lease may have replaced a lost one, whose members trust what they hold for up to a lease.
      let lost = Math.max(0, this.members().born + this.leaseMs - now);
      if (!((leases.get(this.id) ?? 0) > now)) lost = this.leaseMs;
      const copy = JSON.parse(JSON.stringify(inv)) as Invalidation;
      this.hub.publish(`${this.prefix}:bus:invalidate`, JSON.stringify({ from: this.id, n, inv: copy }));
      waiter.expected = new Set(live.filter((m) => m !== this.id));
      if (lost > 0) await sleep(lost + 1);
      if ([...waiter.expected].some((m) => !waiter.acked.has(m))) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([settled, new Promise<void>((r) => {
          timer = setTimeout(r, ACK_MS);
        })]);
        clearTimeout(timer);
      }
      const silent = [...waiter.expected].filter((m) => !waiter.acked.has(m));
      let wait = 0;
      const at = Date.now();
      for (const m of silent) {
        const until = this.live(at).get(m);
        if (until !== undefined) {
          wait = Math.max(wait, until - at);
          this.live(at).delete(m);
        }
      }
      if (wait > 0) await sleep(wait + 1);
    } finally {
      this.waiters.delete(n);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.trustedUntil = 0;
    this.live().delete(this.id);
    this.unsubscribe.forEach((u) => u());
    this.unsubscribe = [];
  }

  /** A process that dies: no more renewals or messages, and its lease left to run out (tests of the contract). */
  crash(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe.forEach((u) => u());
    this.unsubscribe = [];
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Makes the member set under `prefix` older than a lease on a hub that never held one: no set can have been lost
 * there, so the first publish need not wait out a lease as it must on a Redis that may have restarted empty (each
 * test service starts on a fresh hub, and paid 2 s for it).
 */
export function establishBus(hub: MemoryHub, prefix: string): void {
  hub.struct<Members>(`${prefix}:bus:members`, () => ({ leases: new Map(), born: 0 }));
}

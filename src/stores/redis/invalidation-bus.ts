// Invalidations acknowledged across processes: a writer returns only once every live process has dropped what it changed.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { BusStopped, type Invalidation, type InvalidationBus as Bus } from '../ports/invalidation-bus.js';

/** A member's lease in the member set; renewed every quarter of it. */
const LEASE_MS = 2000;
/** Trust ends this much before the lease as Redis counts it, for clock rate drift and timer lateness. */
const MARGIN_MS = 250;
/** How long a writer waits for acknowledgements before it evicts the silent members and waits their leases out. */
const ACK_MS = 500;

// The member set also holds when it was created, as a member named for that time with a score past any lease:
// a set created less than a lease ago may have replaced a lost one whose members still trust what they hold.
const BORN = 9e15;
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local born = redis.call('ZRANGEBYSCORE', KEYS[1], ${BORN}, ${BORN}, 'LIMIT', 0, 1)[1]
if not born then born = 'born:' .. now redis.call('ZADD', KEYS[1], ${BORN}, born) end
born = tonumber(string.sub(born, 6))`;
// KEYS: members. ARGV: id, lease ms, join (1) or renew only (0). 1 when the member holds a lease now.
const RENEW = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[3] ~= '1' and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 1`;
// KEYS: members, channel. ARGV: message, own id, lease ms. Returns {ms to wait for the members of a lost set, live members}.
const PUBLISH = `${NOW}
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '(${BORN}')
local own = redis.call('ZSCORE', KEYS[1], ARGV[2])
redis.call('PUBLISH', KEYS[2], ARGV[1])
local wait = math.max(0, born + tonumber(ARGV[3]) - now)
if not (own and tonumber(own) > now) then wait = tonumber(ARGV[3]) end
return {wait, live}`;
// KEYS: members. ARGV: ids. Removes them; returns how many ms the longest of their leases still runs.
const EVICT = `${NOW}
local wait = 0
for _, id in ipairs(ARGV) do
  local s = redis.call('ZSCORE', KEYS[1], id)
  if s then wait = math.max(wait, tonumber(s) - now) redis.call('ZREM', KEYS[1], id) end
end
return wait`;

interface Waiter {
  acked: Set<string>;
  expected: Set<string> | null;
  done: () => void;
}

/**
 * Every process holds a lease in a member set and listens on one channel. A writer publishes what it changed
 * and waits until each member live at publication has acknowledged it, having applied it first. A member that
 * stays silent is evicted, and the writer waits out its lease: a member trusts its local state only until its
 * lease would end (counted from before the renewal was sent), and learns of an eviction at its next renewal,
 * when it drops everything before joining again. A lost subscription drops everything at once. If Redis lost
 * the member set, the writer finds its own lease gone and waits a whole lease, past every member's trust.
 */
export class InvalidationBus implements Bus {
  readonly id = randomUUID();
  private readonly sub: Redis;
  private readonly members: string;
  private readonly channel: string;
  private readonly ackPrefix: string;
  private readonly acks: string;
  private trustedUntil = 0;
  private subscribed = false;
  private seq = 0;
  private readonly waiters = new Map<number, Waiter>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  /** `apply` drops local state for an invalidation from another process; `reset` drops all of it. */
  /** `leaseMs`: a member's lease; the contract suite runs the protocol on a shorter one. */
  constructor(private readonly redis: Redis, prefix: string, private readonly apply: (inv: Invalidation) => void, private readonly reset: () => void,
    private readonly leaseMs = LEASE_MS) {
    this.members = `${prefix}:bus:members`;
    this.channel = `${prefix}:bus:invalidate`;
    this.ackPrefix = `${prefix}:bus:ack:`;
    this.acks = this.ackPrefix + this.id;
    this.sub = redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null });
    this.sub.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    this.sub.on('error', () => undefined); // the main connection reports outages
    // Messages published while the subscription is down are lost: nothing local is trusted until it is back.
    this.sub.on('close', () => this.distrust());
    this.sub.on('ready', () => {
      void this.subscribe();
    });
  }

  /** Whether local state may be served now. */
  trusted(): boolean {
    return this.subscribed && performance.now() < this.trustedUntil;
  }

  /** Starts renewing; resolves once this process is a member, or after `waitMs` if Redis does not answer. */
  async start(waitMs = 3000): Promise<void> {
    const tick = () => {
      if (this.stopped) return;
      void this.renew();
      this.timer = setTimeout(tick, this.leaseMs / 4);
      this.timer.unref();
    };
    tick();
    const deadline = Date.now() + waitMs;
    while (!this.trusted() && Date.now() < deadline && !this.stopped) await sleep(10);
  }

  private async subscribe(): Promise<void> {
    try {
      await this.sub.subscribe(this.channel, this.acks);
      this.subscribed = true;
      void this.renew();
    } catch { /* the next ready event tries again */ }
  }

  private distrust(): void {
    this.subscribed = false;
    this.drop();
  }

  private drop(): void {
    this.trustedUntil = 0;
    this.reset();
  }

  private async renew(): Promise<void> {
    if (!this.subscribed || this.stopped) return;
    const sent = performance.now();
    try {
      let live = await this.redis.eval(RENEW, 1, this.members, this.id, String(this.leaseMs), '0');
      if (live !== 1) {
        // Evicted (a writer heard nothing from us) or the set was lost: what we hold may be stale.
        this.drop();
        live = await this.redis.eval(RENEW, 1, this.members, this.id, String(this.leaseMs), '1');
      }
      if (live === 1 && this.subscribed) this.trustedUntil = Math.max(this.trustedUntil, sent + this.leaseMs - MARGIN_MS);
    } catch { /* trust runs out by itself */ }
  }

  private onMessage(channel: string, message: string): void {
    if (channel === this.acks) {
      const space = message.indexOf(' ');
      const w = this.waiters.get(Number(message.slice(0, space)));
      if (!w) return;
      w.acked.add(message.slice(space + 1));
      if (w.expected && [...w.expected].every((m) => w.acked.has(m))) w.done();
      return;
    }
    let msg: { w: string; n: number; k: string[]; s: boolean; r?: number; x?: Invalidation['reindex'] };
    try {
      msg = JSON.parse(message);
    } catch {
      return;
    }
    if (msg.w === this.id) return;
    this.apply({ keys: msg.k, structure: msg.s, revision: msg.r, ...(msg.x ? { reindex: msg.x } : {}) });
    this.redis.publish(this.ackPrefix + msg.w, `${msg.n} ${this.id}`).catch(() => undefined);
  }

  /**
   * Applies `inv` here, then in every other live process; resolves once none of them can serve what it
   * invalidates. Throws when Redis cannot be reached: the caller's write is then not acknowledged.
   */
  async publish(inv: Invalidation): Promise<void> {
    if (this.stopped) throw new BusStopped();
    this.apply(inv);
    const n = ++this.seq;
    let done!: () => void;
    const settled = new Promise<void>((resolve) => {
      done = resolve;
    });
    const waiter: Waiter = { acked: new Set(), expected: null, done };
    this.waiters.set(n, waiter);
    try {
      const message = JSON.stringify({ w: this.id, n, k: inv.keys, s: inv.structure, r: inv.revision, x: inv.reindex });
      const [lost, live] = await this.redis.eval(PUBLISH, 2, this.members, this.channel, message, this.id, String(this.leaseMs)) as [number, string[]];
      waiter.expected = new Set(live.filter((m) => m !== this.id));
      if (lost > 0) {
        // The member set is younger than a lease (or we are not in it): it may have replaced one lost with Redis's
        // data, whose members, unknown now, trust what they hold until at most a lease after they last renewed.
        await sleep(lost + 1);
      }
      if ([...waiter.expected].some((m) => !waiter.acked.has(m))) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([settled, new Promise<void>((r) => {
          timer = setTimeout(r, ACK_MS);
        })]);
        clearTimeout(timer);
      }
      const silent = [...waiter.expected].filter((m) => !waiter.acked.has(m));
      if (silent.length) {
        const wait = Number(await this.redis.eval(EVICT, 1, this.members, ...silent));
        if (wait > 0) await sleep(wait + 1);
      }
    } finally {
      this.waiters.delete(n);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.trustedUntil = 0;
    await this.redis.zrem(this.members, this.id).catch(() => undefined);
    if (this.sub.status === 'ready') await this.sub.quit().catch(() => this.sub.disconnect());
    else this.sub.disconnect();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Makes the member set under `prefix` older than a lease, on a Redis the test suite's wipe has just emptied while no
 * process from before the wipe still serves: no member can trust what it held, so the first publish need not wait out
 * a lease, as it must after a Redis restarted empty under running processes (each test service's start paid 1.7 s for
 * it, registering the ChatRoom definition). Never called by the service.
 */
export async function establishBus(redis: Redis, prefix: string): Promise<void> {
  await redis.zadd(`${prefix}:bus:members`, BORN, 'born:0');
}

// Per-route rate limits, counted by a store shared by every process (RateCounter).
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';
import { RateLimited } from '../errors.js';
import type { RateCounter } from '../stores/ports/rate-limits.js';

const limit = z.strictObject({ windowMs: z.number().int().min(1000).max(24 * 3600 * 1000), max: z.number().int().min(1).max(1_000_000) });
export const rateLimitsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  default: limit.default({ windowMs: 1000, max: 100 }),
  /** "METHOD /path" as registered, e.g. "POST /authentication/local". */
  routes: z.record(z.string().regex(/^(GET|POST|PATCH|PUT|DELETE) \/\S*$/), limit).default({}),
});
export type RateLimitConfig = z.infer<typeof rateLimitsSchema>;

/** DESIGN.md 6.1: 100 requests/s per IP per route; logins 30/min per IP and account name. */
export const LOGIN_LIMIT = { windowMs: 60_000, max: 30 };
const LOGIN_ROUTES = ['POST /authentication/local', 'POST /login'];
/** Each registration costs a bcrypt hash: a tighter default than other routes. */
const REGISTER = { route: 'POST /authentication/local/new', limit: { windowMs: 60_000, max: 20 } };
/** One IP trying many account names: ten times the per-account login limit, over all names. */
const LOGINS_PER_IP_FACTOR = 10;

/** The router's rateLimits with the built-in login and registration limits for the routes it does not name. */
export function effectiveRateLimits(c: RateLimitConfig): RateLimitConfig {
  return { ...c, routes: { ...Object.fromEntries(LOGIN_ROUTES.map((r) => [r, LOGIN_LIMIT])), [REGISTER.route]: REGISTER.limit, ...c.routes } };
}

/** Reads rateLimits JSON (ROUTER_RATE_LIMITS, the defaults of the router module's config); throws a readable error. */
export function readRateLimits(json: string | undefined): Record<string, unknown> {
  let raw: unknown = {};
  try {
    raw = json ? JSON.parse(json) : {};
  } catch {
    throw new Error('invalid rate limits: not JSON');
  }
  const parsed = rateLimitsSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid rate limits: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return raw as Record<string, unknown>;
}

/** rateLimits JSON parsed over the defaults, with the built-in limits. */
export const parseRateLimits = (json: string | undefined): RateLimitConfig => effectiveRateLimits(rateLimitsSchema.parse(readRateLimits(json)));

/**
 * The address limits count a client under. An IPv4 client seen through a dual-stack socket (`::ffff:1.2.3.4`) is that
 * IPv4 address; an IPv6 client is its /64, since one host is commonly given a whole /64 and could take a fresh address
 * (a fresh bucket) for every call.
 */
export function addressKey(ip: string): string {
  if (ip.startsWith('::ffff:') && isIPv4(ip.slice(7))) return ip.slice(7);
  const bare = ip.split('%')[0]!; // a zone (fe80::1%eth0) names the interface, not the host
  if (!isIPv6(bare)) return ip;
  const [head = '', tail] = bare.split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}
const addr = addressKey;

/** The bucket failed admin authentications are counted in, per address. */
const AUTH_FAILURES = 'admin authentication failures';

/** Addresses held refused in memory at most (the oldest go first). */
const MAX_BLOCKED = 10_000;

export class RateLimits {
  private readonly blocked = new Map<string, number>();
  constructor(
    private readonly counter: RateCounter,
    private config: RateLimitConfig,
    /** Failed admin authentications one address may make per minute (not switched off with the router's limits). */
    private readonly authFailuresPerMinute = 30,
  ) {}

  update(config: RateLimitConfig): void {
    this.config = config;
  }

  /**
   * Counts one request of `route` from `ip`; throws RATE_LIMITED (with Retry-After) past the limit.
   * A login (`account` given) counts per IP and account name, and per IP over all names at ten times that.
   */
  async consume(route: string, from: string, account?: string): Promise<void> {
    const ip = addr(from);
    if (!this.config.enabled) return;
    const { windowMs, max } = this.config.routes[route] ?? this.config.default;
    if (account === undefined) return this.take(route, windowMs, max, ip);
    await this.take(`${route} per IP`, windowMs, max * LOGINS_PER_IP_FACTOR, ip);
    await this.take(route, windowMs, max, `${ip}|${account.trim().toLowerCase()}`);
  }

  /** Counts `points` more calls of `route` from `ip` (a call that does the work of several). */
  async charge(route: string, ip: string, points: number): Promise<void> {
    if (!this.config.enabled || points <= 0) return;
    const { windowMs, max } = this.config.routes[route] ?? this.config.default;
    return this.take(route, windowMs, max, addr(ip), points);
  }

  /**
   * Refuses (429) an address this process saw pass its admin-authentication failures lately. Asked in memory, so
   * every admin call pays no Redis round trip for it; the failures themselves are counted in Redis by every process.
   */
  async admitAuthentication(ip: string): Promise<void> {
    const key = addr(ip);
    const until = this.blocked.get(key);
    if (until === undefined) return;
    if (until <= Date.now()) {
      this.blocked.delete(key);
      return;
    }
    throw new RateLimited(Math.max(1, Math.ceil((until - Date.now()) / 1000)));
  }

  /** Counts one failed admin authentication of `ip`; past the limit it is answered 429 and the address refused a while. */
  async failedAuthentication(ip: string): Promise<void> {
    const key = addr(ip);
    const wait = await this.counter.take(AUTH_FAILURES, this.authFailuresPerMinute, 60_000, key);
    if (wait === null) return;
    if (this.blocked.size >= MAX_BLOCKED) this.blocked.delete(this.blocked.keys().next().value!);
    this.blocked.set(key, Date.now() + wait);
    throw new RateLimited(Math.max(1, Math.ceil(wait / 1000)));
  }

  private async take(route: string, windowMs: number, max: number, who: string, points = 1): Promise<void> {
    const wait = await this.counter.take(route, max, windowMs, who, points);
    if (wait !== null) throw new RateLimited(Math.max(1, Math.ceil(wait / 1000)));
  }
}

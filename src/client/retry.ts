// Retries of 503 answers (STORE_UNAVAILABLE, INDEX_BEHIND, NOT_READY) with exponential backoff and jitter, bounded, for
// requests that are safe to repeat; a Retry-After the service sends is waited for instead of the backoff.
export interface RetryOptions {
  /** Attempts in all, the first included (default 4); 1 turns retries off. */
  attempts?: number;
  /** The first backoff (default 100 ms); each retry doubles it up to `maxDelayMs` (default 2,000), half of it random. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The longest Retry-After waited for (default 10,000 ms); an answer asking for longer is returned as it is. */
  maxRetryAfterMs?: number;
}

type Fetch = (request: Request) => Promise<Response>;

/** The wait before retry number `retry` (1, 2, ...): half the capped exponential step fixed, half random (equal jitter). */
export function backoffMs(retry: number, o: Required<RetryOptions>): number {
  const step = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (retry - 1));
  return step / 2 + Math.random() * (step / 2);
}

/** Retry-After in milliseconds: delay-seconds or an HTTP date (RFC 9110 section 10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  // Every HTTP date form starts with the day's name; Date.parse alone would read "-1" as a year.
  if (!/^[A-Za-z]{3}/.test(header.trim())) return undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

export const RETRY_DEFAULTS: Required<RetryOptions> = { attempts: 4, baseDelayMs: 100, maxDelayMs: 2000, maxRetryAfterMs: 10_000 };

/** Bounds of the options: a caller's `Infinity` (or a typo) must not turn into a call that never gives up. */
const LIMITS: Record<keyof RetryOptions, number> = { attempts: 20, baseDelayMs: 60_000, maxDelayMs: 60_000, maxRetryAfterMs: 300_000 };

/** The options with the defaults filled in, or a RangeError naming the one out of bounds. */
export function retryOptions(options: RetryOptions): Required<RetryOptions> {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const o = { ...RETRY_DEFAULTS, ...given };
  for (const [k, max] of Object.entries(LIMITS) as Array<[keyof RetryOptions, number]>) {
    const v = o[k];
    const min = k === 'attempts' ? 1 : 0;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new RangeError(`retry.${k} must be an integer from ${min} to ${max}, got ${String(v)}`);
  }
  return o;
}

/**
 * A fetch that sends `request` again after a 503 while `repeatable(request)` says it is safe and attempts remain.
 * Each attempt sends a fresh copy (a body can be read once). Network errors are not retried: whether the service
 * saw the request is unknown, and the caller knows better what to do.
 */
export function retryingFetch(options: RetryOptions, repeatable: (request: Request) => Promise<boolean>, base: Fetch): Fetch {
  const o = retryOptions(options);
  return async (request) => {
    let next = request;
    for (let attempt = 1;; attempt++) {
      const spare = attempt < o.attempts ? next.clone() : undefined;
      const response = await base(next);
      if (response.status !== 503 || spare === undefined || !(await repeatable(spare.clone()))) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > o.maxRetryAfterMs) return response;
      await response.body?.cancel();
      await sleep(asked ?? backoffMs(attempt, o), request.signal);
      next = spare;
    }
  };
}

// The SDK's generated types are fresh (regenerated in-process and compared), its reading of Retry-After and backoff, and which requests it repeats.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_DIR, sdkTypeFiles } from '../../infra/sdk-types.js';
import { repeatable } from '../../src/client/repeatable.js';
import { RETRY_DEFAULTS, backoffMs, retryAfterMs } from '../../src/client/retry.js';
import { createAdminClient } from '../../src/client/index.js';
import { ROOT } from '../../src/root.js';

describe('SDK', () => {
  it('has committed types equal to what `npm run sdk:types` generates from the code now', async () => {
    const files = await sdkTypeFiles();
    expect(readdirSync(join(ROOT, GENERATED_DIR)).map((f) => `${GENERATED_DIR}/${f}`).sort()).toEqual(Object.keys(files).sort());
    for (const [path, text] of Object.entries(files)) {
      // A failure here: a route changed; run `npm run sdk:types` and commit src/client/generated/.
      expect([path, readFileSync(join(ROOT, path), 'utf8') === text]).toEqual([path, true]);
    }
  }, 60_000);

  it('reads Retry-After as seconds or an HTTP date, and ignores what it cannot read', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:02 GMT', now)).toBe(2000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-1', now)).toBeUndefined();
  });

  it('backs off exponentially, capped, with half of each wait random', () => {
    for (let i = 0; i < 50; i++) {
      const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n, RETRY_DEFAULTS));
      const steps = [100, 200, 400, 800, 1600, 2000, 2000];
      waits.forEach((w, k) => {
        expect(w).toBeGreaterThanOrEqual(steps[k]! / 2);
        expect(w).toBeLessThanOrEqual(steps[k]!);
      });
    }
  });
});

describe('SDK: which requests are repeated after a 503', () => {
  const post = (url: string, body: unknown) => new Request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('a send with an idempotencyKey on the routes that honour it, under a base path too', async () => {
    expect(await repeatable('admin', '')(post('http://h/communications/email', { to: ['a@b.c'], subject: 's', text: 't', idempotencyKey: 'k1' }))).toBe(true);
    expect(await repeatable('admin', '/authz')(post('http://h/authz/communications/sms', { to: ['+1'], body: 'b', idempotencyKey: 'k2' }))).toBe(true);
    expect(await repeatable('admin', '')(post('http://h/communications/email', { to: ['a@b.c'], subject: 's', text: 't' }))).toBe(false);
  });

  it('not a create whose own data has a field named idempotencyKey (repeating it would create twice)', async () => {
    expect(await repeatable('client', '')(post('http://h/database/Invoice', { idempotencyKey: 'inv-7', amount: 3 }))).toBe(false);
    expect(await repeatable('admin', '')(post('http://h/database/schemas', { name: 'Invoice', fields: {}, idempotencyKey: 'x' }))).toBe(false);
  });
});

describe('SDK: retry options', () => {
  it('are bounded: an endless or nonsensical setting is refused when the client is made, naming it', () => {
    const make = (retry: object) => () => createAdminClient({ baseUrl: 'http://127.0.0.1:1', retry });
    expect(make({ attempts: Infinity })).toThrow(new RangeError('retry.attempts must be an integer from 1 to 20, got Infinity'));
    expect(make({ attempts: 0 })).toThrow('retry.attempts must be an integer from 1 to 20, got 0');
    expect(make({ maxRetryAfterMs: Number.MAX_SAFE_INTEGER })).toThrow(/^retry\.maxRetryAfterMs must be an integer from 0 to 300000/);
    expect(make({ baseDelayMs: -5 })).toThrow(/^retry\.baseDelayMs /);
    expect(make({ maxDelayMs: Number.NaN })).toThrow(/^retry\.maxDelayMs /);
    // Within bounds, and an option left undefined takes its default.
    expect(make({ attempts: 20, baseDelayMs: 0, maxRetryAfterMs: undefined })).not.toThrow();
  });
});

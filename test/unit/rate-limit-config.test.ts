// The router's rate-limit settings: defaults of DESIGN.md 6.1, overrides, readable errors.
import { LOGIN_LIMIT, parseRateLimits } from '../../src/services/rate-limits.js';

describe('rate limit configuration', () => {
  it('defaults to 100/s per route and 30/min on both logins', () => {
    const c = parseRateLimits(undefined);
    expect(c.enabled).toBe(true);
    expect(c.default).toEqual({ windowMs: 1000, max: 100 });
    expect(c.routes['POST /authentication/local']).toEqual(LOGIN_LIMIT);
    expect(c.routes['POST /login']).toEqual(LOGIN_LIMIT);
    expect(c.routes['POST /authentication/local/new']).toEqual({ windowMs: 60_000, max: 20 });
  });
  it('takes overrides per route over the defaults', () => {
    const c = parseRateLimits('{"routes":{"POST /login":{"windowMs":60000,"max":3},"GET /authentication/user":{"windowMs":2000,"max":5}}}');
    expect(c.routes['POST /login']).toEqual({ windowMs: 60000, max: 3 });
    expect(c.routes['GET /authentication/user']).toEqual({ windowMs: 2000, max: 5 });
    expect(c.routes['POST /authentication/local']).toEqual(LOGIN_LIMIT);
  });
  it.each([
    ['{"default":{"windowMs":5,"max":1}}', /default.windowMs/],
    ['{"routes":{"FETCH /x":{"windowMs":1000,"max":1}}}', /routes/],
    ['{"limit":3}', /limit/],
    ['not json', /not JSON/],
  ])('refuses %s', (json, message) => {
    expect(() => parseRateLimits(json)).toThrow(message);
  });
});

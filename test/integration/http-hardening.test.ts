// Security headers on both HTTP surfaces (Express and the lean table alike), no-store on answers that carry tokens,
// a CSP on /docs, and CORS: closed on the admin surface, the configured origins only on the client surface.
import { startService, type TestService } from '../support/service.js';

const APP = 'https://app.example.com';
let svc: TestService;
let userToken: string;
let refreshToken: string;
beforeAll(async () => {
  svc = await startService({ CORS_ORIGINS: `${APP}, http://localhost:5173` });
  expect((await svc.http('POST', `${svc.client}/authentication/local/new`, { body: { email: 'hh@example.com', password: 'password123' }, headers: {} })).status).toBe(201);
  const login = await svc.http('POST', `${svc.client}/authentication/local`, { body: { email: 'hh@example.com', password: 'password123' }, headers: {} });
  userToken = login.body.accessToken;
  refreshToken = login.body.refreshToken;
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const base = (surface: 'admin' | 'client') => (surface === 'admin' ? svc.admin : svc.client);

describe.each(['admin', 'client'] as const)('%s surface', (surface) => {
  it('sends nosniff, no-store and a deny-all CSP on JSON answers: Express routes, the lean table, 404s and errors', async () => {
    const check = surface === 'admin' ? '/authorization/permissions/can?subject=User:a&permission=read&resource=Doc:d' : '/authorization/check?action=read&resource=Doc:d';
    const auth = surface === 'admin' ? svc.asAdmin : { authorization: `Bearer ${userToken}` };
    const answers = await Promise.all([
      fetch(base(surface) + check, { headers: auth }), // the lean table
      fetch(base(surface) + check, { headers: {} }), // the lean table, refused
      fetch(`${base(surface)}/openapi.json`), // Express
      fetch(`${base(surface)}/no/such/route`), // Express's 404
      fetch(`${base(surface)}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{"query":"{ __typename }"}' }),
      fetch(`${base(surface)}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{not json' }),
    ]);
    for (const res of answers) {
      await res.arrayBuffer();
      expect([res.url, res.headers.get('x-content-type-options')]).toEqual([res.url, 'nosniff']);
      expect([res.url, res.headers.get('cache-control')]).toEqual([res.url, 'no-store']);
      expect([res.url, res.headers.get('content-security-policy')]).toEqual([res.url, "default-src 'none';frame-ancestors 'none'"]);
      expect([res.url, res.headers.get('x-frame-options')]).toEqual([res.url, 'DENY']);
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
    expect(answers.map((r) => r.status)).toEqual([200, 401, 200, 404, 200, 400]);
  });

  it('serves /docs under a CSP that allows only its own scripts, styles and document', async () => {
    const page = await fetch(`${base(surface)}/docs`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|\*|unsafe-eval/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    // The inline script is the one the hash allows.
    const html = await page.text();
    const inline = /<script>([^<]*)<\/script>/.exec(html)![1]!;
    const { createHash } = await import('node:crypto');
    expect(csp).toContain(`'sha256-${createHash('sha256').update(inline).digest('base64')}'`);
    const asset = await fetch(`${base(surface)}/docs/assets/swagger-ui.css`);
    await asset.arrayBuffer();
    expect(asset.status).toBe(200);
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

it('the realtime port answers plain HTTP with the same headers', async () => {
  const res = await fetch(svc.socket.replace('ws:', 'http:'));
  await res.arrayBuffer();
  expect([res.status, res.headers.get('x-content-type-options'), res.headers.get('cache-control')]).toEqual([426, 'nosniff', 'no-store']);
});

describe('answers that carry tokens or secrets are never cached', () => {
  it('admin login and API token creation', async () => {
    const login = await fetch(`${svc.admin}/login`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'test-admin-password' }) });
    const { token } = await login.json() as { token: string };
    expect([login.status, login.headers.get('cache-control')]).toEqual([200, 'no-store']);
    const created = await fetch(`${svc.admin}/api-tokens`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'ci' }) });
    await created.arrayBuffer();
    expect([created.status, created.headers.get('cache-control')]).toEqual([201, 'no-store']);
  });

  it('client register, login and renew, and their failures', async () => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(svc.client + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await res.arrayBuffer();
      return [path, res.status, res.headers.get('cache-control')];
    };
    expect(await post('/authentication/local/new', { email: 'nc@example.com', password: 'password123' })).toEqual(['/authentication/local/new', 201, 'no-store']);
    expect(await post('/authentication/local', { email: 'nc@example.com', password: 'password123' })).toEqual(['/authentication/local', 200, 'no-store']);
    expect(await post('/authentication/local', { email: 'nc@example.com', password: 'wrong password' })).toEqual(['/authentication/local', 401, 'no-store']);
    expect(await post('/authentication/renew', { refreshToken })).toEqual(['/authentication/renew', 200, 'no-store']);
  });
});

describe('CORS', () => {
  const preflight = (url: string, origin: string) =>
    fetch(url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
  const allowHeaders = (res: Response) => [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));

  it('the admin surface allows no origin: preflights are refused and no answer carries Access-Control-Allow-*', async () => {
    for (const origin of [APP, 'http://localhost:5173', 'null', svc.admin]) {
      for (const path of ['/login', '/graphql', '/mcp', '/authorization/permissions/can', '/ready']) {
        const pre = await preflight(svc.admin + path, origin);
        const body = await pre.json() as { code: string };
        expect([origin, path, pre.status, body.code, allowHeaders(pre)]).toEqual([origin, path, 403, 'FORBIDDEN', []]);
      }
      const get = await fetch(`${svc.admin}/authorization/resources`, { headers: { ...svc.asAdmin, origin } });
      await get.arrayBuffer();
      expect([get.status, allowHeaders(get)]).toEqual([200, []]);
      const login = await fetch(`${svc.admin}/login`, { method: 'POST', headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'test-admin-password' }) });
      await login.arrayBuffer();
      expect([login.status, allowHeaders(login)]).toEqual([200, []]);
    }
  });

  it('the client surface allows exactly CORS_ORIGINS, without credentials', async () => {
    const pre = await preflight(`${svc.client}/authentication/local`, APP);
    await pre.arrayBuffer();
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(APP);
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const get = await fetch(`${svc.client}/authorization/check?action=read&resource=Doc:d`, { headers: { origin: 'http://localhost:5173', authorization: `Bearer ${userToken}` } });
    await get.arrayBuffer();
    expect([get.status, get.headers.get('access-control-allow-origin')]).toEqual([200, 'http://localhost:5173']);
    expect(get.headers.get('vary')).toContain('Origin');

    const other = await preflight(`${svc.client}/authentication/local`, 'https://evil.example.com');
    await other.arrayBuffer();
    expect([other.status, allowHeaders(other)]).toEqual([403, []]);
    const plain = await fetch(`${svc.client}/openapi.json`, { headers: { origin: 'https://evil.example.com' } });
    await plain.arrayBuffer();
    expect([plain.status, allowHeaders(plain)]).toEqual([200, []]);
  });

  it('the client surface allows none by default', async () => {
    const other = await startService({}, { wipe: false });
    try {
      const pre = await preflight(`${other.client}/authentication/local`, APP);
      await pre.arrayBuffer();
      expect([pre.status, allowHeaders(pre)]).toEqual([403, []]);
    } finally {
      await other.stop();
    }
  });
});

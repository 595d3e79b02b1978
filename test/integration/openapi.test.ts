// The OpenAPI documents come from the route registry: every registered route is documented, every documented one is
// served, both documents validate as OpenAPI 3.1, and Swagger UI renders from them.
import { Validator } from '@seriousme/openapi-schema-validator';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const METHODS = ['get', 'post', 'patch', 'put', 'delete'];

describe.each(['admin', 'client'] as const)('%s surface', (surface) => {
  const base = () => (surface === 'admin' ? svc.admin : svc.client);

  it('validates as OpenAPI 3.1 and documents exactly the registered routes (plus /graphql, /mcp and the Swagger UI files)', async () => {
    const r = await fetch(`${base()}/openapi.json`);
    expect(r.status).toBe(200);
    const doc = await r.json() as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`)).sort();
    const registered = svc.app.registry.of(surface)
      .map((x) => `${x.http.method.toUpperCase()} ${x.http.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`);
    const extra = surface === 'admin' ? ['POST /graphql', 'POST /mcp', 'GET /mcp', 'GET /docs/assets/{file}'] : ['POST /graphql', 'GET /docs/assets/{file}'];
    expect(documented).toEqual([...registered, ...extra].sort());
  });

  it('serves every documented operation (none answers "no such route")', async () => {
    const doc = await (await fetch(`${base()}/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops).filter((m) => METHODS.includes(m))) {
        const url = base() + path.replace('{file}', 'swagger-ui.css').replace(/\{[^}]+\}/g, 'x');
        const res = await fetch(url, { method: method.toUpperCase(), headers: { 'content-type': 'application/json' }, body: method === 'get' ? undefined : '{}' });
        const body = await res.text();
        let code: unknown = null;
        try {
          code = (JSON.parse(body) as { code?: unknown }).code;
        } catch { /* not JSON: a page */ }
        expect([method, path, res.status === 404 && code === 'ROUTE_NOT_FOUND']).toEqual([method, path, false]);
      }
    }
  });

  it("documents each operation's reply body and every error it answers, with admin credentials or none", async () => {
    type Op = { responses: Record<string, { content?: Record<string, { schema?: { properties?: { code?: { enum?: string[] } } } }> }> };
    const doc = await (await fetch(`${base()}/openapi.json`)).json() as { paths: Record<string, Record<string, Op>> };
    const credentials = surface === 'admin' ? [{}, svc.asAdmin] : [{}];
    let answered = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path === '/graphql' || path === '/mcp') continue; // their errors are GraphQL and JSON-RPC bodies
      for (const [method, op] of Object.entries(ops).filter(([m]) => METHODS.includes(m))) {
        const success = op.responses['200'] ?? op.responses['201'];
        expect([method, path, Object.keys(success?.content ?? {}).length > 0]).toEqual([method, path, true]);
        for (const headers of credentials) {
          const res = await fetch(base() + path.replace(/\{[^}]+\}/g, 'x'), {
            method: method.toUpperCase(),
            headers: { 'content-type': 'application/json', ...headers },
            body: method === 'get' ? undefined : '{}',
          });
          const text = await res.text();
          // A reply outside its registered output is a 500 here (CHECK_REPLIES), so none may be.
          expect([method, path, res.status]).not.toEqual([method, path, 500]);
          const documented = op.responses[String(res.status)];
          expect([method, path, res.status, documented !== undefined]).toEqual([method, path, res.status, true]);
          if (res.status >= 400 && (res.headers.get('content-type') ?? '').includes('json')) {
            const code = (JSON.parse(text) as { code?: string }).code;
            expect([method, path, code, documented!.content!['application/json']!.schema!.properties!.code!.enum!.includes(code!)])
              .toEqual([method, path, code, true]);
          }
          answered++;
        }
      }
    }
    expect(answered).toBeGreaterThan(surface === 'admin' ? 60 : 20);
  });

  it('renders Swagger UI from the document', async () => {
    const page = await fetch(`${base()}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain("url: '/openapi.json'");
    const bundle = await fetch(`${base()}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });
});

// The storage tests' service: one started with a storage directory of its own, and the HTTP helpers its files share.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type TestService } from './service.js';

export interface Account {
  id: string;
  token: string;
}

const LIMITS = JSON.stringify({ routes: { 'POST /authentication/local/new': { windowMs: 60_000, max: 1000 } } });

/** Starts the service in the file's beforeAll (stopped and its directory removed in afterAll); `svc` and `dir` are set then. */
export function storageService() {
  const st = {
    svc: undefined as unknown as TestService,
    dir: '',
    client: (method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}) =>
      st.svc.http(method, path.startsWith('http') ? path : `${st.svc.client}${path}`, { body, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } }),
    raw: (path: string, init: RequestInit = {}) => fetch(path.startsWith('http') ? path : `${st.svc.client}${path}`, init),
    bearer: (token: string) => ({ authorization: `Bearer ${token}` }),
    async account(email: string): Promise<Account> {
      expect((await st.client('POST', '/authentication/local/new', undefined, { email, password: 'correct horse' })).status).toBe(201);
      const r = await st.client('POST', '/authentication/local', undefined, { email, password: 'correct horse' });
      return { id: r.body.userId as string, token: r.body.accessToken as string };
    },
    /** Multipart through fetch's FormData (small files). */
    async multipart(method: string, path: string, token: string, content: Buffer | null, fields: Record<string, string> = {}, type = 'text/plain') {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      if (content) form.append('file', new Blob([new Uint8Array(content)], { type }), 'hello.txt');
      const res = await st.raw(path, { method, headers: st.bearer(token), body: form });
      return { status: res.status, body: await res.json() };
    },
    /** The files the storage directory holds, the partial uploads' folder aside. */
    stored: async () => (await readdir(st.dir)).filter((f) => f !== '.partial'),
  };
  beforeAll(async () => {
    st.dir = await mkdtemp(join(tmpdir(), 'authz-storage-'));
    st.svc = await startService({ ROUTER_RATE_LIMITS: LIMITS }, { realIo: true });
    expect((await st.svc.http('PATCH', '/config/storage', { body: { dir: st.dir } })).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await st.svc?.stop();
    if (st.dir) await rm(st.dir, { recursive: true, force: true });
  });
  return st;
}

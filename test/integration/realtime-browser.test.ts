// The realtime socket from a browser: headless Chromium opens it with the token as a protocol entry; `ws` checks the refusals.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { WebSocket } from 'ws';
import { launchChromium } from '../support/chromium.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let browser: Browser;
/** A web app on its own origin, as an application's page would be: the socket is another origin to it. */
let app: Server;
let appUrl: string;
const doc = { name: 'Doc', relations: { owner: ['User'] }, permissions: { read: ['owner'] } };

beforeAll(async () => {
  // A logout closes its sockets within SOCKET_LIVE_CHECK_MS: half a second here, not the default 5 s.
  svc = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }), SOCKET_LIVE_CHECK_MS: '500' });
  await svc.http('POST', '/authorization/resources', { body: doc });
  browser = await launchChromium();
  app = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
  await svc?.stop();
});

async function login(email: string): Promise<{ userId: string; token: string }> {
  const call = (path: string) =>
    fetch(svc.client + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse' }) });
  await call('/authentication/local/new');
  const body = await (await call('/authentication/local')).json() as { userId: string; accessToken: string };
  return { userId: body.userId, token: body.accessToken };
}

/** How an upgrade with these protocols (and headers) ends: the refusal's status and code, or the protocol selected. */
const upgrade = (protocols: string[], headers: Record<string, string> = {}, url = svc.socket) =>
  new Promise<{ status: number; code?: string } | { protocol: string; echoed: string | undefined }>((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers });
    let echoed: string | undefined;
    ws.once('upgrade', (res) => {
      echoed = res.headers['sec-websocket-protocol'];
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, code: (JSON.parse(body) as { code: string }).code });
        ws.terminate();
      });
    });
    ws.once('open', () => {
      resolve({ protocol: ws.protocol, echoed });
      ws.close();
    });
    ws.once('error', (e) => reject(e));
  });

describe('realtime socket from a browser', () => {
  it('opens from a page in headless Chromium with the token as a protocol, answers with the plain protocol, and subscribes', async () => {
    const { userId, token } = await login('browser@example.com');
    await svc.http('POST', '/authorization/relations', { body: { subject: `User:${userId}`, relation: 'owner', resource: 'Doc:web' } });
    const page = await browser.newPage();
    await page.goto(appUrl);
    const seen = await page.evaluate(async ({ url, token: t }) =>
      new Promise<unknown>((resolve) => {
        const ws = new WebSocket(url, ['authz', `authz.bearer.${t}`]);
        ws.onopen = () =>
          ws.send(JSON.stringify({ type: 'subscribe', topic: 'decisions', id: 'b', items: [{ action: 'read', resource: 'Doc:web' }, { action: 'read', resource: 'Doc:other' }] }));
        ws.onmessage = (e) => {
          resolve({ protocol: ws.protocol, message: JSON.parse(String(e.data)) });
          ws.close();
        };
        ws.onclose = (e) => resolve({ closed: e.code });
      }), { url: svc.socket, token });
    await page.close();
    expect(seen).toEqual({
      protocol: 'authz',
      message: { type: 'subscribed', id: 'b', items: [
        { action: 'read', resource: 'Doc:web', allowed: true, revision: expect.any(Number) },
        { action: 'read', resource: 'Doc:other', allowed: false, revision: expect.any(Number) },
      ] },
    });
  });

  it('refuses the browser form with a wrong token, without the plain protocol, twice, or beside Authorization', async () => {
    const { token } = await login('refused@example.com');
    expect(await upgrade(['authz', 'authz.bearer.garbage'])).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    // The real token with one character changed in its middle: its signature no longer covers it.
    const mid = Math.floor(token.length / 2);
    const forged = token.slice(0, mid) + (token[mid] === 'A' ? 'B' : 'A') + token.slice(mid + 1);
    expect(await upgrade(['authz', `authz.bearer.${forged}`])).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await upgrade([`authz.bearer.${token}`])).toEqual({ status: 400, code: 'BAD_REQUEST' });
    expect(await upgrade(['authz', `authz.bearer.${token}`, 'authz.bearer.other'])).toEqual({ status: 400, code: 'BAD_REQUEST' });
    expect(await upgrade(['authz', `authz.bearer.${token}`], { authorization: `Bearer ${token}` })).toEqual({ status: 400, code: 'BAD_REQUEST' });
    // The long-lived token is never taken from the URL.
    for (const name of ['access_token', 'token', 'authorization']) {
      expect(await upgrade(['authz'], {}, `${svc.socket}?${name}=${encodeURIComponent(token)}`)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    }
  });

  it('selects the plain protocol and never echoes the token; the header form is unchanged', async () => {
    const { token } = await login('echo@example.com');
    expect(await upgrade(['authz', `authz.bearer.${token}`])).toEqual({ protocol: 'authz', echoed: 'authz' });
    expect(await upgrade([], { authorization: `Bearer ${token}` })).toEqual({ protocol: '', echoed: undefined });
    expect(await upgrade(['authz'], { authorization: `Bearer ${token}` })).toEqual({ protocol: 'authz', echoed: 'authz' });
  });

  it('follows the admin change feed with an API token as a protocol entry (the master key never is one)', async () => {
    const url = svc.admin.replace('http', 'ws') + '/authorization/changes?after=0';
    const created = await svc.http('POST', '/api-tokens', { body: { name: 'feed in a browser' } });
    expect(created.status).toBe(201);
    const ws = new WebSocket(url, ['authz', `authz.bearer.${created.body.token as string}`]);
    const first = new Promise<{ type: string }>((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)) as { type: string })));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    expect(ws.protocol).toBe('authz');
    expect(await first).toMatchObject({ type: 'changes' });
    ws.close();
    expect(await upgrade(['authz', 'authz.bearer.garbage'], {}, url)).toMatchObject({ status: 401 });
    expect(await upgrade(['authz', `authz.bearer.${svc.config.MASTER_KEY}`], {}, url)).toMatchObject({ status: 401 });
  });

  it('closes a browser socket of a token that logged out, as it does the header form', async () => {
    const { token } = await login('leaving-browser@example.com');
    const ws = new WebSocket(svc.socket, ['authz', `authz.bearer.${token}`]);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    expect((await fetch(`${svc.client}/authentication/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(await closed).toBe(4001);
    expect(await upgrade(['authz', `authz.bearer.${token}`])).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
  }, 20_000);
});

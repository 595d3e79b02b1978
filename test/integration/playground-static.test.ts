// The playground's static build hosted by some other web server, in headless Chromium: its verdicts work (the worker
// included), and it cannot push, since its origin, where a push would send the API token, is not the service.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ASSET_NAMES, writeStaticPlayground } from '../../src/surfaces/playground/assets.js';
import { launchChromium } from '../support/chromium.js';

const TYPES: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css' };
let dir: string;
let server: Server;
let origin: string;
let browser: Browser | undefined;
/** Every request the host was sent: method, path, answer, and whether it carried credentials. */
const seen: Array<{ method: string; path: string; status: number; authorization: boolean }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'playground-host-'));
  await writeStaticPlayground(dir);
  const files = new Set(['index.html', ...ASSET_NAMES]);
  server = createServer((req, res) => {
    const name = req.url === '/' ? 'index.html' : req.url!.slice(1);
    // A lenient host: it answers any POST with 200, as many do.
    const status = req.method === 'POST' ? 200 : files.has(name) ? 200 : 404;
    seen.push({ method: req.method!, path: req.url!, status, authorization: req.headers.authorization !== undefined });
    if (req.method === 'GET' && files.has(name)) {
      res.writeHead(200, { 'content-type': TYPES[name.split('.').pop()!]! }).end(readFileSync(join(dir, name)));
    } else res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

it('decides every assertion in its worker, and offers no push that would send the token to its host', async () => {
  const page = await browser!.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${origin}/`);
  await page.locator('#results li').first().waitFor({ timeout: 30_000 });
  expect(await page.locator('#summary').textContent()).toBe('9 passed, 0 failed');
  expect(seen).toContainEqual({ method: 'GET', path: '/playground-worker.js', status: 200, authorization: false });

  expect([await page.locator('#push').isDisabled(), await page.locator('#token').isDisabled()]).toEqual([true, true]);
  expect(await page.locator('#push').getAttribute('title')).toContain('served by the service');
  // Even a token and a click put there by script send nothing.
  await page.evaluate(() => {
    (document.getElementById('token') as HTMLInputElement).value = 'agt_secret';
    document.getElementById('push')!.click();
  });
  await new Promise((r) => setTimeout(r, 500));
  expect(seen.filter((r) => r.method !== 'GET' || r.authorization)).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);

// The Swagger UI page (/docs) as a browser shows it under its Content-Security-Policy: every operation of the
// surface's document rendered, an operation expanded, no CSP violation and nothing requested from elsewhere.
import { serviceWithBrowser } from '../support/browser-service.js';

const h = serviceWithBrowser();

it.each(['admin', 'client'] as const)('renders the %s API under its CSP', async (surface) => {
  const origin = surface === 'admin' ? h.svc.admin : h.svc.client;
  const page = await h.browser.newPage();
  const violations: string[] = [];
  const elsewhere: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  page.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) elsewhere.push(r.url());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Refused to load: CSP ${e.violatedDirective} ${e.blockedURI}`));
  });
  const res = await page.goto(`${origin}/docs`);
  expect(res!.headers()['content-security-policy']).toContain("default-src 'none'");
  const operations = page.locator('.opblock');
  await operations.first().waitFor({ timeout: 30_000 }).catch((e: Error) => {
    throw new Error(`${e.message}\n${violations.join('\n')}`);
  });
  const documented = await (await fetch(`${origin}/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
  const expected = Object.values(documented.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
  expect(await operations.count()).toBe(expected);
  // Expanding an operation renders its parameters and schemas (the syntax highlighter, the models' styles).
  await operations.first().locator('.opblock-summary').click();
  await page.locator('.opblock-body').first().waitFor({ timeout: 10_000 });
  await page.waitForTimeout(500);
  expect(violations).toEqual([]);
  expect(elsewhere).toEqual([]);
  await page.close();
}, 60_000);

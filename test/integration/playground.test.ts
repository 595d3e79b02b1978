// The playground as a developer uses it, in headless Chromium under the page's CSP: an example loaded, an assertion
// broken and seen failing, a decision's path drawn, scenario files opened and saved, the model and tuples pushed with
// an API token and a real check over HTTP agreeing; the static build opened from disk; and the keystroke-to-verdict
// time on a 20-type, 1,000-tuple model, printed (not asserted).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Evaluator } from '../../src/engine/evaluator.js';
import { parseTupleText } from '../../src/engine/ids.js';
import { Model } from '../../src/engine/model.js';
import { runScenario } from '../../src/engine/scenario-run.js';
import { expandDefinition, parseScenario, type RawDefinition, type Scenario } from '../../src/engine/scenario.js';
import { ROOT } from '../../src/root.js';
import { writeStaticPlayground } from '../../src/surfaces/playground/assets.js';
import { rng } from '../support/random.js';
import { eventually } from '../support/eventually.js';
import { serviceWithBrowser } from '../support/browser-service.js';

const ARTIFACTS = join(ROOT, 'test-artifacts');
const h = serviceWithBrowser();

/** A page on the playground that records CSP violations, page errors and requests to anywhere but the service. */
async function open(url: string) {
  const page = await h.browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const violations: string[] = [];
  const elsewhere: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  page.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith(h.svc.admin) && !/^(data|blob|file):/.test(r.url())) elsewhere.push(r.url());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Refused to load: CSP ${e.violatedDirective} ${e.blockedURI}`));
  });
  const res = await page.goto(url);
  await page.locator('#results li').first().waitFor({ timeout: 30_000 }).catch((e: Error) => {
    throw new Error(`${e.message}\n${violations.join('\n')}`);
  });
  return { page, res, violations, elsewhere };
}

const summary = (page: Page) => page.locator('#summary').textContent();
const status = (page: Page) => page.locator('#status').textContent();
const row = (page: Page, at: string) => page.locator(`#results li[data-at="${at}"]`);

it('serves the page under its CSP, its script and stylesheet, and names a file it does not have', async () => {
  const res = await fetch(`${h.svc.admin}/playground`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const csp = res.headers.get('content-security-policy')!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(await res.text()).toContain('src="/playground/assets/playground.js"');
  const js = await fetch(`${h.svc.admin}/playground/assets/playground.js`);
  expect([js.status, js.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
  // The engine itself is in the bundle, not a copy of its answers.
  expect(await js.text()).toContain('self-access: the subject is the resource');
  const css = await fetch(`${h.svc.admin}/playground/assets/playground.css`);
  expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
  const missing = await fetch(`${h.svc.admin}/playground/assets/secrets.json`);
  expect([missing.status, (await missing.json() as { code: string }).code]).toEqual([404, 'NOT_FOUND']);
  // The client surface has no playground: it is a tool for operators.
  expect((await fetch(`${h.svc.client}/playground`)).status).toBe(404);
});

it('loads an example, fails a broken assertion, draws its path, saves and opens files, and pushes to the server', async () => {
  const { page, res, violations, elsewhere } = await open(`${h.svc.admin}/playground`);
  expect(res!.headers()['content-security-policy']).toContain("default-src 'none'");

  // Load an example: the other one first, since the page opens with this one.
  await page.selectOption('#example', 'public-pages');
  await eventually(() => summary(page), '5 passed, 0 failed');
  await page.selectOption('#example', 'folders-teams-documents');
  await eventually(() => summary(page), '9 passed, 0 failed');

  // Break an assertion by typing: the first check says User:dev may not read the document, which they may.
  const assertions = page.locator('#assertions');
  expect((await assertions.inputValue()).split('\n')[0]).toBe('User:dev read Document:rfc = true');
  await assertions.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('End');
  for (let i = 0; i < 'true'.length; i++) await page.keyboard.press('Backspace');
  await page.keyboard.type('false');
  await eventually(() => summary(page), '8 passed, 1 failed');
  await expect(row(page, '$.checks[0]').getAttribute('class')).resolves.toContain('fail');
  expect(await row(page, '$.checks[0]').locator('.detail').textContent()).toBe('expected "deny", got "allow"');
  // Its line in the editor is marked too.
  const mark = page.locator('[aria-label="Assertions"]').locator('xpath=..').locator('.mark.fail');
  expect([await mark.count(), await mark.getAttribute('title')]).toEqual([1, expect.stringContaining('can(User:dev, read, Document:rfc)')]);

  // Click the decision: its path, subject at the top, resource at the bottom.
  await row(page, '$.checks[0]').click();
  expect(await page.locator('#decision').textContent()).toMatch(/^User:dev read Document:rfc: allowed\. User:dev#member@Team:eng -> /);
  expect(await page.locator('#graph .node').evaluateAll((els) => els.map((e) => e.getAttribute('data-object'))))
    .toEqual(['User:dev', 'Team:eng', 'Folder:specs', 'Folder:api', 'Document:rfc']);
  expect(await page.locator('#graph .edge text').allTextContents()).toEqual(['member', 'owner', 'parent', 'owner']);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'playground.png') });
  expect(readFileSync(join(ARTIFACTS, 'playground.png')).length).toBeGreaterThan(20_000);
  // A denied decision: the two objects and no path between them.
  await row(page, '$.checks[1]').click();
  expect(await page.locator('#decision').textContent()).toMatch(/^User:dev edit Document:rfc: denied\./);
  expect(await page.locator('#graph .edge text').allTextContents()).toEqual(['no path']);

  // Save: the scenario file as edited, which the CLI's reader and runner take.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
  expect(download.suggestedFilename()).toBe('a-team-owns-a-folder-tree-a-folder-owns-a-document.json');
  const saved = parseScenario(JSON.parse(readFileSync((await download.path())!, 'utf8')));
  expect(saved.problems).toEqual([]);
  expect(saved.scenario!.checks![0]).toEqual({ subject: 'User:dev', action: 'read', resource: 'Document:rfc', expect: false });
  expect(runScenario(saved.scenario!).failed).toBe(1);

  // Open a shipped scenario file with steps: every assertion of every stage is decided.
  const file = join(ROOT, 'test/fixtures/conformance/cases/redefine-add-relation.json');
  await page.setInputFiles('#open', file);
  const expected = runScenario(parseScenario(JSON.parse(readFileSync(file, 'utf8'))).scenario!);
  await eventually(() => summary(page), `${expected.passed} passed, 0 failed`);
  expect(await page.locator('#steps-pane').getAttribute('open')).not.toBeNull();
  expect(await row(page, '$.steps[1].checks[0]').getAttribute('class')).toContain('pass');
  await page.setInputFiles('#open', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"checks": 3}') });
  await eventually(() => status(page), 'bad.json: $.checks: must be an array');

  // Push the example with an API token; the server then decides as the playground does.
  await page.selectOption('#example', 'public-pages');
  await page.selectOption('#example', 'folders-teams-documents');
  await page.fill('#token', 'agt_not-a-token');
  await page.click('#push');
  await eventually(() => status(page), /^Push failed: POST \/authorization\/resources: 401 UNAUTHENTICATED/);
  const token = await h.svc.http('POST', '/api-tokens', { body: { name: 'playground test' } });
  expect(token.status).toBe(201);
  await page.fill('#token', token.body.token);
  await page.click('#push');
  await eventually(() => status(page), /^Pushed 2 definitions, 6 tuples and 0 grants at revision \d+/, 30_000);
  const revision = await page.locator('#status').getAttribute('data-revision');
  const example = (await import('../../src/surfaces/playground/browser/examples.js')).EXAMPLES['folders-teams-documents']!;
  for (const c of example.checks!) {
    const q = new URLSearchParams({ subject: c.subject, permission: c.action, resource: c.resource, consistency: 'at_least_as_fresh', revision: revision! });
    const answer = await h.svc.http('GET', `/authorization/permissions/can?${q}`, { headers: { authorization: `Bearer ${token.body.token}` } });
    expect([c, answer.status, answer.body.allowed]).toEqual([c, 200, c.expect]);
  }
  const evaluated = await h.svc.http('GET', `/authorization/permissions/evaluate?${new URLSearchParams({ subject: 'User:dev', permission: 'read', resource: 'Document:rfc' })}`);
  expect(evaluated.body.paths).toEqual(['User:dev#member@Team:eng', 'Team:eng#owner@Folder:specs', 'Folder:specs#parent@Folder:api', 'Folder:api#owner@Document:rfc']);

  expect(violations).toEqual([]);
  expect(elsewhere).toEqual([]);
  await page.close();
}, 120_000);

it('works as static files opened from disk, with pushing turned off', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'playground-'));
  try {
    await writeStaticPlayground(dir);
    const page = await h.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`file://${join(dir, 'index.html')}`);
    await eventually(() => summary(page), '9 passed, 0 failed');
    expect(await page.locator('#push').isDisabled()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** 20 types in a parent chain, 1,000 tuples, and checks whose expectations the engine gives (so all pass). */
function generated(): Scenario {
  const r = rng(22);
  const types = Array.from({ length: 20 }, (_, i) => `T${i}`);
  const definitions: RawDefinition[] = types.map((name, i) => ({
    name,
    relations: { owner: ['User', 'Team'], viewer: ['User'], ...(i ? { parent: [types[i - 1]!] } : {}) },
    permissions: {
      read: ['viewer', 'owner', 'owner->read', ...(i ? ['parent->read'] : [])],
      edit: ['owner', 'owner->edit', ...(i ? ['parent->edit'] : [])],
    },
  }));
  // The probe reads T19:o0 through 19 parent hops from T0:o0; its line is the first of each editor.
  const tuples = new Set(['User:probe#viewer@T0:o0']);
  for (let i = 1; i < 20; i++) for (let j = 0; j < 10; j++) tuples.add(`T${i - 1}:o${j}#parent@T${i}:o${j}`);
  for (let k = 0; k < 100; k++) tuples.add(`User:u${k}#member@Team:t${k % 10}`);
  for (let j = 0; j < 10; j++) tuples.add(`Team:t${j}#owner@T0:o${j}`);
  while (tuples.size < 1000) tuples.add(`User:u${r.int(0, 300 - 1)}#viewer@T${r.int(0, 20 - 1)}:o${r.int(0, 10 - 1)}`);
  const model = new Model(definitions.map(expandDefinition));
  const ev = new Evaluator(model, [...tuples].map((t) => parseTupleText(t)!));
  const checks = [{ subject: 'User:probe', action: 'read', resource: 'T19:o0', expect: true }];
  for (let i = 0; i < 49; i++) {
    const [subject, action, resource] = [`User:u${r.int(0, 300 - 1)}`, r.int(0, 2 - 1) ? 'read' : 'edit', `T${r.int(0, 20 - 1)}:o${r.int(0, 10 - 1)}`];
    checks.push({ subject, action, resource, expect: ev.can(subject, action, resource) });
  }
  return { name: 'generated: 20 types, 1,000 tuples', source: 'playground test', definitions, tuples: [...tuples], checks };
}

it('prints the keystroke-to-verdict time on a model of 20 types and 1,000 tuples', async () => {
  const sc = generated();
  const { page, violations } = await open(`${h.svc.admin}/playground`);
  await page.setInputFiles('#open', { name: 'generated.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(sc)) });
  await eventually(() => summary(page), '50 passed, 0 failed');

  /** One keystroke in an editor whose caret is set; resolves with the ms from keydown to the first check's new verdict. */
  const keystroke = async (key: string, verdict: 'pass' | 'fail') => {
    await page.evaluate((want) => {
      const w = window as unknown as { verdictMs: Promise<number> };
      w.verdictMs = new Promise<number>((resolve, reject) => {
        let start = 0;
        document.addEventListener('keydown', () => {
          start = performance.now();
        }, { once: true, capture: true });
        const results = document.getElementById('results')!;
        const seen = new MutationObserver(() => {
          if (!start || !results.querySelector(`li[data-at="$.checks[0]"].${want}`)) return;
          seen.disconnect();
          // Measured to the next frame, when the new verdict is on screen.
          requestAnimationFrame(() => resolve(performance.now() - start));
        });
        seen.observe(results, { childList: true, subtree: true, attributes: true });
        setTimeout(() => reject(new Error(`no ${want} verdict 10 s after the keystroke`)), 10_000);
      });
    }, verdict);
    await page.keyboard.press(key);
    return page.evaluate(() => (window as unknown as { verdictMs: Promise<number> }).verdictMs);
  };
  const figures: Record<string, number[]> = {};
  for (const editor of ['tuples', 'assertions'] as const) {
    // The caret after "User:probe", on the first line: an x makes it another subject, a backspace makes it the probe again.
    await page.locator(`#${editor}`).evaluate((ta: HTMLTextAreaElement) => {
      ta.focus();
      ta.setSelectionRange(10, 10);
    });
    figures[editor] = [];
    for (let round = 0; round < 10; round++) {
      figures[editor].push(await keystroke('x', 'fail'));
      figures[editor].push(await keystroke('Backspace', 'pass'));
    }
    expect(await summary(page)).toBe('50 passed, 0 failed');
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const line = (name: string) => `${name} editor median ${median(figures[name]!).toFixed(0)} ms, max ${Math.max(...figures[name]!).toFixed(0)} ms`;
  console.log(`playground keystroke-to-verdict (20 types, 1,000 tuples, 50 checks, ${figures.tuples!.length} keystrokes each, `
    + `debounce included): ${line('tuples')}; ${line('assertions')}`);
  expect(violations).toEqual([]);
  await page.close();
}, 120_000);

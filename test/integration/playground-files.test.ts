// The playground given the scenario files users bring, in headless Chromium: YAML as the CLI takes it; a large file
// drawn in part (failures first) and counted whole; a slow one worked out without freezing the page.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Scenario } from '../../src/engine/scenario.js';
import { MAX_MARKS, MAX_ROWS } from '../../src/surfaces/playground/browser/limits.js';
import { ROOT } from '../../src/root.js';
import { eventually } from '../support/eventually.js';
import { serviceWithBrowser } from '../support/browser-service.js';

const h = serviceWithBrowser();

/** The served playground, with page errors collected. */
async function open() {
  const page = await h.browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${h.svc.admin}/playground`);
  await page.locator('#results li').first().waitFor({ timeout: 30_000 });
  return { page, errors };
}

const openFile = (page: Page, sc: Scenario) => page.setInputFiles('#open', { name: 'large.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(sc)) });

it("opens the README's YAML example, every assertion decided", async () => {
  const { page, errors } = await open();
  await page.setInputFiles('#open', join(ROOT, 'examples', 'docs.yaml'));
  await eventually(() => page.locator('#summary').textContent(), '8 passed, 0 failed', 30_000);
  expect(await page.locator('#status').textContent()).toBe('Opened docs.yaml');
  expect(await page.locator('#name').inputValue()).toBe('documents in folders, shared with people and teams');
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);

const definitions = [{ name: 'Doc', relations: { viewer: ['User'], parent: ['Doc'] }, permissions: { read: ['viewer', 'parent->read'] } }];

it('draws at most its bound of verdicts and gutter marks, failures first, and counts them all', async () => {
  const n = MAX_MARKS + 1000;
  const checks = Array.from({ length: n }, (_, i) => ({ subject: `User:u${i % 100}`, action: 'read', resource: `Doc:d${i % 100}`, expect: i !== n - 1 }));
  const { page, errors } = await open();
  await openFile(page, { name: 'many checks', definitions, tuples: Array.from({ length: 100 }, (_, i) => `User:u${i}#viewer@Doc:d${i}`), checks });
  await eventually(() => page.locator('#summary').textContent(), `${n - 1} passed, 1 failed`, 30_000);
  expect(await page.locator('#results li').count()).toBe(MAX_ROWS + 1);
  // The one failure, last in the file, is listed; the last row says how many are not.
  expect(await page.locator(`#results li[data-at="$.checks[${n - 1}]"]`).getAttribute('class')).toContain('fail');
  expect(await page.locator('#results li.more').textContent()).toBe(`… and ${n - MAX_ROWS} more verdicts, not listed`);
  const gutter = page.locator('[aria-label="Assertions"]').locator('xpath=..').locator('.mark');
  expect(await gutter.count()).toBe(MAX_MARKS);
  expect(await gutter.locator('xpath=self::*[contains(@class, "fail")]').count()).toBe(1);

  // As many bad lines: problems are bounded too.
  await page.locator('#tuples').evaluate((ta: HTMLTextAreaElement, text) => {
    ta.value = text;
    ta.dispatchEvent(new Event('input'));
  }, Array.from({ length: n }, (_, i) => `not a tuple ${i}`).join('\n'));
  await eventually(() => page.locator('#problems li.more').textContent(), `… and ${n - MAX_ROWS} more problems, not listed`, 30_000);
  expect(await page.locator('#problems li').count()).toBe(MAX_ROWS + 1);
  expect(errors).toEqual([]);
  await page.close();
}, 120_000);

it("works out slow verdicts off the page's thread: the page says so, stays editable, and an edit replaces them", async () => {
  // One list over a parent chain of 2,000 documents takes the engine seconds: typing must not wait for it.
  const tuples = [...Array.from({ length: 1999 }, (_, i) => `Doc:d${i}#parent@Doc:d${i + 1}`), 'User:a#viewer@Doc:d0'];
  const { page, errors } = await open();
  await openFile(page, {
    name: 'slow',
    definitions,
    tuples,
    listObjects: [{ subject: 'User:a', action: 'read', type: 'Doc', expect: [] }],
    checks: [{ subject: 'User:a', action: 'read', resource: 'Doc:d1', expect: true }],
  });
  // Read while the engine works: on the page's thread, nothing could be read until it was done.
  await eventually(() => page.locator('#summary').textContent(), 'evaluating…', 30_000);
  expect(await page.locator('#results').getAttribute('class')).toContain('stale');
  await page.locator('#assertions').evaluate((ta: HTMLTextAreaElement) => {
    ta.value = 'User:a read Doc:d1999 = true';
    ta.dispatchEvent(new Event('input'));
  });
  await eventually(() => page.locator('#summary').textContent(), '1 passed, 0 failed', 30_000);
  expect(await page.locator('#results li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-at')))).toEqual(['$.checks[0]']);
  expect(errors).toEqual([]);
  await page.close();
}, 120_000);

it("shows a hostile file's names and ids as text: in the status, the verdicts, the gutter and the path graph", async () => {
  const { page, errors } = await open();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  // Ids may hold anything but #, @ and whitespace: markup included.
  const [who, what] = ['User:<svg/onload=alert(1)>', 'Doc:<img/src=x/onerror=alert(2)>'];
  const file = '<img src=x onerror=alert(3)>.json';
  await page.setInputFiles('#open', { name: file, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({
    name: '<script>alert(4)</script>',
    definitions,
    tuples: [`${who}#viewer@${what}`],
    checks: [{ subject: who, action: 'read', resource: what, expect: false }, { subject: '<b>x</b>', action: 'read', resource: what, expect: true }],
  })) });
  await eventually(() => page.locator('#summary').textContent(), '0 passed, 2 failed', 30_000);
  expect(await page.locator('#status').textContent()).toBe(`Opened ${file}`);
  expect(await page.locator('#name').inputValue()).toBe('<script>alert(4)</script>');
  expect(await page.locator('#results li .what').allTextContents()).toEqual([`can(${who}, read, ${what})`, `can(<b>x</b>, read, ${what})`]);
  const marks = page.locator('[aria-label="Assertions"]').locator('xpath=..').locator('.mark');
  expect(await marks.first().getAttribute('title')).toContain(`can(${who}, read, ${what})`);
  await page.locator('#results li[data-at="$.checks[0]"]').click();
  expect(await page.locator('#graph .node').evaluateAll((els) => els.map((e) => e.getAttribute('data-object')))).toEqual([who, what]);
  expect(await page.locator('#graph title').allTextContents()).toEqual([who, what]);
  expect(await page.locator('#decision').textContent()).toContain(`${who}#viewer@${what}`);
  // Nothing the file held became an element.
  expect(await page.evaluate(() => document.querySelectorAll('main img, main script, main b, main svg:not(#graph) svg, #graph svg').length)).toBe(0);
  await new Promise((r) => setTimeout(r, 300));
  expect([dialogs, errors]).toEqual([[], []]);
  await page.close();
}, 60_000);

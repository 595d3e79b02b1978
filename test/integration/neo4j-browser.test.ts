// Neo4j Browser as an operator uses it: headless Chromium opens Browser on the test stack, loads the project's style,
// runs the `path` query of cypher/operators.cypher on a projected graph and shows objects by key and edges by relation.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ROOT } from '../../src/root.js';
import { loadCypher } from '../../src/stores/neo4j/connection.js';
import { launchChromium } from '../support/chromium.js';
import { startService, type TestService } from '../support/service.js';

const ARTIFACTS = join(ROOT, 'test-artifacts');
let svc: TestService;
let browser: Browser | undefined;

beforeAll(async () => {
  svc = await startService();
  expect((await svc.http('POST', '/authorization/resources', { body: {
    name: 'Document',
    relations: { owner: ['User', 'Team'], viewer: ['User'] },
    permissions: { read: ['viewer', 'owner', 'owner->read'] },
  } })).status).toBe(200);
  for (const [subject, relation, resource] of [['User:alice', 'member', 'Team:t'], ['Team:t', 'owner', 'Document:d1'], ['User:bob', 'viewer', 'Document:d1']]) {
    expect((await svc.http('POST', '/authorization/relations', { body: { subject, relation, resource } })).status).toBe(201);
  }
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

it('draws the tuples from a user to a document, objects by key and edges by relation, and saves a screenshot', async () => {
  const bolt = new URL(process.env.NEO4J_URI!);
  const http = process.env.NEO4J_BROWSER_URL!;
  expect(http).toBeTruthy();
  const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
  // Nothing outside this machine: Browser's fonts, analytics and error reporting would only time out.
  await page.route((url) => !['127.0.0.1', 'localhost'].includes(url.hostname), (r) => r.abort());
  await page.goto(`${http}?dbms=bolt://${bolt.host}&preselectAuthMethod=NO_AUTH`);
  await page.getByText('Connected to Neo4j').waitFor({ timeout: 60_000 });
  // Each command adds a frame; the next one is typed once it is there (the editor is busy until then).
  const frames = page.locator('[data-testid="frame"]');
  const run = async (command: string) => {
    const before = await frames.count();
    await page.locator('[data-testid="activeEditor"]').click();
    await page.keyboard.insertText(command);
    await page.keyboard.press('Enter');
    for (let waited = 0; (await frames.count()) <= before; waited += 100) {
      if (waited > 20_000) throw new Error(`Browser did not run: ${command.slice(0, 80)}`);
      await page.waitForTimeout(100);
    }
  };
  const style = readFileSync(join(ROOT, 'cypher', 'browser.grass'), 'utf8').replace(/\s*\n\s*/g, ' ');
  await run(`:style ${style}`);
  await run(":param subject => 'User:alice'");
  await run(":param resource => 'Document:d1'");
  const query = loadCypher('operators.cypher').get('path')!.split('\n').filter((l) => !l.trim().startsWith('//')).join(' ');
  await run(query);

  const edges = page.locator('svg g.relationship text');
  mkdirSync(ARTIFACTS, { recursive: true });
  try {
    await edges.first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1000); // the layout settles
  } finally {
    await page.screenshot({ path: join(ARTIFACTS, 'neo4j-browser-path.png') });
  }
  expect((await edges.allTextContents()).map((t) => t.trim()).sort()).toEqual(['member', 'owner']);
  // A caption may wrap over several text lines inside its circle.
  const nodes = await page.locator('svg g.node').evaluateAll((els) => els.map((e) => [...e.querySelectorAll('text')].map((t) => (t.textContent ?? '').trim()).join('')));
  expect(nodes.sort()).toEqual(['Document:d1', 'Team:t', 'User:alice']);
  expect(readFileSync(join(ARTIFACTS, 'neo4j-browser-path.png')).length).toBeGreaterThan(10_000);
}, 120_000);

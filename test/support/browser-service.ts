// A browser test file's service and headless Chromium: started before its tests, stopped after them.
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { startService, type TestService } from './service.js';

export interface BrowserService {
  svc: TestService;
  browser: Browser;
}

/** Registers the file's beforeAll and afterAll; the fields are set once beforeAll has run. */
export function serviceWithBrowser(): BrowserService {
  const h = {} as Partial<BrowserService>;
  beforeAll(async () => {
    h.svc = await startService();
    h.browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await h.browser?.close();
    await h.svc?.stop();
  });
  return h as BrowserService;
}

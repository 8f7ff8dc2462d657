// Headless Chromium for the browser tests (dashboard, portal): Debian's build, launched with the
// flags this machine needs, and a context that keeps every request on 127.0.0.1 and records page
// errors (a CSP refusal included), so a test can assert that none happened.
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** `false` when Chromium is installed, else the reason the browser tests are skipped. */
export const chromiumSkip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed (apt-get install chromium): the browser test is skipped`;

export async function launchBrowser(options: {
  width: number;
  /** Chromium's launch and every wait for the page, in ms. */
  waitMs: number;
  /** Requests to anything but 127.0.0.1, refused and recorded here. */
  offsite: string[];
  /** Uncaught page errors and CSP refusals, recorded here. */
  pageErrors: string[];
}): Promise<{ browser: Browser; context: BrowserContext }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    timeout: options.waitMs,
  });
  const context = await browser.newContext({
    viewport: { width: options.width, height: 900 },
    colorScheme: 'light',
  });
  context.setDefaultTimeout(options.waitMs);
  // Nothing leaves 127.0.0.1: any other request is refused and recorded.
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    options.offsite.push(url.href);
    return route.abort();
  });
  context.on('page', (page) => {
    page.on('pageerror', (e) => options.pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content.Security.Policy|Refused to/i.test(m.text()))
        options.pageErrors.push(m.text());
    });
  });
  return { browser, context };
}

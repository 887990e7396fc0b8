/**
 * Headless Chromium for the HTML pages `cas` writes (test/cli/html-report.test.ts,
 * test/cli/portfolio-html.test.ts): playwright-core over the system's Chromium, and a page opened
 * with a record of everything that went wrong on it.
 */
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';

/** Chromium at `executablePath`, headless, without a sandbox, the GPU or background traffic. */
export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Open a page and record everything that went wrong on it: console errors, page errors, failed or outside requests, dialogs. */
export async function openPage(browser: Browser, file: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('request', (r) => {
    if (!/^(file|data):/.test(r.url())) problems.push(`request to the network: ${r.url()}`);
  });
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return { page, problems };
}

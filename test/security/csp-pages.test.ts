// The server's two HTML pages under their content security policy, in Debian's Chromium (playwright-core):
// /docs (Swagger UI) renders the API and /ussd/simulator dials, with no CSP violation and no console error
// (issue 36 item 5). Runs when /usr/bin/chromium (or CHROMIUM_PATH) is here; skipped with the reason
// otherwise, except in CI (CI set, as .ci/run does), where a missing browser fails.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { newOracleKey } from '../helpers/oracle/oracle-app.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const inCi = !['', '0', 'false'].includes(process.env['CI'] ?? '');
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && inCi) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);

describe.runIf(haveChromium)('HTML pages under their content security policy, in Chromium', () => {
  let t: TestApp;
  let browser: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    t = await startTestApp({
      env: { ORACLE_SIGNING_KEY: await newOracleKey(), USSD_RATE_LIMIT_PER_MINUTE: '0' },
    });
    profile = mkdtempSync(path.join(os.tmpdir(), 'csp-pages-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await t?.close();
  });

  /** A page that records CSP violations (the DOM event and the console's report) and errors. */
  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${String(e)}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()}: ${new URL(r.url()).pathname}`);
    });
    page.on('console', (m) => {
      // The browser asks for /favicon.ico by itself (the docs page names none): a 404 of no concern here.
      if (m.location().url.endsWith('/favicon.ico')) return;
      if (m.type() === 'error' || /content security policy/i.test(m.text()))
        problems.push(`console: ${m.text()} (${m.location().url})`);
    });
    await page.exposeFunction('reportViolation', (v: string) => problems.push(`violation: ${v}`));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        (window as unknown as { reportViolation(v: string): void }).reportViolation(
          `${e.violatedDirective} ${e.blockedURI}`,
        );
      });
    });
    const response = await page.goto(url);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    return { page, problems };
  }

  it('/docs: Swagger UI renders the operations with no CSP violation', async () => {
    const { page, problems } = await open(`${t.url}/docs`);
    await page.waitForSelector('.swagger-ui .opblock', { timeout: 20_000 });
    expect(await page.$$eval('.swagger-ui .opblock', (els) => els.length)).toBeGreaterThan(10);
    // Opening an operation renders its schema (more of Swagger UI's own code and styles).
    await page.click('.swagger-ui .opblock .opblock-summary');
    await page.waitForSelector('.swagger-ui .opblock-body', { timeout: 10_000 });
    await page.waitForTimeout(300);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('/ussd/simulator: the phone and the menu map render and a dial answers, with no CSP violation', async () => {
    const { page, problems } = await open(`${t.url}/ussd/simulator`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 20_000 });
    expect(await page.$$eval('[data-testid=map] [data-node]', (els) => els.length)).toBeGreaterThan(10);
    // The map's own styles apply (its <style> is allowed by hash): a box is filled white, not black.
    expect(
      await page.$eval('[data-testid=map] .box', (el) => getComputedStyle(el).getPropertyValue('fill')),
    ).toBe('rgb(255, 255, 255)');
    await page.click('[data-testid=send]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=log-entry]').length > 0, null, {
      timeout: 15_000,
    });
    expect(await page.textContent('[data-testid=screen]')).toMatch(/\S/);
    await page.waitForTimeout(300);
    expect(problems).toEqual([]);
    await page.close();
  });
});

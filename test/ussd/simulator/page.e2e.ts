// The USSD simulator page (/ussd/simulator) in Debian's Chromium (playwright-core), against the real server
// as `npm start` runs it (embedded defaults, a fresh data directory, a 3-second session TTL, a free port).
// It dials, opens Know More, creates an account with a PIN, logs in, switches to Kiswahili, and after waiting
// out the TTL sees the expired-session END; the menu map highlights each screen. Screenshots go to
// test/ussd/simulator/artifacts/ (ignored by git). Run: npm run ussd:e2e (CHROMIUM_PATH overrides /usr/bin/chromium).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { USSD_SESSION_EXPIRED_REPLY } from '../../../contracts/ussd.js';
import { untilServing } from '../../helpers/child-server.js';
import { freePort } from '../../helpers/private-redis.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));
const TTL_SECONDS = 3;

const screenText = (page: Page): Promise<string> =>
  page.textContent('[data-testid=screen]').then((t) => t ?? '');

/** Types `input` on the keypad (or the reply field for letters) and sends it; waits for the next reply. */
async function type(page: Page, input: string): Promise<string> {
  const before = await page.$$eval('[data-testid=log-entry]', (els) => els.length);
  if (/^[0-9*#]+$/.test(input)) {
    for (const key of input) await page.click(`[data-key="${key}"]`);
  } else {
    await page.fill('[data-testid=reply]', input);
  }
  await page.click('[data-testid=send]');
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid=log-entry]').length === n + 1,
    before,
    { timeout: 15_000 },
  );
  return screenText(page);
}

/** Waits until the map highlights `node` (the page asks /api/ussd/debug after each CON). */
async function onScreen(page: Page, node: string): Promise<void> {
  await page.waitForFunction(
    (id) => document.querySelector('[data-testid=map] .current')?.getAttribute('data-node') === id,
    node,
    { timeout: 10_000 },
  );
}

interface Step {
  name: string;
  run: (page: Page) => Promise<void>;
}

let customerId = '';
const steps: Step[] = [
  {
    name: 'shows the phone, the settings, the log and the menu map',
    run: async (page) => {
      await page.waitForSelector('body[data-ready=true]');
      const boxes = await page.$$eval('[data-testid=map] [data-node]', (els) => els.length);
      if (boxes < 10) throw new Error(`the map shows ${boxes} screens`);
      if ((await page.inputValue('[data-testid=service-code]')) !== '*384*123#')
        throw new Error('service code');
      await page.screenshot({ path: `${artifacts}1-idle.png` });
    },
  },
  {
    name: 'dials: the top menu (CON) on the screen, preMenu highlighted on the map',
    run: async (page) => {
      await page.click('[data-testid=call]');
      await onScreen(page, 'preMenu');
      const text = await screenText(page);
      if (!text.includes('1. ') || !text.endsWith('*. Exit')) throw new Error(`top menu: ${text}`);
    },
  },
  {
    name: 'opens Know More',
    run: async (page) => {
      await type(page, '1');
      await onScreen(page, 'knowMore');
      const log = await page.textContent('[data-testid=log-entry]');
      if (!log?.includes('text="1"')) throw new Error(`log: ${log}`);
      await page.screenshot({ path: `${artifacts}2-know-more.png` });
    },
  },
  {
    name: 'creates an account with a PIN: the screen shows its customer ID',
    run: async (page) => {
      await type(page, '0');
      await onScreen(page, 'preMenu');
      await type(page, '2');
      await type(page, '2');
      await onScreen(page, 'createName');
      await type(page, 'Amina Otieno');
      await type(page, '00');
      await onScreen(page, 'createPin');
      await type(page, '13579');
      const created = await type(page, '13579');
      await onScreen(page, 'accountCreated');
      customerId = /C[0-9A-Z]{8}/.exec(created)?.[0] ?? '';
      if (!customerId) throw new Error(`no customer ID: ${created}`);
      const log = await page.textContent('[data-testid=log-entry]');
      if (!log?.includes('text="1*0*2*2*Amina Otieno*00*13579*13579"'))
        throw new Error(`accumulated text: ${log}`);
      await page.screenshot({ path: `${artifacts}3-account-created.png` });
    },
  },
  {
    name: 'logs in with the PIN: Services appears in the top menu',
    run: async (page) => {
      await type(page, '1');
      await onScreen(page, 'loginChoice');
      if (!(await screenText(page)).includes(customerId)) throw new Error('the bound account is not offered');
      await type(page, '1');
      await onScreen(page, 'loginPin');
      await type(page, '13579');
      await onScreen(page, 'preMenu');
      await type(page, '3');
      await onScreen(page, 'services');
      await page.screenshot({ path: `${artifacts}4-services.png` });
    },
  },
  {
    name: 'switches to Kiswahili',
    run: async (page) => {
      await type(page, '3');
      await onScreen(page, 'languageMenu');
      const text = await type(page, '2');
      await onScreen(page, 'services');
      if (!text.includes('Kiswahili') || !text.endsWith('*. Toka'))
        throw new Error(`not in Kiswahili: ${text}`);
      await page.screenshot({ path: `${artifacts}5-kiswahili.png` });
    },
  },
  {
    name: `after ${TTL_SECONDS} s without input, the next input is answered with the expired-session END`,
    run: async (page) => {
      await page.waitForTimeout(TTL_SECONDS * 1000 + 1500);
      const text = await type(page, '1');
      if (`END ${text}` !== USSD_SESSION_EXPIRED_REPLY) throw new Error(`after the TTL: ${text}`);
      const state = await page.textContent('[data-testid=state]');
      if (!state?.startsWith('END')) throw new Error(`state: ${state}`);
      await page.screenshot({ path: `${artifacts}6-expired.png` });
      // OK returns to the idle phone, ready to dial again.
      await page.click('[data-testid=send]');
      if (!(await screenText(page)).startsWith('Dial *384*123#')) throw new Error('not idle after END');
    },
  },
];

async function main(): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  const port = await freePort();
  const data = mkdtempSync(path.join(os.tmpdir(), 'ussd-e2e-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      ENABLED_PARTS: 'ussd',
      DATA_DIR: data,
      PGLITE_DATA_DIR: path.join(data, 'pglite'),
      DATABASE_URL: '',
      REDIS_URL: '',
      USSD_SESSION_TTL_SECONDS: String(TTL_SECONDS),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  process.on('exit', () => child.kill('SIGTERM'));
  const profile = mkdtempSync(path.join(os.tmpdir(), 'ussd-e2e-chromium-'));
  let passed = 0;
  let failed = 0;
  try {
    await untilServing(port, child, { ms: 120_000 });
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      viewport: { width: 1600, height: 1000 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
      ],
    });
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      await page.goto(`http://127.0.0.1:${port}/ussd/simulator`);
      for (const step of steps) {
        try {
          await step.run(page);
          passed++;
          console.log(`✓ ${step.name}`);
        } catch (e) {
          failed++;
          console.log(`✗ ${step.name}\n  ${e instanceof Error ? e.message : String(e)}`);
          await page.screenshot({ path: `${artifacts}failure.png` });
          break;
        }
      }
      if (errors.length > 0) {
        failed++;
        console.log(`✗ the page logged errors: ${errors.join('; ')}`);
      }
    } finally {
      await browser.close();
    }
  } finally {
    const exit = once(child, 'exit');
    child.kill('SIGTERM');
    await exit;
    rmSync(profile, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
  console.log(`screenshots in ${path.relative(repoRoot, artifacts)}/`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

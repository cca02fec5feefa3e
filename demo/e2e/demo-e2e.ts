// End-to-end test of the demo page in Debian's Chromium (playwright-core), against the MSW-backed oracle
// (phase 1). Builds the demo, serves it with `vite preview`, drives a chat through streaming text, a rendered
// component, a browser tool, an agent-UI action, a new session and the paywall, and saves a screenshot.
// Run: npm run demo:e2e (CHROMIUM_PATH overrides /usr/bin/chromium).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { build, preview } from 'vite';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));
const config = `${demoDir}vite.config.ts`;
const port = Number(process.env['DEMO_E2E_PORT'] ?? 5179);

interface Step {
  name: string;
  run: (page: Page) => Promise<void>;
}

const send = async (page: Page, text: string): Promise<void> => {
  await page.fill('[data-testid=input]', text);
  await page.click('form button[type=submit]');
};
const statusIs = (page: Page, status: string): Promise<unknown> =>
  page.waitForFunction((s) => document.querySelector('[data-testid=status]')?.textContent === s, status, {
    timeout: 15_000,
  });
const lastAi = (page: Page): Promise<string> =>
  page.$$eval('[data-testid=message-ai]', (els) => els.at(-1)?.textContent ?? '');

const steps: Step[] = [
  {
    name: 'loads the sessions, the welcome history and connects the socket',
    run: async (page) => {
      await page.waitForSelector('[data-testid=sessions] li');
      await page.waitForFunction(
        () => document.querySelector('[data-testid=socket]')?.textContent === 'live',
        null,
        { timeout: 15_000 },
      );
      if (!(await lastAi(page)).includes('Ask me about the weather'))
        throw new Error('welcome history missing');
    },
  },
  {
    name: 'streams an answer word by word',
    run: async (page) => {
      await send(page, 'hello');
      await statusIs(page, 'streaming');
      const partial = await lastAi(page);
      await statusIs(page, 'ready');
      const full = await lastAi(page);
      if (!full.endsWith('through the same events the real service sends.'))
        throw new Error(`answer: ${full}`);
      if (partial.length >= full.length) throw new Error('the answer did not stream in parts');
    },
  },
  {
    name: 'renders a component through uiComponents',
    run: async (page) => {
      await send(page, 'what is the weather?');
      await page.waitForSelector('[data-testid=weather-card]', { timeout: 15_000 });
      await statusIs(page, 'ready');
      const card = await page.textContent('[data-testid=weather-card]');
      if (!card?.includes('Nairobi') || !card.includes('24')) throw new Error(`card: ${card}`);
    },
  },
  {
    name: 'runs a browser tool that reads the page, and its result reaches the agent',
    run: async (page) => {
      await page.fill('#page-note', 'Water the seedlings at six.');
      await send(page, 'read my note');
      await statusIs(page, 'ready');
      const results = await page.evaluate(
        () => (window as unknown as { oracle: { toolResults: unknown[] } }).oracle.toolResults,
      );
      if (JSON.stringify(results).indexOf('Water the seedlings at six.') === -1)
        throw new Error(`results: ${JSON.stringify(results)}`);
      await page.waitForSelector('[data-testid=tool-readPageNote] >> text=done');
    },
  },
  {
    name: 'runs an agent-UI action with its inline render',
    run: async (page) => {
      await send(page, 'highlight a card');
      await statusIs(page, 'ready');
      await page.waitForSelector('#card-2.highlighted');
      const render = await page.textContent('[data-testid=action-render]');
      if (render?.trim() !== '✨ Highlighted card-2') throw new Error(`render: ${render}`);
      await page.screenshot({ path: `${artifacts}chat.png`, fullPage: true });
    },
  },
  {
    name: 'shows the paywall on 402 and pays through transactSignX',
    run: async (page) => {
      await page.check('[data-testid=out-of-credits]');
      await send(page, 'hello again');
      await page.waitForSelector('[data-testid=paywall]');
      if (!(await page.textContent('[data-testid=paywall]'))?.includes('claim-demo-1'))
        throw new Error('claims missing');
      await page.screenshot({ path: `${artifacts}paywall.png` });
      await page.click('[data-testid=paywall] button');
      await page.waitForSelector('[data-testid=paywall]', { state: 'detached' });
      await page.uncheck('[data-testid=out-of-credits]');
    },
  },
  {
    name: 'creates a new session',
    run: async (page) => {
      const before = await page.$$eval('[data-testid=sessions] li', (els) => els.length);
      await page.click('text=+ New chat');
      await page.waitForFunction(
        (n) => document.querySelectorAll('[data-testid=sessions] li').length === n + 1,
        before,
      );
      await send(page, 'hello');
      await statusIs(page, 'ready');
    },
  },
];

async function main(): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  execFileSync(
    process.execPath,
    [
      fileURLToPath(new URL('../../node_modules/msw/cli/index.js', import.meta.url)),
      'init',
      `${demoDir}public`,
      '--save=false',
    ],
    { stdio: 'ignore' },
  );
  await build({ configFile: config, logLevel: 'warn' });
  const server = await preview({ configFile: config, preview: { port, strictPort: true } });
  const browser = await chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  let passed = 0;
  let failed = 0;
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://localhost:${port}/`);
    for (const step of steps) {
      try {
        await step.run(page);
        passed++;
        console.log(`✓ ${step.name}`);
      } catch (e) {
        failed++;
        console.log(`✗ ${step.name}\n  ${e instanceof Error ? e.message : String(e)}`);
        await page.screenshot({ path: `${artifacts}failure-${passed + failed}.png` });
        break;
      }
    }
    await page.screenshot({ path: `${artifacts}demo.png`, fullPage: true });
    if (errors.length > 0) {
      failed++;
      console.log(`✗ the page threw: ${errors.join('; ')}`);
    }
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => server.httpServer.close(() => resolve()));
  }
  console.log(`screenshots in ${artifacts}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

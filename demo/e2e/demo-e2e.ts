// End-to-end test of the demo page in Debian's Chromium (playwright-core), against the real local service:
// `scripts/tools/demo-server.ts --fresh` starts the server (embedded defaults, a fresh data directory, the demo's
// scripted-model rules, 4 credits) and Vite with its proxy, on free ports. The test drives a chat through
// streaming text, a rendered component, a browser tool whose result the agent's answer quotes, an agent-UI
// action, the paywall on 402, a new session, and a tool call that waits for the user's approval (approved
// after a page reload while it waits; then one denied with a reason), and saves screenshots
// (artifacts/demo-e2e.png).
// Run: npm run demo:e2e (CHROMIUM_PATH overrides /usr/bin/chromium).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));
/** The turns the user may take before the oracle asks for payment (credits plugin, one credit a turn). */
const CREDITS = 4;

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
    name: 'opens a first chat on the real service and connects the socket',
    run: async (page) => {
      await page.waitForSelector('[data-testid=sessions] li');
      if ((await page.textContent('[data-testid=sessions] li'))?.includes('First chat') !== true)
        throw new Error('no first chat');
      await page.waitForFunction(
        () => document.querySelector('[data-testid=socket]')?.textContent === 'live',
        null,
        { timeout: 15_000 },
      );
    },
  },
  {
    name: 'streams an answer word by word (turn 1)',
    run: async (page) => {
      await send(page, 'hello from the demo');
      await statusIs(page, 'streaming');
      await page.waitForFunction(
        () => (document.querySelectorAll('[data-testid=message-ai]').item(0)?.textContent ?? '').length > 0,
      );
      const partial = await lastAi(page);
      await statusIs(page, 'ready');
      const full = await lastAi(page);
      if (!full.includes('hello from the demo')) throw new Error(`answer: ${full}`);
      if (partial.length >= full.length) throw new Error(`the answer did not stream in parts: ${partial}`);
    },
  },
  {
    name: 'renders a component through uiComponents (turn 2)',
    run: async (page) => {
      await send(page, 'what is the weather?');
      await page.waitForSelector('[data-testid=weather-card]', { timeout: 15_000 });
      await statusIs(page, 'ready');
      const card = await page.textContent('[data-testid=weather-card]');
      if (!card?.includes('Nairobi') || !card.includes('24')) throw new Error(`card: ${card}`);
      // The answer's text first, then its parts (the layout a reload shows too).
      const answer = await lastAi(page);
      if (!answer.endsWith('It is 24 °C in Nairobi today.Nairobi 24 °C'))
        throw new Error(`answer: ${answer}`);
    },
  },
  {
    name: "runs a browser tool that reads the page, and the agent's answer quotes its result (turn 3)",
    run: async (page) => {
      await page.fill('#page-note', 'Water the seedlings at six.');
      await send(page, 'read my note');
      await statusIs(page, 'ready');
      await page.waitForSelector('[data-testid=tool-readPageNote] >> text=done');
      const answer = await lastAi(page);
      if (!answer.includes('Your note says: Water the seedlings at six.'))
        throw new Error(`answer: ${answer}`);
    },
  },
  {
    name: 'runs an agent-UI action with its inline render (turn 4)',
    run: async (page) => {
      await send(page, 'highlight a card');
      await statusIs(page, 'ready');
      await page.waitForSelector('#card-2.highlighted');
      const render = await page.textContent('[data-testid=action-render]');
      if (render?.trim() !== 'Action: Highlighted card-2') throw new Error(`render: ${render}`);
      const answer = await lastAi(page);
      if (!answer.includes('I highlighted the second card for you.')) throw new Error(`answer: ${answer}`);
      await page.screenshot({ path: `${artifacts}chat.png`, fullPage: true });
    },
  },
  {
    name: 'shows the paywall when the credits run out (402) and pays with a real transaction on the fixture chain',
    run: async (page) => {
      await send(page, 'one more question');
      await page.waitForSelector('[data-testid=paywall]', { timeout: 15_000 });
      const text = await page.textContent('[data-testid=paywall]');
      if (!/claim_\S+/.test(text ?? '')) throw new Error(`claims missing: ${text}`);
      await page.screenshot({ path: `${artifacts}paywall.png` });
      // The page pays with a real transaction on the fixture chain (dev-signer's transactSignX), and the oracle
      // credits it only once it found that transaction on the chain.
      const broadcast = page.waitForResponse((r) => r.url().endsWith('/cosmos/tx/v1beta1/txs'));
      const reported = page.waitForResponse((r) => r.url().endsWith('/credits/payments'));
      await page.click('[data-testid=paywall] button');
      const tx = (await (await broadcast).json()) as { tx_response?: { txhash: string; code: number } };
      if (tx.tx_response?.code !== 0 || !/^[0-9A-F]{64}$/.test(tx.tx_response.txhash))
        throw new Error(`broadcast: ${JSON.stringify(tx)}`);
      const payment = await reported;
      const report = JSON.parse(payment.request().postData() ?? '{}') as { txHash?: string };
      if (payment.status() !== 200 || report.txHash !== tx.tx_response.txhash)
        throw new Error(`payment ${payment.status()}: ${await payment.text()} for ${report.txHash}`);
      await page.waitForSelector('[data-testid=paywall]', { state: 'detached' });
      await send(page, 'one more question');
      await statusIs(page, 'ready');
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
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=message-ai]').length === 0);
      await send(page, 'hello');
      await statusIs(page, 'ready');
    },
  },
  {
    name: "asks to remember a fact: the approval card shows the tool's args as the model sent them, and nothing runs",
    run: async (page) => {
      await send(page, 'Please remember that I grow maize in Nakuru.');
      await approvalCardShows(page, { content: 'I grow maize in Nakuru' });
      // The run waits for the user: the turn is still in flight and the tool has not started.
      if ((await page.textContent('[data-testid=status]')) !== 'streaming')
        throw new Error(`status: ${await page.textContent('[data-testid=status]')}`);
      if ((await page.$('[data-testid=tool-remember_fact]')) !== null)
        throw new Error('the tool started before the decision');
      await page.screenshot({ path: `${artifacts}approval.png`, fullPage: true });
    },
  },
  {
    name: 'a page reload while the approval waits brings the card back from the run',
    run: async (page) => {
      await page.reload();
      await page.waitForSelector('[data-testid=sessions] li');
      await approvalCardShows(page, { content: 'I grow maize in Nakuru' });
      await statusIs(page, 'streaming');
      const asked = await page.$$eval('[data-testid=message-human]', (els) => els.at(-1)?.textContent);
      if (asked !== 'Please remember that I grow maize in Nakuru.') throw new Error(`question: ${asked}`);
    },
  },
  {
    name: "Approve runs the tool, and the answer follows the tool's result",
    run: async (page) => {
      await page.click('[data-testid=approval] >> text=Approve');
      await statusIs(page, 'ready');
      await page.waitForSelector('[data-testid=tool-remember_fact] >> text=done');
      if ((await page.$('[data-testid=approval]')) !== null) throw new Error('the card stayed');
      const answer = await lastAi(page);
      if (!answer.includes('Saved to my memory: I grow maize in Nakuru.'))
        throw new Error(`answer: ${answer}`);
    },
  },
  {
    name: 'Deny with a reason: the tool does not run, and the answer says it was declined and why',
    run: async (page) => {
      await send(page, 'remember that I keep bees');
      await approvalCardShows(page, { content: 'I keep bees' });
      await page.fill('[data-testid=approval-reason]', 'Not this one');
      await page.click('[data-testid=approval] >> text=Deny');
      await statusIs(page, 'ready');
      const tools = await page.$$eval('[data-testid=tool-remember_fact]', (els) =>
        els.map((e) => e.textContent ?? ''),
      );
      if (tools.at(-1) !== 'Tool: remember_fact declined')
        throw new Error(`tool cards: ${tools.join(' | ')}`);
      const answer = await lastAi(page);
      if (!answer.includes('I did not save it: you declined (reason: Not this one).'))
        throw new Error(`answer: ${answer}`);
      await page.screenshot({ path: `${artifacts}approval-denied.png`, fullPage: true });
    },
  },
  {
    name: 'the memory holds the approved fact and not the declined one',
    run: async (page) => {
      await send(page, 'what do you remember?');
      await statusIs(page, 'ready');
      const answer = await lastAi(page);
      if (!answer.includes('I remember: ') || !answer.includes('I grow maize in Nakuru'))
        throw new Error(`answer: ${answer}`);
      if (answer.includes('bees')) throw new Error(`the declined call ran: ${answer}`);
    },
  },
];

/** Waits for the approval card and checks it shows exactly `args` (the model's, as it sent them). */
async function approvalCardShows(page: Page, args: Record<string, unknown>): Promise<void> {
  await page.waitForSelector('[data-testid=approval]', { timeout: 15_000 });
  const shown = await page.textContent('[data-testid=approval-args]');
  if (JSON.stringify(JSON.parse(shown ?? 'null')) !== JSON.stringify(args))
    throw new Error(`approval card args: ${shown}`);
}

/** Starts the demo (real server + Vite) as a child process and reads its URL from the first line it prints. */
async function startDemo(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/tools/demo-server.ts', '--fresh', '--json'],
    {
      cwd: repoRoot,
      env: { ...process.env, DEMO_CREDITS: String(CREDITS), DEMO_PORT: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the demo server exited (${String(code)}) before it was ready`);
  });
  const first = (async () => {
    for await (const line of lines) {
      if (line.startsWith('{')) return (JSON.parse(line) as { url: string }).url;
    }
    throw new Error('the demo server printed no URL');
  })();
  const url = await Promise.race([first, exited]);
  return { url, child };
}

async function main(): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  const { url, child } = await startDemo();
  // Whatever happens next, the demo server this run started stops with it.
  process.on('exit', () => child.kill('SIGTERM'));
  // A fresh profile per run.
  const profile = mkdtempSync(path.join(os.tmpdir(), 'demo-e2e-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    viewport: { width: 1100, height: 900 },
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
    const page = browser.pages()[0] ?? (await browser.newPage());
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${url}/`);
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
    await page.screenshot({ path: `${artifacts}demo-e2e.png`, fullPage: true });
    if (errors.length > 0) {
      failed++;
      console.log(`✗ the page threw: ${errors.join('; ')}`);
    }
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
    const exit = once(child, 'exit');
    child.kill('SIGTERM');
    await exit;
  }
  console.log(`screenshots in ${artifacts}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

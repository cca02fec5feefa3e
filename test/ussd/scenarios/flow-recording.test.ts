import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { menuTree } from '../../../generated/menus.js';
import { flowYaml, loadFlow, loadFlows } from '../../../scripts/tools/lib/ussd-flows/flow-file.js';
import { idLikeWords, templateOf } from '../../../scripts/tools/lib/ussd-flows/flow-template.js';
import { replayFlow } from '../../../scripts/tools/lib/ussd-flows/replay.js';
import { engineDialer } from '../../helpers/engine-dialer.js';
import { menuTexts } from '../../../scripts/tools/lib/ussd-flows/coverage.js';

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/flows/run-flows.ts', ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

describe('recorded flow files', () => {
  it('are written back byte for byte as committed (an update changes only the replies that changed)', async () => {
    for (const flow of await loadFlows())
      expect(flowYaml(flow), flow.file).toBe(await readFile(flow.file, 'utf8'));
  });

  it('an update keeps a customer ID placeholder when the text around it changed', async () => {
    const flow = await loadFlow('test/flows/create-account.yaml');
    const stale = {
      ...flow,
      steps: flow.steps.map((s) => ({ ...s, expect: s.expect.replace('Write it down.', 'Keep it safe.') })),
    };
    const dialer = engineDialer({ tree: menuTree });
    const replay = await replayFlow(stale, {
      send: ({ sessionId, phoneNumber, text }) => dialer.send(text, { sessionId, phoneNumber }),
      createAccount: () => Promise.reject(new Error('this flow has no accounts')),
      notIds: idLikeWords(menuTexts(menuTree)),
    });
    expect(replay.ok).toBe(false);
    expect(flowYaml(replay.recorded)).toBe(await readFile(flow.file, 'utf8'));
  });

  it('writes new customer IDs as {customer1}, {customer2}…, known ones as their name', () => {
    const vars = new Map([
      ['jane', 'C2222222A'],
      ['customer1', 'C22222222'],
    ]);
    expect(templateOf('Use account C22222222 or C2222222A.', vars)).toBe(
      'Use account {customer1} or {jane}.',
    );
  });
});

describe('npm run test:flows', () => {
  it('shows the replies that differ and fails; -- --update records them again and shows the diff', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'flows-'));
    temps.push(dir);
    await cp('test/flows', dir, {
      recursive: true,
      filter: (src) => src === 'test/flows' || src.endsWith('.yaml'),
    });
    expect((await readdir(dir)).every((f) => f.endsWith('.yaml'))).toBe(true);
    const file = path.join(dir, 'logout.yaml');
    const committed = await readFile(file, 'utf8');
    await writeFile(file, committed.replace('CON You are logged out.', 'CON Bye for now.'));

    const failing = await run(['--dir', dir, 'logout', 'login']);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('✓ login (7 steps)');
    expect(failing.stdout).toContain('✗ logout: 1 of 8 replies differ');
    expect(failing.stdout).toContain('  - CON Bye for now.\n');
    expect(failing.stdout).toContain('  + CON You are logged out.\n');
    expect(failing.stdout).toContain('Run `npm run test:flows -- --update`');
    expect(failing.stdout.trimEnd().endsWith('1 passed, 1 failed')).toBe(true);

    const update = await run(['--dir', dir, '--update', 'logout']);
    expect(update.code).toBe(0);
    expect(update.stdout).toContain('↻ logout: recorded 1 new reply');
    expect(update.stdout).toContain('-      CON Bye for now.\n+      CON You are logged out.\n');
    expect(await readFile(file, 'utf8')).toBe(committed);
  });
});

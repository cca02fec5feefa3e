import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createThrowawayDatabase } from '../helpers/db.js';
import { TEST_ENV } from '../helpers/env.js';

// `npm run ussd`, driven through piped stdin as a user would type.
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function simulate(args: string[], input: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/tools/ussd-simulator.ts', ...args], {
      env: { ...process.env, ...TEST_ENV, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(() => t.close());

describe('npm run ussd', () => {
  it.each([[[]], [['--form']]])(
    'dials a running gateway, types the piped inputs and stops on END %j',
    async (extra) => {
      const run = await simulate(
        ['--url', t.url, '--session', `sim-${randomBytes(3).toString('hex')}`, ...extra],
        '1\n\n0\n*\n9\n',
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const screens = run.stdout.split('\n+----------------------------------------').map((s) => s.trim());
      const top = '| Welcome to Open Oracles\n| 1. Know More\n| 2. Account\n| *. Exit';
      expect(run.stdout).toContain(`+---------------------------------------- CON\n${top}\n`);
      expect(run.stdout).toContain('> 1\n');
      expect(run.stdout).toContain('> 0\n');
      expect(run.stdout).toContain('> *\n');
      expect(run.stdout).toMatch(
        /\+---------------------------------------- END\n\| Thank you for using Open Oracles\. Goodbye!\n/,
      );
      expect(run.stdout).not.toContain('> 9');
      expect(run.stdout.trimEnd().endsWith('(session ended)')).toBe(true);
      expect(screens.length).toBeGreaterThan(4);
    },
  );

  it('reports input that ends before the session does', async () => {
    const run = await simulate(['--url', t.url], '1\n');
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().endsWith('(input ended; the session stays open until it expires)')).toBe(
      true,
    );
  });

  it('fails clearly when the gateway is not there', async () => {
    const run = await simulate(['--url', 'http://127.0.0.1:1'], '1\n');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: /);
  });

  it('starts the server in process when no --url is given', async () => {
    await using database = await createThrowawayDatabase('ussd_sim');
    const run = await simulate([], '2\n0\n*\n', { ...database.env, REDIS_URL: '' });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Dialling \*384\*123# from \+254712345678 \(session sim-[0-9a-f]{8}\) at http:\/\/127\.0\.0\.1:\d+\n/,
    );
    expect(run.stdout).toContain('| Account\n');
    expect(run.stdout.trimEnd().endsWith('(session ended)')).toBe(true);
  });
});

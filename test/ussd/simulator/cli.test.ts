import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFlow } from '../../../scripts/tools/lib/ussd-flows/flow-file.js';
import { replayFlow } from '../../../scripts/tools/lib/ussd-flows/replay.js';
import type { UssdPart } from '../../../server/ussd/part.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { TEST_ENV } from '../../helpers/env.js';
import { engineMenusPart } from '../../helpers/fixture-menus.js';

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

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// `t` serves the engine's fixture menus (stable texts to assert); `real` the service's menus, for --login,
// --lang and --record, whose tests assert what the gateway and the accounts say, not menu texts.
let t: TestApp;
let real: TestApp;
beforeAll(async () => {
  [t, real] = await Promise.all([
    startTestApp({
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0' },
      parts: { ussd: engineMenusPart() },
    }),
    startTestApp({ env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0' } }),
  ]);
});
afterAll(() => Promise.all([t.close(), real.close()]));

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

  it('with no server there, says how to start one and exits non-zero, without opening a database', async () => {
    const dataDir = path.join(tmpdir(), `sim-pglite-${randomBytes(4).toString('hex')}`);
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await simulate(['--url', url], '1\n', { PGLITE_DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: no USSD gateway answers at ${url} (ECONNREFUSED).\n` +
        'Start one in another terminal with:  npm start\n' +
        'or point the simulator at a running one:  npm run ussd -- --url http://host:port\n',
    );
    await expect(stat(dataDir)).rejects.toThrow(/ENOENT/);
  });

  it('--login alone creates an account of the phone through the menus and starts logged in; --lang switches the account to that language', async () => {
    const phone = `+2547${String(Date.now() % 1e8).padStart(8, '0')}`;
    const session = `sim-${randomBytes(3).toString('hex')}`;
    const run = await simulate(
      ['--url', real.url, '--phone', phone, '--session', session, '--login', '--lang', 'sw'],
      '',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const id = /Created account (C[0-9A-Z]{8}) \(Simulator User, PIN 13579\)/.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    const accounts = real.part<UssdPart>('ussd').accounts;
    expect(await accounts.findByCustomerId(id ?? '')).toMatchObject({
      fullName: 'Simulator User',
      language: 'sw',
    });
    const debug = await real.request.get(`/api/ussd/debug/${session}`).expect(200);
    // Where --lang leaves you: the top menu, logged in (documented in --help and docs/menus.md).
    expect(debug.body.debugInfo.state).toBe('preMenu');
    expect(debug.body.debugInfo.context.isAuthenticated).toBe(true);
  });

  it('--login C…:PIN logs in to that account; --lang without --login is refused', async () => {
    const phone = '+254700555666';
    const { customerId } = await real.part<UssdPart>('ussd').accounts.createCustomer({
      fullName: 'Amina Otieno',
      email: null,
      pin: '24680',
      phoneNumber: '+254700555777',
      language: 'en',
    });
    const session = `sim-${randomBytes(3).toString('hex')}`;
    const run = await simulate(
      ['--url', real.url, '--phone', phone, '--session', session, '--login', `${customerId}:24680`],
      '',
    );
    expect(run.stderr).toBe('');
    const debug = await real.request.get(`/api/ussd/debug/${session}`).expect(200);
    expect(debug.body.debugInfo.context.isAuthenticated).toBe(true);
    const refused = await simulate(['--url', real.url, '--lang', 'sw'], '');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--lang needs --login');
  });

  it('--record from a fresh phone (the default) with --login --lang writes a flow that replays at once, customer IDs as placeholders', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'recorded-'));
    const file = path.join(dir, 'recorded.yaml');
    const run = await simulate(
      [
        '--url',
        real.url,
        '--login',
        '--lang',
        'sw',
        '--record',
        file,
        '--description',
        'Services after login',
      ],
      '1\n0\n',
    );
    expect(run.code).toBe(0);
    const flow = await loadFlow(file);
    expect(flow.description).toBe('Services after login');
    expect(flow.accounts).toEqual([{ ref: 'me', name: 'Simulator User', pin: '13579', phone: 'caller' }]);
    expect(flow.steps.length).toBeGreaterThan(4);
    expect(JSON.stringify(flow)).not.toMatch(/C[0-9A-Z]{8}/);
    expect(flow.steps.some((s) => s.expect.includes('{me}'))).toBe(true);
    const replay = await replayFlow(flow, {
      send: async ({ sessionId, phoneNumber, text }) =>
        (
          await real.request
            .post('/api/ussd')
            .send({ sessionId, serviceCode: '*384*123#', phoneNumber, text })
            .expect(200)
        ).text,
      createAccount: async ({ name, pin, phoneNumber }) =>
        (
          await real
            .part<UssdPart>('ussd')
            .accounts.createCustomer({ fullName: name, email: null, pin, phoneNumber, language: 'en' })
        ).customerId,
    });
    expect(replay.steps.map((s) => s.actual)).toEqual(replay.steps.map((s) => s.expected));
    await rm(dir, { recursive: true, force: true });
  });

  it('simulator and server both opened ./data/pglite: now the simulator is an HTTP client only, by default of http://localhost:3000', async () => {
    const source = await readFile('scripts/tools/ussd-simulator.ts', 'utf8');
    // Of the server's code it reads only its .env reader (server/env-file.ts), which opens nothing.
    const serverImports = [...source.matchAll(/(?:from |import\()'\.\.\/\.\.\/server\/([^']+)'/g)].map(
      (m) => m[1],
    );
    expect(serverImports).toEqual(['env-file.js']);
    const help = await simulate(['--help'], '');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      "--url      the gateway's base URL (default http://localhost:3000: PUBLIC_BASE_URL",
    );
  });
});

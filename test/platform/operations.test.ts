import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { migrations } from '../../server/db/migrations/index.js';
import { createLogger, prettyLogs } from '../../server/logger.js';
import { startServer } from '../../server/server.js';
import { startTestApp } from '../helpers/app.js';
import { statusOf } from '../helpers/child-server.js';
import { createThrowawayDatabase } from '../helpers/db.js';
import { TEST_ENV } from '../helpers/env.js';
import { captureLogs } from '../helpers/logs.js';
import { scriptedUssdPart } from '../helpers/scripted-test-engine.js';
import { ussdBody } from '../helpers/ussd-dialog.js';
import { newUser } from '../helpers/oracle/oracle-client.js';
import { newOracleKey, startOracleApp } from '../helpers/oracle/oracle-app.js';

// Issue 27: what the server says about itself and how it stops, as an operator meets it.

const MIGRATION_NAMES = Object.keys(migrations);

describe.concurrent('start-up', () => {
  it('says who and what runs in one line, logs the migrations it applied, and refuses to start with pending ones when MIGRATE_ON_START is off', async () => {
    await using database = await createThrowawayDatabase('ops_start');
    const env = { ...TEST_ENV, ...database.env, ENABLED_PARTS: 'chain', LOG_LEVEL: 'info', PORT: '0' };

    // MIGRATE_ON_START off on a new database: refused, naming what is pending and what to run.
    const refused = await startServer(loadConfig({ ...env, MIGRATE_ON_START: 'false' }), {
      logger: createLogger('silent'),
    }).catch((err: unknown) => err as Error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^${MIGRATION_NAMES.length} migration\\(s\\) pending on .+ \\(${MIGRATION_NAMES[0]}, .+\\) and MIGRATE_ON_START is off: run \`npm run db:migrate\` first$`,
      ),
    );

    const first = captureLogs();
    const server = await startServer(loadConfig(env), { logger: createLogger('info', first.stream) });
    await server.close();
    expect(first.lines.find((l) => l.msg.startsWith('migrations:'))).toMatchObject({
      msg: `migrations: applied ${MIGRATION_NAMES.length} (${MIGRATION_NAMES.join(', ')})`,
      applied: MIGRATION_NAMES,
    });
    const started = first.lines.filter((l) => l.msg.startsWith('started '));
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({
      msg: `started open-oracles-gateway 0.1.0 (${String(started[0]?.['commit'])}) as ${hostname()}:${server.port}, pid ${process.pid}, on 0.0.0.0:${server.port} (test)`,
      version: '0.1.0',
      commit: expect.stringMatching(/^([0-9a-f]{12}|unknown)$/) as unknown,
      instance: `${hostname()}:${server.port}`,
      pid: process.pid,
      host: hostname(),
      listen: `0.0.0.0:${server.port}`,
      env: 'test',
      parts: ['chain'],
      database: expect.stringMatching(
        database.url ? /^PostgreSQL postgres:\/\// : /^embedded PGlite in \//,
      ) as unknown,
      redis: 'in-process',
      chain: expect.stringMatching(/^embedded fixture node \(127\.0\.0\.1:\d+\)$/) as unknown,
      trustProxy: 'off',
      operatorToken: 'unset (operator routes: loopback only)',
      migrateOnStart: true,
    });
    // Outside production, no warning about development settings.
    expect(first.lines.filter((l) => l.level >= 40)).toEqual([]);

    // Migrated: MIGRATE_ON_START off now starts, and says nothing was pending.
    const second = captureLogs();
    const again = await startServer(loadConfig({ ...env, MIGRATE_ON_START: 'false' }), {
      logger: createLogger('info', second.stream),
    });
    await again.close();
    expect(second.lines.find((l) => l.msg.startsWith('migrations:'))?.msg).toBe(
      'migrations: none pending (MIGRATE_ON_START off)',
    );
  });

  it('in production, names the scripted model and the fixture chain node in one warning', async () => {
    const logs = captureLogs();
    await using _t = await startTestApp({
      env: {
        NODE_ENV: 'production',
        PIN_SCRYPT_LOG2N: '14',
        ENABLED_PARTS: 'oracle',
        DATABASE_URL: 'postgres://handed-in.invalid/db', // the test's database is handed in
        CHAIN_GRPC_URL: 'fixture',
        ORACLE_SIGNING_KEY: await newOracleKey(),
        // Production refuses CORS open to any origin (issue 36).
        ORACLE_CORS_ORIGINS: 'https://app.example.org',
      },
      logger: createLogger('info', logs.stream),
    });
    expect(logs.lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([
      'production runs with development settings: the fixture chain node serves fixture data as chain data (CHAIN_GRPC_URL=fixture); the scripted model answers every chat (set OPENAI_BASE_URL and OPENAI_MODEL)',
    ]);
  });

  it('listens on HOST', async () => {
    await using t = await startTestApp({ db: 'none', env: { ENABLED_PARTS: 'chain', HOST: '127.0.0.1' } });
    expect((t.server.http.address() as AddressInfo).address).toBe('127.0.0.1');
  });
});

describe('/metrics', () => {
  it('says which build runs (gateway_build_info) and labels every series with the instance', async () => {
    await using t = await startTestApp({
      db: 'none',
      parts: { ussd: scriptedUssdPart() },
      env: { ENABLED_PARTS: 'ussd', INSTANCE_ID: 'web-1' },
    });
    await t.request.post('/api/ussd').send(ussdBody()).expect(200);
    const text = (await t.request.get('/metrics').expect(200)).text;
    expect(text).toMatch(
      /^gateway_build_info\{version="0\.1\.0",commit="([0-9a-f]{12}|unknown)",node_version="v\d+\.\d+\.\d+",instance_id="web-1"\} 1$/m,
    );
    const samples = text.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(samples.length).toBeGreaterThan(20);
    expect(samples.filter((l) => !l.includes('instance_id="web-1"'))).toEqual([]);
  });
});

describe('TRUST_PROXY_ENABLED', () => {
  /** Three requests from one socket, each claiming another client; the limit is 2 a minute. */
  async function limitedWith(trust: string): Promise<number[]> {
    await using t = await startTestApp({
      db: 'none',
      parts: { ussd: scriptedUssdPart() },
      env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY_ENABLED: trust },
    });
    const statuses: number[] = [];
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      const res = await t.request.post('/api/ussd').set('x-forwarded-for', client).send(ussdBody());
      statuses.push(res.status);
    }
    return statuses;
  }

  it('believes X-Forwarded-For from the proxy addresses it names, and from no one else', async () => {
    // The test connects from 127.0.0.1: a named proxy, so each request is the client it names.
    expect(await limitedWith('127.0.0.1')).toEqual([200, 200, 200]);
    expect(await limitedWith('loopback')).toEqual([200, 200, 200]);
    // Not a named proxy: the header is ignored and all three share the socket's budget.
    expect(await limitedWith('10.9.8.7')).toEqual([200, 200, 429]);
    expect(await limitedWith('false')).toEqual([200, 200, 429]);
  });
});

describe('stopping', () => {
  it('answers /health 503 through the pre-stop delay while serving everything else, then drains', async () => {
    const t = await startTestApp({ env: { ENABLED_PARTS: 'chain', PRESTOP_DELAY_MS: '600' } });
    try {
      expect(await statusOf(t.server.port, '/health')).toBe(200);
      const closing = t.close();
      await sleep(100);
      expect(await statusOf(t.server.port, '/health')).toBe(503);
      expect(await statusOf(t.server.port, '/ixo/token/params')).toBe(200);
      expect(await statusOf(t.server.port, '/')).toBe(200);
      await closing;
      expect(await statusOf(t.server.port, '/')).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it('an event stream answered to `Connection: close` no longer says `connection: keep-alive` (nginx reused the connection and got 400)', async () => {
    await using app = await startOracleApp();
    const user = await newUser(app.oracleDid);
    const session = (await (
      await fetch(`${app.url}/sessions`, {
        method: 'POST',
        headers: { ...user.headers, 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { sessionId: string };
    const body = JSON.stringify({ message: 'hello', stream: true });
    // As nginx's usual websocket map sends it: `Connection: close` on a plain request.
    const req = http.request(`${app.url}/messages/${session.sessionId}`, {
      method: 'POST',
      agent: false,
      headers: {
        ...user.headers,
        connection: 'close',
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.end(body);
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['connection']).toBe('close');
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    await once(res, 'end');
    expect(text).toContain('event: done');
    // The server closes the connection once the stream has ended.
    const socket = res.socket;
    if (!socket.destroyed) await once(socket, 'close');
    expect(socket.destroyed).toBe(true);
  });
});

describe('logs', () => {
  it('are readable lines on a terminal outside production, JSON everywhere else', () => {
    expect(prettyLogs('auto', 'development', true)).toBe(true);
    expect(prettyLogs('auto', 'test', true)).toBe(true);
    expect(prettyLogs('auto', 'production', true)).toBe(false);
    expect(prettyLogs('auto', 'development', false)).toBe(false);
    expect(prettyLogs('json', 'development', true)).toBe(false);
    expect(prettyLogs('pretty', 'production', false)).toBe(true);
  });

  it('LOG_FORMAT=pretty writes pino-pretty lines with the fields; JSON otherwise', async () => {
    const run = async (pretty: boolean): Promise<string> => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '-e',
          `import('./server/logger.ts').then(({ createLogger }) => createLogger('info', undefined, { pretty: ${pretty} }).info({ port: 3104 }, 'started x'))`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await once(child, 'close');
      return out;
    };
    const [json, pretty] = await Promise.all([run(false), run(true)]);
    expect(JSON.parse(json)).toMatchObject({ level: 30, msg: 'started x', port: 3104 });
    expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: started x \{"port":3104\}\n$/);
  });
});

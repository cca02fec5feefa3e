import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile, chmod } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ed25519 } from '@ucanto/principal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../server/db/migrations/index.js';
import { mintUserTokens } from '../../server/oracle/auth/mint.js';
import { loadDevUser } from '../../scripts/tools/dev-user.js';
import {
  havePostgresBinaries,
  startPrivatePostgres,
  type PrivatePostgres,
} from '../faults/private-postgres.js';
import { statusOf } from '../helpers/child-server.js';
import { createThrowawayDatabase, TEST_DATABASE_URL, type ThrowawayDatabase } from '../helpers/db.js';
import type { LogLine } from '../helpers/logs.js';
import { npmStartArgs } from '../../scripts/tools/lib/npm-start.js';
import { freePort, haveRedisServer, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.js';
import { shippedReplies } from '../helpers/shipped-menus.js';

// Issue 27: the deployment recipe (docs/operating.md), run as it is. Debian's nginx with deploy/nginx/gateway.conf
// (only its listen ports, certificate paths, ACME root and the path of its server list changed) enabled as a site
// beside Debian's default one, in front of two production instances on one PostgreSQL and one Redis; a chat
// (`npm run chat`) and USSD sessions stream through it over TLS while deploy/rolling-restart.sh restarts both
// instances. No client sees a failure: the chat re-joins its run, every USSD reply is the expected screen, nginx
// answers nothing but 2xx.
// Issue 38: copied to conf.d/ as the README said, the recipe lost to Debian's enabled default site (every request
// got its 404) and said nothing of TLS: now it is a site that replaces the default one, HTTPS with a redirect.
// PostgreSQL: DATABASE_URL's server (a database of its own) in the production column, a private one here
// otherwise; Redis: always a private redis-server (the instances use the production key names).

const ROOT = path.resolve(import.meta.dirname, '../..');
const NGINX = process.env['NGINX_BIN'] ?? '/usr/sbin/nginx';
const inCi = !['', '0', 'false'].includes(process.env['CI'] ?? '');

function runs(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}

/** Why the test cannot run here, or undefined. In CI (.ci/run installs nginx) that is a failure. */
async function missing(): Promise<string | undefined> {
  if (!(await runs(NGINX, ['-v']))) return `no nginx at ${NGINX} (apt-get install -y nginx)`;
  if (!(await runs('openssl', ['version']))) return 'no openssl (apt-get install -y openssl)';
  if (!(await haveRedisServer())) return 'no redis-server on the PATH';
  if (TEST_DATABASE_URL === undefined && !(await havePostgresBinaries())) {
    return 'no DATABASE_URL and no PostgreSQL server binaries (PG_BIN)';
  }
  return undefined;
}
const reason = await missing();
if (reason && inCi) throw new Error(`CI: the nginx deployment test cannot run: ${reason}`);
if (reason) console.warn(`skipped: the nginx deployment test: ${reason}`);

/** The test's certificate for 127.0.0.1 (openssl), trusted by every client below: nginx's TLS as certbot's. */
const tls: { ca: Buffer; certFile: string } = { ca: Buffer.alloc(0), certFile: '' };

/** `GET path` over TLS on nginx's port: status, headers and body. A connection of its own. */
function get(
  port: number,
  target: string,
  headers: Record<string, string> = {},
  host = '127.0.0.1',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host, port, path: target, agent: false, ca: tls.ca, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      })
      .on('error', reject);
  });
}

/** The status of `GET path` through nginx over TLS, or undefined while nothing answers. */
function statusOverTls(port: number, target: string): Promise<number | undefined> {
  return get(port, target).then(
    (r) => r.status,
    () => undefined,
  );
}

/** The node arguments of `npm start` (`exec node <args>` in package.json), its build made. */
const startArgs = npmStartArgs;

/** One gateway instance on its port: started as `npm start` starts it, restarted by the control server. */
class Instance {
  /** The log lines of each start, in order (JSON: LOG_FORMAT is auto and stdout is a pipe). */
  readonly runs: { lines: LogLine[]; exit?: { code: number | null; signal: string | null } }[] = [];
  private child: ChildProcess | undefined;

  constructor(
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
    private readonly args: string[],
  ) {}

  start(): void {
    const run: Instance['runs'][number] = { lines: [] };
    this.runs.push(run);
    const child = spawn(process.execPath, this.args, {
      cwd: ROOT,
      env: { ...this.env, PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    const take = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts.filter(Boolean)) {
        try {
          run.lines.push(JSON.parse(line) as LogLine);
        } catch {
          run.lines.push({ level: 60, msg: `not JSON: ${line}` });
        }
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (code, signal) => (run.exit = { code, signal }));
    this.child = child;
  }

  /** SIGTERM, as systemd stops a unit, and the wait for the exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  kill(): void {
    if (this.child?.exitCode === null) this.child.kill('SIGKILL');
  }

  tail(n = 15): string {
    return this.runs
      .flatMap((r, i) => r.lines.map((l) => `[${this.port}#${i}] ${JSON.stringify(l)}`))
      .slice(-n)
      .join('\n');
  }
}

/** Start-up line, migrations, warnings and the last line of one run of an instance. */
function linesOf(run: Instance['runs'][number]) {
  const find = (re: RegExp) => run.lines.filter((l) => re.test(l.msg));
  return {
    started: find(/^started /),
    migrations: find(/^migrations: /),
    warnings: find(/^production runs with development settings/),
    last: run.lines.at(-1),
  };
}

/** The aggregator's address in the rendered recipe; requests from another loopback address play everyone else. */
const AGGREGATOR = '127.0.0.1';
const STRANGER = '127.0.0.2';

/** A USSD dialogue through nginx that goes back and forth between two menus, each reply checked. */
const [TOP = '', KNOW_MORE = ''] = await shippedReplies('', '1');

function postUssd(
  port: number,
  body: Record<string, string>,
  from: { localAddress?: string; path?: string; headers?: (h: http.IncomingHttpHeaders) => void } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    // A connection of its own for each request, as an aggregator's gateway may open them.
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: from.path ?? '/api/ussd',
        method: 'POST',
        agent: false,
        ca: tls.ca,
        ...(from.localAddress === undefined ? {} : { localAddress: from.localAddress }),
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        from.headers?.(res.headers);
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs USSD sessions through nginx until `until` resolves; every reply must be the expected screen. */
async function ussdTraffic(
  port: number,
  until: Promise<unknown>,
): Promise<{ requests: number; failures: string[] }> {
  let over = false;
  void until.finally(() => (over = true));
  let requests = 0;
  const failures: string[] = [];
  let n = 0;
  while (!over) {
    const sessionId = `nginx-${randomBytes(4).toString('hex')}-${n++}`;
    const inputs: string[] = [];
    // text grows by 2 characters a step; 60 steps stay under the 182-character limit.
    for (let step = 0; step < 60 && !over; step++) {
      const body = {
        sessionId,
        serviceCode: '*384*123#',
        phoneNumber: '+254711000999',
        text: inputs.join('*'),
      };
      const expected = step % 2 === 0 ? TOP : KNOW_MORE;
      requests++;
      try {
        const { status, text } = await postUssd(port, body);
        if (status !== 200 || text !== expected) {
          failures.push(`${sessionId} step ${step}: ${status} ${JSON.stringify(text.slice(0, 80))}`);
        }
      } catch (err) {
        failures.push(`${sessionId} step ${step}: ${(err as Error).message}`);
      }
      inputs.push(step % 2 === 0 ? '1' : '0');
      await sleep(60);
    }
  }
  return { requests, failures };
}

/** `npm run chat` through nginx (trusting the test's certificate), with `input` piped; its output as it comes. */
function chat(
  url: string,
  dataDir: string,
  input: string,
): { output: () => string; done: Promise<{ code: number | null; out: string }> } {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/tools/chat.ts', '--url', url], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      DATA_DIR: dataDir,
      NODE_EXTRA_CA_CERTS: tls.certFile,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(input);
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, out })),
  );
  return { output: () => out, done };
}

/** A websocket upgrade through nginx to socket.io's engine: the status line the client gets. */
function upgradeStatus(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: '127.0.0.1',
      port,
      path: '/socket.io/?EIO=4&transport=websocket',
      agent: false,
      ca: tls.ca,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(reason !== undefined)('nginx in front of two instances (docs/operating.md)', () => {
  let work: string;
  let redis: PrivateRedis;
  let postgres: PrivatePostgres | undefined;
  let database: ThrowawayDatabase | undefined;
  let nginx: ChildProcess;
  let nginxPort: number;
  /** nginx's port 80 in the recipe: the redirect to HTTPS and certificate renewals. */
  let httpPort: number;
  let nginxArgs: string[];
  let control: http.Server;
  const instances: Instance[] = [];
  const operatorToken = randomBytes(16).toString('hex');
  const restarts: string[] = [];

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'nginx-deploy-'));
    // nginx's workers (nobody, when the test runs as root) serve the ACME root under it.
    await chmod(work, 0o755);
    redis = await startPrivateRedis();
    let databaseUrl: string;
    if (TEST_DATABASE_URL !== undefined) {
      database = await createThrowawayDatabase('nginx_deploy');
      databaseUrl = database.url ?? '';
    } else {
      postgres = await startPrivatePostgres();
      databaseUrl = postgres.url;
    }
    nginxPort = await freePort();
    httpPort = await freePort();
    // The certificate certbot would have written (docs/operating.md, "TLS"): here one for 127.0.0.1 of the test's own.
    tls.certFile = path.join(work, 'fullchain.pem');
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      path.join(work, 'privkey.pem'),
      '-out',
      tls.certFile,
    ]);
    tls.ca = await readFile(tls.certFile);
    const ports = [await freePort(), await freePort()];

    // The instances, configured as docs/operating.md says for production behind nginx on the same host.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      PIN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ORACLE_SIGNING_KEY: ed25519.format(await ed25519.generate()),
      CHAIN_GRPC_URL: 'fixture',
      PUBLIC_BASE_URL: `https://127.0.0.1:${nginxPort}`,
      TRUST_PROXY_ENABLED: '127.0.0.1',
      // The USSD traffic below comes from one address, as an aggregator's does (docs/operating.md, "nginx").
      USSD_RATE_LIMIT_ALLOWLIST: '127.0.0.1',
      // nginx's allow list lets only the aggregator reach POST /api/ussd (the last test).
      USSD_AGGREGATOR_AUTH: 'network',
      ORACLE_CORS_ORIGINS: 'https://app.example.org',
      OPERATOR_TOKEN: operatorToken,
      DATA_DIR: path.join(work, 'data'),
      LOG_LEVEL: 'info',
      PRESTOP_DELAY_MS: '200',
      DRAIN_TIMEOUT_MS: '5000',
      // A long answer takes about 20 s, so the restarts fall inside it; a released run is resumed within 1 s.
      SCRIPTED_MODEL_DELAY_MS: '50',
      ORACLE_RUN_LEASE_SECONDS: '2',
    };
    const args = await startArgs();
    for (const port of ports) instances.push(new Instance(port, env, args));

    // RESTART of deploy/rolling-restart.sh: this process's own supervisor (systemd's role), over HTTP.
    control = http.createServer((req, res) => {
      const port = Number(/^\/restart\/(\d+)$/.exec(req.url ?? '')?.[1]);
      const instance = instances.find((i) => i.port === port);
      if (req.method !== 'POST' || !instance) {
        res.writeHead(404).end();
        return;
      }
      restarts.push(String(port));
      void instance.stop().then(() => {
        instance.start();
        res.writeHead(200).end();
      });
    });
    control.listen(0, '127.0.0.1');
    await once(control, 'listening');

    // nginx: the repository's configuration, as an operator installs it.
    const site = await readFile(path.join(ROOT, 'deploy/nginx/gateway.conf'), 'utf8');
    const servers = await readFile(path.join(ROOT, 'deploy/nginx/gateway-servers.conf'), 'utf8');
    const serversFile = path.join(work, 'gateway-servers.conf');
    const replaceOnce = (text: string, from: string | RegExp, to: string, times = 1): string => {
      const count = text.split(from).length - 1;
      expect(count, `${String(from)} in the shipped configuration`).toBe(times);
      return text.replaceAll(from, to);
    };
    // Loopback ports of the test's own (IPv6 listeners dropped: a container may have no [::]), the certificate
    // above, an ACME root in the work directory, and the aggregator's address block as the operator edits it: the
    // USSD traffic below comes from 127.0.0.1.
    const edits: [string, string, number?][] = [
      ['listen 80 default_server;', `listen 127.0.0.1:${httpPort} default_server;`],
      ['listen [::]:80 default_server;', ''],
      ['listen 443 ssl default_server;', `listen 127.0.0.1:${nginxPort} ssl default_server;`],
      ['listen [::]:443 ssl default_server;', ''],
      ['/etc/letsencrypt/live/gateway.example.org/fullchain.pem', tls.certFile],
      ['/etc/letsencrypt/live/gateway.example.org/privkey.pem', path.join(work, 'privkey.pem')],
      ['root /var/www/html;', `root ${work}/acme;`],
      ['include /etc/nginx/gateway-servers.conf;', `include ${serversFile};`, 2],
      ['allow 192.0.2.0/24;', `allow ${AGGREGATOR};`],
    ];
    await mkdir(path.join(work, 'sites-available'));
    await mkdir(path.join(work, 'sites-enabled'));
    await writeFile(
      path.join(work, 'sites-available/gateway'),
      edits.reduce((text, [from, to, times]) => replaceOnce(text, from, to, times), site),
    );
    await writeFile(
      serversFile,
      replaceOnce(
        replaceOnce(servers, 'server 127.0.0.1:3001 ', `server 127.0.0.1:${ports[0]} `),
        'server 127.0.0.1:3002 ',
        `server 127.0.0.1:${ports[1]} `,
      ),
    );
    // Debian's default site (as nginx-common installs it, enabled), on the same port 80.
    await writeFile(
      path.join(work, 'sites-available/default'),
      [
        'server {',
        `    listen 127.0.0.1:${httpPort} default_server;`,
        '    root /var/www/html;',
        '    index index.html index.htm index.nginx-debian.html;',
        '    server_name _;',
        '    location / {',
        '        try_files $uri $uri/ =404;',
        '    }',
        '}',
        '',
      ].join('\n'),
    );
    await symlink(path.join(work, 'sites-available/default'), path.join(work, 'sites-enabled/default'));
    // The main configuration of a non-daemon nginx with its files in the work directory (test scaffolding;
    // the site configuration above is the part the repository ships).
    for (const dir of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
      await mkdir(path.join(work, dir));
      await chmod(path.join(work, dir), 0o777);
    }
    const conf = path.join(work, 'nginx.conf');
    await writeFile(
      conf,
      [
        'daemon off;',
        'worker_processes 1;',
        `pid ${work}/nginx.pid;`,
        `error_log ${work}/error.log notice;`,
        'events { worker_connections 512; }',
        'http {',
        `  log_format gateway '$status $request_method $uri upstream=$upstream_addr/$upstream_status';`,
        `  access_log ${work}/access.log gateway;`,
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((d) => `  ${d}_temp_path ${work}/${d};`),
        `  include ${work}/sites-enabled/*;`,
        '}',
        '',
      ].join('\n'),
    );
    nginxArgs = ['-p', work, '-c', conf, '-e', `${work}/error.log`];
    // The steps of docs/operating.md: enable the site; with the default site still enabled nginx -t refuses
    // (both claim port 80 as default_server); remove the default symlink and it passes.
    await symlink(path.join(work, 'sites-available/gateway'), path.join(work, 'sites-enabled/gateway'));
    const withDefault = await promisify(execFile)(NGINX, [...nginxArgs, '-t']).then(
      () => 'passed',
      (err: { stderr: string }) => err.stderr,
    );
    expect(withDefault).toMatch(/a duplicate default server for 127\.0\.0\.1:\d+/);
    await unlink(path.join(work, 'sites-enabled/default'));
    await promisify(execFile)(NGINX, [...nginxArgs, '-t']);
    nginx = spawn(NGINX, nginxArgs, { stdio: ['ignore', 'ignore', 'pipe'] });

    // Both instances start together on the new database: concurrent first starts migrate once.
    for (const instance of instances) instance.start();
    const deadline = Date.now() + 120_000;
    for (const instance of instances) {
      while ((await statusOf(instance.port, '/health')) !== 200) {
        if (Date.now() > deadline)
          throw new Error(`instance ${instance.port} not healthy:\n${instance.tail()}`);
        await sleep(200);
      }
    }
    while ((await statusOverTls(nginxPort, '/health')) !== 200) {
      if (nginx.exitCode !== null)
        throw new Error(`nginx exited: ${await readFile(`${work}/error.log`, 'utf8')}`);
      if (Date.now() > deadline) throw new Error('nginx does not answer');
      await sleep(100);
    }
  }, 180_000);

  afterAll(async () => {
    for (const instance of instances) await instance.stop().catch(() => instance.kill());
    if (nginx && nginx.exitCode === null) {
      const exited = once(nginx, 'exit');
      nginx.kill('SIGQUIT');
      await Promise.race([exited, sleep(5000).then(() => nginx.kill('SIGKILL'))]);
    }
    control?.close();
    await redis?.close();
    await database?.drop();
    await postgres?.destroy();
    if (work) await rm(work, { recursive: true, force: true });
  }, 60_000);

  it('serves through nginx: concurrent first starts migrated once, the start-up line and one warning say who and what runs', async () => {
    const first = instances.map((i) => linesOf(i.runs[0] ?? { lines: [] }));
    const applied = first.flatMap((f) => f.migrations.flatMap((l) => l['applied'] as string[]));
    expect(applied.sort()).toEqual(Object.keys(migrations).sort());
    for (const [n, f] of first.entries()) {
      const port = instances[n]?.port;
      expect(f.started).toHaveLength(1);
      expect(f.started[0]).toMatchObject({
        instance: expect.stringMatching(new RegExp(`:${port}$`)) as unknown,
        pid: expect.any(Number) as unknown,
        host: expect.any(String) as unknown,
        listen: `127.0.0.1:${port}`,
        env: 'production',
        parts: ['ussd', 'chain', 'oracle'],
        database: expect.stringMatching(/^PostgreSQL postgres:\/\//) as unknown,
        redis: redis.url,
        chain: expect.stringMatching(/^embedded fixture node/) as unknown,
        model: 'scripted',
        trustProxy: '127.0.0.1',
        operatorToken: 'set',
        version: expect.stringMatching(/^\d+\.\d+\.\d+/) as unknown,
        commit: expect.stringMatching(/^([0-9a-f]{12}|unknown)$/) as unknown,
      });
      expect(f.warnings).toHaveLength(1);
      expect(f.warnings[0]?.msg).toBe(
        'production runs with development settings: the fixture chain node serves fixture data as chain data (CHAIN_GRPC_URL=fixture); the scripted model answers every chat (set OPENAI_BASE_URL and OPENAI_MODEL)',
      );
    }
    expect(
      await postUssd(nginxPort, {
        sessionId: 'n1',
        serviceCode: '*384*123#',
        phoneNumber: '+254711000999',
        text: '',
      }),
    ).toEqual({ status: 200, text: TOP });
    expect(await statusOverTls(nginxPort, '/ixo/token/params')).toBe(200);
    // socket.io's websocket upgrade passes nginx.
    expect(await upgradeStatus(nginxPort)).toBe(101);
    // /metrics through nginx: the operator token only; every series names its instance.
    expect(await statusOverTls(nginxPort, '/metrics')).toBe(401);
    const metrics = await get(nginxPort, '/metrics', { authorization: `Bearer ${operatorToken}` });
    expect(metrics.status).toBe(200);
    const text = metrics.text;
    expect(text).toMatch(
      /^gateway_build_info\{version="\d+\.\d+\.\d+",commit="([0-9a-f]{12}|unknown)",node_version="v\d+[^"]*",instance_id="[^"]+:\d+"\} 1$/m,
    );
    expect(text).toMatch(/^process_cpu_user_seconds_total\{instance_id="[^"]+:\d+"\} /m);
  });

  // The issue saw `npm run chat` through nginx fail about half the time (an SSE answer that said
  // `connection: keep-alive` to nginx's `Connection: close`); the header itself is pinned in
  // test/platform/operations.test.ts, this is the whole path through nginx.
  it('npm run chat through nginx answers every turn, and nginx answers no 400 or 5xx', async () => {
    const dataDir = await mkdtemp(path.join(work, 'chat-'));
    const { code, out } = await chat(
      `https://127.0.0.1:${nginxPort}`,
      dataDir,
      'hello\nhello again\nhello once more\n/quit\n',
    ).done;
    expect({ code, out }).toMatchObject({ code: 0 });
    for (const said of ['hello', 'hello again', 'hello once more']) {
      expect(out).toContain(`Guide oracle> Hello, I am Guide oracle. You said: "${said}".`);
    }
    const log = await readFile(path.join(work, 'access.log'), 'utf8');
    expect(log.split('\n').filter((l) => /^(400|5\d\d) /.test(l))).toEqual([]);
  }, 60_000);

  it('a rolling restart (deploy/rolling-restart.sh) costs a streamed chat a re-join and USSD sessions nothing', async () => {
    const dataDir = await mkdtemp(path.join(work, 'chat-'));
    const url = `https://127.0.0.1:${nginxPort}`;
    const talk = chat(url, dataDir, 'write a long story\n/quit\n');
    // The answer is streaming before the restart begins.
    while (!/Guide oracle> \S+ \S+ \S+/.test(talk.output())) {
      expect(talk.output()).not.toMatch(/error|cut/);
      await sleep(100);
    }
    const script = spawn(
      'bash',
      [path.join(ROOT, 'deploy/rolling-restart.sh'), ...instances.map((i) => String(i.port))],
      {
        env: {
          PATH: process.env['PATH'],
          SERVERS_FILE: path.join(work, 'gateway-servers.conf'),
          RESTART: `curl -fsS -X POST http://127.0.0.1:${(control.address() as { port: number }).port}/restart/%s`,
          RELOAD: `${NGINX} ${nginxArgs.join(' ')} -t -q && ${NGINX} ${nginxArgs.join(' ')} -s reload`,
          SETTLE: '1',
          READY_TIMEOUT: '120',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let scriptOut = '';
    script.stdout.on('data', (d: Buffer) => (scriptOut += d.toString()));
    script.stderr.on('data', (d: Buffer) => (scriptOut += d.toString()));
    const scriptDone = once(script, 'exit') as Promise<[number | null]>;
    const ussd = ussdTraffic(nginxPort, Promise.all([scriptDone, talk.done]));

    const [scriptCode] = await scriptDone;
    const diagnostics = (): string =>
      `script:\n${scriptOut}\nchat:\n${talk.output()}\n${instances.map((i) => i.tail()).join('\n')}`;
    expect(scriptCode, diagnostics()).toBe(0);
    expect(restarts).toEqual(instances.map((i) => String(i.port)));
    const { code, out } = await talk.done;
    const traffic = await ussd;

    // The chat: re-joined, never cut, and what it printed ends as the stored answer ends.
    expect(code, diagnostics()).toBe(0);
    expect(out).toMatch(/\[stream lost after event \d+; re-joining\]/);
    expect(out).not.toContain('answer was cut');
    const sessionId = /session ([0-9a-f-]{36})\./.exec(out)?.[1] ?? '';
    const config = JSON.parse((await get(nginxPort, '/config')).text) as { did: `did:${string}:${string}` };
    const tokens = await mintUserTokens(await loadDevUser(dataDir), config.did, 600);
    const page = JSON.parse(
      (
        await get(nginxPort, `/sessions/${sessionId}/messages?limit=10`, {
          authorization: `Bearer ${tokens.invocation.serialized}`,
          'x-auth-type': 'ucan',
          'x-ucan-delegation': tokens.delegation.serialized,
        })
      ).text,
    ) as { messages: { type: string; content: string }[] };
    const answer = page.messages.filter((m) => m.type === 'ai').at(-1)?.content ?? '';
    expect(answer.split(/\s+/).length).toBeGreaterThan(380);
    expect(out).toContain(answer.slice(-80));

    // USSD: every reply the expected screen, across both restarts.
    expect(traffic.failures).toEqual([]);
    expect(traffic.requests).toBeGreaterThan(50);

    // Each old instance drained and said so last; each new one started and said who it is.
    for (const instance of instances) {
      expect(instance.runs).toHaveLength(2);
      const [old, fresh] = instance.runs.map(linesOf);
      expect(instance.runs[0]?.exit).toEqual({ code: 0, signal: null });
      expect(old?.last).toMatchObject({ msg: 'stopped (exit 0)', exitCode: 0, signal: 'SIGTERM' });
      expect(fresh?.started).toHaveLength(1);
      expect(fresh?.migrations[0]).toMatchObject({ msg: 'migrations: none pending' });
    }
    // nginx answered nothing but successes (upstream attempts that failed and were passed on would show
    // as a 502 before the final status in upstream=…, and are allowed only for connections refused).
    const log = await readFile(path.join(work, 'access.log'), 'utf8');
    expect(log.split('\n').filter((l) => /^(4|5)\d\d /.test(l) && !/^401 GET \/metrics/.test(l))).toEqual([]);
  }, 240_000);
  // Issue 36: the recipe exposed POST /api/ussd to every address (anyone could read a subscriber's screens and
  // lock their account), and nginx announced its version. Last: its refusals are the only 4xx of the log.
  it('answers POST /api/ussd for the aggregator only, names no nginx version, and sends HSTS', async () => {
    const body = {
      sessionId: 'n-stranger',
      serviceCode: '*384*123#',
      phoneNumber: '+254711000999',
      text: '',
    };
    const seen: http.IncomingHttpHeaders[] = [];
    const keep = (h: http.IncomingHttpHeaders): void => void seen.push(h);
    const refused: { path: string; status: number; fromNginx: boolean }[] = [];
    const before = (await readFile(path.join(work, 'access.log'), 'utf8')).length;
    for (const spelling of ['/api/ussd', '/api/ussd/', '/API/Ussd', '/api//ussd', '/api/%75ssd?x=1']) {
      const { status, text } = await postUssd(nginxPort, body, {
        localAddress: STRANGER,
        path: spelling,
        headers: keep,
      });
      refused.push({ path: spelling, status, fromNginx: text.includes('<center>nginx</center>') });
    }
    expect(refused).toEqual(
      ['/api/ussd', '/api/ussd/', '/API/Ussd', '/api//ussd', '/api/%75ssd?x=1'].map((p) => ({
        path: p,
        status: 403,
        fromNginx: true,
      })),
    );
    // nginx refused them itself: no instance was asked. (nginx writes a log line after its answer has left:
    // the last one may not be there yet when the client has read it, so wait for all five, up to 5 s.)
    let log = '';
    for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      log = (await readFile(path.join(work, 'access.log'), 'utf8')).slice(before);
      if (log.split('\n').filter(Boolean).length >= 5) break;
    }
    // ($uri as nginx matched it: slashes merged, percent-escapes decoded.)
    expect(log.split('\n').filter(Boolean)).toEqual([
      '403 POST /api/ussd upstream=-/-',
      '403 POST /api/ussd/ upstream=-/-',
      '403 POST /API/Ussd upstream=-/-',
      '403 POST /api/ussd upstream=-/-',
      '403 POST /api/ussd upstream=-/-',
    ]);
    // The aggregator's address is served, and the rest of the service from anywhere.
    expect(await postUssd(nginxPort, { ...body, sessionId: 'n-aggregator' }, { headers: keep })).toEqual({
      status: 200,
      text: TOP,
    });
    const health = await get(nginxPort, '/health', {}, AGGREGATOR);
    expect(health.status).toBe(200);
    seen.push(health.headers);
    // Every answer, nginx's own refusals and the instances' replies: `Server: nginx` without a version, HSTS.
    expect(seen).toHaveLength(7);
    for (const headers of seen) {
      expect(headers['server']).toBe('nginx');
      expect(headers['strict-transport-security']).toBe('max-age=31536000');
    }
  });

  it('port 80 redirects every request to HTTPS, except certificate renewals (certbot --webroot)', async () => {
    const plain = (target: string) =>
      new Promise<{ status: number; location: string | undefined; text: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: httpPort, path: target, agent: false }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, location: res.headers.location, text }),
            );
          })
          .on('error', reject);
      });
    expect(await plain('/health?x=1')).toMatchObject({
      status: 301,
      location: 'https://127.0.0.1/health?x=1',
    });
    expect(await plain('/api/ussd')).toMatchObject({ status: 301, location: 'https://127.0.0.1/api/ussd' });
    await mkdir(path.join(work, 'acme/.well-known/acme-challenge'), { recursive: true });
    await writeFile(path.join(work, 'acme/.well-known/acme-challenge/token-1'), 'token-1.key\n');
    expect(await plain('/.well-known/acme-challenge/token-1')).toMatchObject({
      status: 200,
      text: 'token-1.key\n',
    });
  });
});

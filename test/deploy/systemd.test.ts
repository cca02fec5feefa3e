import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import {
  appendFile,
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ed25519 } from '@ucanto/principal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import {
  havePostgresBinaries,
  startPrivatePostgres,
  type PrivatePostgres,
} from '../faults/private-postgres.js';
import { statusOf, untilServing } from '../helpers/child-server.js';
import { createThrowawayDatabase, TEST_DATABASE_URL, type ThrowawayDatabase } from '../helpers/db.js';
import { freePort } from '../helpers/private-redis.js';

// The systemd unit of docs/operating.md (deploy/systemd/gateway@.service), checked as systemd reads it
// (`systemd-analyze verify` has nothing to say about an instance of it), and run as systemd would run it,
// without a systemd to do so (no PID 1 here): its ExecStartPre and ExecStart, exactly as written, in an install
// directory owned by someone else, as a user who cannot write there, with the `.env` the docs describe.
// Issue 38: the unit ran `npm start`, whose prestart re-pointed `.build/current` on every start (EACCES for a
// service user that does not own the install directory) and whose banner went to the journal.

const ROOT = path.resolve(import.meta.dirname, '../..');
const UNIT = path.join(ROOT, 'deploy/systemd/gateway@.service');
const ANALYZE = process.env['SYSTEMD_ANALYZE_BIN'] ?? '/usr/bin/systemd-analyze';
const inCi = !['', '0', 'false'].includes(process.env['CI'] ?? '');
/** Debian's `nobody`/`nogroup`: the service user when the test runs as root. */
const SERVICE_UID = 65534;
const asRoot = process.getuid?.() === 0;

function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) => resolve({ code: -1, output: err.message }));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

const haveAnalyze = (await run(ANALYZE, ['--version'])).code === 0;
if (!haveAnalyze && inCi)
  throw new Error(`CI: no systemd-analyze at ${ANALYZE} (apt-get install -y systemd)`);

/** `systemd-analyze verify` of the unit's instance on port 3001, from a copy in a directory of its own. */
async function verify(text: string): Promise<{ code: number | null; output: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'unit-'));
  try {
    await writeFile(path.join(dir, 'gateway@.service'), text);
    return await run(ANALYZE, ['verify', '--man=no', './gateway@3001.service'], { cwd: dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The unit's `Key=value` lines by section. */
function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | undefined;
  for (const line of text.split('\n').map((l) => l.trim())) {
    const section = /^\[(\w+)\]$/.exec(line);
    if (section?.[1]) current = sections[section[1]] = {};
    else if (current && /^\w+=/.test(line)) {
      const [key, ...value] = line.split('=');
      (current[key as string] ??= []).push(value.join('='));
    }
  }
  return sections;
}

const unitText = await readFile(UNIT, 'utf8');
const service = parseUnit(unitText)['Service'] ?? {};

/** One command line of the unit (no quoting in ours), `%i` being the instance. */
function commandOf(key: string, instance: string): string[] {
  const [line, ...more] = service[key] ?? [];
  expect(more, `one ${key}`).toEqual([]);
  return (line ?? '').replaceAll('%i', instance).split(/\s+/).filter(Boolean);
}

describe('deploy/systemd/gateway@.service', () => {
  it.runIf(haveAnalyze)(
    'systemd-analyze verify has nothing to say about an instance (and does about a typo)',
    async () => {
      expect(await verify(unitText)).toEqual({ code: 0, output: '' });
      // The check itself notices a mistake: a misspelled key is reported.
      const typo = await verify(unitText.replace('TimeoutStopSec=', 'TimeoutStopSecs='));
      expect(typo.output).toContain("Unknown key 'TimeoutStopSecs' in section [Service]");
    },
  );

  it('runs node as `npm start` does, without npm, as its own user, on the instance’s port, and outwaits the drain', async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // The node flags and entry of `npm start`, so the two cannot drift apart.
    const start = (pkg.scripts['start'] ?? '').replace(/^exec /, '').split(' ');
    expect(start[0]).toBe('node');
    expect(commandOf('ExecStart', '3001')).toEqual(['/usr/bin/node', ...start.slice(1)]);
    expect(commandOf('ExecStartPre', '3001')).toEqual([
      '/usr/bin/node',
      'scripts/build-server.js',
      '--check',
    ]);
    expect(service['User']).toEqual(['gateway']);
    expect(service['Environment']).toEqual(['PORT=%i']);
    expect(service['WorkingDirectory']).toEqual(['/srv/gateway']);
    expect(service['Restart']).toEqual(['on-failure']);
    expect(service['KillSignal']).toEqual(['SIGTERM']);
    // systemd kills the process TimeoutStopSec after SIGTERM: the pre-stop delay and the drain must fit in it,
    // with the 5 s the docs ask for to spare.
    const config = loadConfig({ NODE_ENV: 'development' });
    const stopSeconds = Number(service['TimeoutStopSec']?.[0]);
    expect(stopSeconds).toBeGreaterThanOrEqual(
      (config.PRESTOP_DELAY_MS + config.DRAIN_TIMEOUT_MS) / 1000 + 5,
    );
    expect(parseUnit(unitText)['Install']?.['WantedBy']).toEqual(['multi-user.target']);
  });

  it('docs/operating.md shows this very file', async () => {
    const docs = await readFile(path.join(ROOT, 'docs/operating.md'), 'utf8');
    expect(docs).toContain('deploy/systemd/gateway@.service');
    expect(docs).toContain(unitText.trim());
  });
});

/** Why the unit cannot be run here, or undefined. In CI that is a failure. */
async function cannotRun(): Promise<string | undefined> {
  if (TEST_DATABASE_URL === undefined && !(await havePostgresBinaries()))
    return 'no DATABASE_URL and no PostgreSQL server binaries (PG_BIN): production needs PostgreSQL';
  if (asRoot && (await run('setpriv', ['--version'])).code !== 0) return 'no setpriv (util-linux)';
  return undefined;
}
const reason = await cannotRun();
if (reason && inCi) throw new Error(`CI: the systemd unit cannot be run: ${reason}`);

/** What the running server reads from the install directory: its sources, built once, and its data files. */
const INSTALLED = ['package.json', 'server', 'contracts', 'generated', 'lib', 'menus', 'fixtures'];

/** Every entry under `dir` (symlinks not followed) with what a write would change. */
async function snapshot(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(path.join(dir, rel))).sort()) {
    const file = path.join(rel, entry);
    const st = await lstat(path.join(dir, file));
    const link = st.isSymbolicLink() ? ` -> ${await readlink(path.join(dir, file))}` : '';
    out.push(`${file} ${st.mode.toString(8)} ${st.size} ${st.mtimeMs}${link}`);
    if (st.isDirectory()) out.push(...(await snapshot(dir, file)));
  }
  return out;
}

describe.skipIf(reason !== undefined)('the unit, run as systemd runs it', () => {
  let install: string;
  let postgres: PrivatePostgres | undefined;
  let database: ThrowawayDatabase | undefined;
  let before: string[];
  /** How the unit's commands are started: as the service user (root: nobody), with systemd's bare environment. */
  let asService: (command: string[], port: string) => ChildProcess;

  beforeAll(async () => {
    let databaseUrl: string;
    if (TEST_DATABASE_URL !== undefined) {
      database = await createThrowawayDatabase('systemd_unit');
      databaseUrl = database.url ?? '';
    } else {
      postgres = await startPrivatePostgres();
      databaseUrl = postgres.url;
    }
    // The install of docs/operating.md: the owner's files (root's, here) with their dependencies, built once.
    install = await mkdtemp(path.join(tmpdir(), 'srv-gateway-'));
    for (const entry of INSTALLED)
      await cp(path.join(ROOT, entry), path.join(install, entry), { recursive: true });
    await mkdir(path.join(install, 'scripts'));
    await cp(path.join(ROOT, 'scripts/build-server.js'), path.join(install, 'scripts/build-server.js'));
    await symlink(path.join(ROOT, 'node_modules'), path.join(install, 'node_modules'));
    const built = await run(process.execPath, ['scripts/build-server.js'], { cwd: install });
    expect(built).toEqual({ code: 0, output: '' });
    // `.env` as the docs say: the service user's, mode 0600.
    await writeFile(
      path.join(install, '.env'),
      [
        'NODE_ENV=production',
        'HOST=127.0.0.1',
        `DATABASE_URL=${databaseUrl}`,
        `PIN_ENCRYPTION_KEY=${randomBytes(32).toString('base64')}`,
        `ORACLE_SIGNING_KEY=${ed25519.format(await ed25519.generate())}`,
        'USSD_AGGREGATOR_AUTH=network',
        'ORACLE_CORS_ORIGINS=https://app.example.org',
        'CHAIN_GRPC_URL=fixture',
        'TRUST_PROXY_ENABLED=127.0.0.1',
        `OPERATOR_TOKEN=${randomBytes(16).toString('hex')}`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    if (asRoot) {
      // Owned by root and readable by all, as `git clone` and `npm ci` as root leave it; only .env is the user's.
      await chmod(install, 0o755);
      await chown(path.join(install, '.env'), SERVICE_UID, SERVICE_UID);
    } else {
      // Without root there is no other user to be: the directory is made read-only instead.
      await run('chmod', ['-R', 'a-w', install]);
    }
    before = await snapshot(install);

    asService = (command, port) => {
      const [binary = '', ...args] = command;
      // The unit names /usr/bin/node (Debian's); a machine with node elsewhere runs this one.
      const node = existsSync(binary) ? binary : process.execPath;
      // systemd's environment for a unit: PATH and the unit's Environment= lines, nothing of the caller's.
      const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', PORT: port };
      return asRoot
        ? spawn(
            'setpriv',
            [`--reuid=${SERVICE_UID}`, `--regid=${SERVICE_UID}`, '--clear-groups', '--', node, ...args],
            { cwd: install, env, stdio: ['ignore', 'pipe', 'pipe'] },
          )
        : spawn(node, args, { cwd: install, env, stdio: ['ignore', 'pipe', 'pipe'] });
    };
  }, 180_000);

  afterAll(async () => {
    if (install) {
      await run('chmod', ['-R', 'u+w', install]);
      await rm(install, { recursive: true, force: true });
    }
    await database?.drop();
    await postgres?.destroy();
  }, 60_000);

  /** Runs a unit command to its end as the service user. */
  async function runToEnd(command: string[]): Promise<{ code: number | null; output: string }> {
    const child = asService(command, '0');
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, output };
  }

  it('ExecStartPre, then ExecStart: the instance answers /health, /health/ready and /health/live, logs JSON only, drains on SIGTERM, and wrote nothing in the install directory', async () => {
    const port = String(await freePort());
    expect(await runToEnd(commandOf('ExecStartPre', port))).toEqual({ code: 0, output: '' });
    // `npm start`'s prestart, run by hand in this directory, writes nothing either when the build is current.
    expect(await runToEnd(['/usr/bin/node', 'scripts/build-server.js'])).toEqual({ code: 0, output: '' });

    const server = asService(commandOf('ExecStart', port), port);
    let stdout = '';
    let stderr = '';
    server.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    server.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      await untilServing(Number(port), server, { path: '/health', ms: 60_000 }).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}\n${stdout}\n${stderr}`);
      });
      expect(await statusOf(Number(port), '/health/ready')).toBe(200);
      expect(await statusOf(Number(port), '/health/live')).toBe(200);
      expect(await statusOf(Number(port), '/ixo/token/params')).toBe(200);
    } finally {
      const exited = once(server, 'exit') as Promise<[number | null, string | null]>;
      server.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
    }
    // The journal gets the server's own lines, each one JSON: the start-up line first, `stopped` last.
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; env?: string; listen?: string });
    expect(lines.find((l) => l.msg.startsWith('started '))).toMatchObject({
      env: 'production',
      listen: `127.0.0.1:${port}`,
    });
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped (exit 0)' });
    expect(stderr).toBe('');
    expect(await snapshot(install)).toEqual(before);
  }, 120_000);

  it('ExecStartPre refuses a build older than the sources, says what to run, and writes nothing', async () => {
    // An update of the sources without `npm run build:server` (by the owner).
    const main = path.join(install, 'server/main.ts');
    if (!asRoot) await chmod(main, 0o644);
    await appendFile(main, '\n// updated\n');
    if (!asRoot) await chmod(main, 0o444);
    const changed = await snapshot(install);
    const refused = await runToEnd(commandOf('ExecStartPre', '3001'));
    expect(refused.code).toBe(1);
    expect(refused.output).toBe(
      `${install}/.build/current is not the build of the sources in ${install}: run \`npm run build:server\` there as the owner of the install directory (after every update of the sources)\n`,
    );
    expect(await snapshot(install)).toEqual(changed);
  });

  it('a .env the service user cannot read stops the start with one line naming the file and what to do', async () => {
    const env = path.join(install, '.env');
    // What `install -m 600` by root, without `-o gateway`, leaves (as a non-root test: no read access at all).
    if (asRoot) await chown(env, 0, 0);
    else await chmod(env, 0o000);
    try {
      const port = String(await freePort());
      const { code, output } = await runToEnd(commandOf('ExecStart', port));
      expect(code).toBe(1);
      const lines = output
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { level: number; msg: string });
      // stdout and stderr arrive as they come: the lines are found by level, not by order.
      const fatal = lines.filter((l) => l.level === 60);
      expect(fatal, output).toHaveLength(1);
      expect(fatal[0]?.msg).toMatch(
        new RegExp(
          `^cannot read \\.env in ${install.replaceAll('.', '\\.')} as uid \\d+: EACCES: permission denied, access '${env.replaceAll('.', '\\.')}' \\(the server reads it itself: give it to the service user, mode 0600; docs/operating\\.md, "Configure"\\)$`,
        ),
      );
      expect(lines.map((l) => l.msg)).toContain('stopped (exit 1)');
    } finally {
      if (asRoot) await chown(env, SERVICE_UID, SERVICE_UID);
      else await chmod(env, 0o400);
    }
  });
});

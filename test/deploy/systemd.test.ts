import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';

// The systemd unit of README "Deploying" (deploy/systemd/gateway@.service), checked as systemd reads it:
// `systemd-analyze verify` finds nothing to say about an instance of it, it starts `npm start` in its working
// directory on the instance's port, and it gives the drain the time it needs before systemd kills the process.

const ROOT = path.resolve(import.meta.dirname, '../..');
const UNIT = path.join(ROOT, 'deploy/systemd/gateway@.service');
const ANALYZE = process.env['SYSTEMD_ANALYZE_BIN'] ?? '/usr/bin/systemd-analyze';
const inCi = !['', '0', 'false'].includes(process.env['CI'] ?? '');

function run(command: string, args: string[], cwd?: string) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
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
    return await run(ANALYZE, ['verify', '--man=no', './gateway@3001.service'], dir);
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

describe('deploy/systemd/gateway@.service', () => {
  it.runIf(haveAnalyze)(
    'systemd-analyze verify has nothing to say about an instance (and does about a typo)',
    async () => {
      const text = await readFile(UNIT, 'utf8');
      expect(await verify(text)).toEqual({ code: 0, output: '' });
      // The check itself notices a mistake: a misspelled key is reported.
      const typo = await verify(text.replace('TimeoutStopSec=', 'TimeoutStopSecs='));
      expect(typo.output).toContain("Unknown key 'TimeoutStopSecs' in section [Service]");
    },
  );

  it('runs npm start in its directory on the instance’s port, restarts on failure, and outwaits the drain', async () => {
    const unit = parseUnit(await readFile(UNIT, 'utf8'));
    const service = unit['Service'] ?? {};
    expect(service['ExecStart']).toEqual(['/usr/bin/npm start']);
    expect(service['Environment']).toEqual(['PORT=%i']);
    expect(service['WorkingDirectory']).toHaveLength(1);
    expect(service['Restart']).toEqual(['on-failure']);
    expect(service['KillSignal']).toEqual(['SIGTERM']);
    // systemd kills the process TimeoutStopSec after SIGTERM: the pre-stop delay and the drain must fit in it,
    // with the 5 s the README asks for to spare.
    const config = loadConfig({ NODE_ENV: 'development' });
    const stopSeconds = Number(service['TimeoutStopSec']?.[0]);
    expect(stopSeconds).toBeGreaterThanOrEqual(
      (config.PRESTOP_DELAY_MS + config.DRAIN_TIMEOUT_MS) / 1000 + 5,
    );
    expect(unit['Install']?.['WantedBy']).toEqual(['multi-user.target']);
  });

  it('the README shows this very file', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const text = await readFile(UNIT, 'utf8');
    expect(readme).toContain('deploy/systemd/gateway@.service');
    expect(readme).toContain(text.trim());
  });
});

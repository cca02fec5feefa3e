import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docPages } from '../../scripts/tools/check-docs.js';
import { codeBlocksOf, type CodeBlock } from '../../scripts/tools/lib/markdown-doc.js';
import { npmStartArgs } from '../../scripts/tools/lib/npm-start.js';
import { untilServing } from '../helpers/child-server.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../helpers/db.js';
import { freePort } from '../helpers/private-redis.js';

// Issue 38 item 5: every code block of the docs marked `<!-- runnable -->` runs, as written, against a server
// started as `npm start` starts it on a fresh machine. The blocks say `localhost:3000`, the reader's server;
// here that is this test's server on a free port (and PORT says so to the tools the blocks call).

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Marked {
  page: string;
  block: CodeBlock;
}

const marked: Marked[] = [];
for (const page of await docPages()) {
  const text = await readFile(path.join(ROOT, page), 'utf8');
  for (const block of codeBlocksOf(text).filter((b) => b.runnable)) marked.push({ page, block });
}

let server: ChildProcess | undefined;
let database: ThrowawayDatabase | undefined;
let dataDir = '';
let port = 0;
let output = '';

/** A fresh machine's environment: none of the test runner's variables. */
const machineEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: process.env['HOME'],
  PORT: String(port),
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  ...database?.env,
});

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'docs-runnable-'));
  database = await createThrowawayDatabase('docs_runnable');
  port = await freePort();
  server = spawn(process.execPath, await npmStartArgs(), {
    cwd: ROOT,
    env: machineEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  server.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  await untilServing(port, server, { ms: 90_000 });
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs a block with bash, stopping at the first failing command, pointed at this test's server. */
function runBlock(text: string): Promise<{ code: number; out: string }> {
  const script = text.replaceAll('localhost:3000', `localhost:${port}`);
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { cwd: ROOT, env: machineEnv(), timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, out: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe('the docs runnable blocks', () => {
  it('include the README quick start and the curl tour of the agent API', () => {
    const pages = new Set(marked.map((m) => m.page));
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/agent-api.md');
    for (const { page, block } of marked) {
      expect(['sh', 'bash'], `${page}:${block.line} is marked runnable but is not sh`).toContain(block.info);
    }
  });

  for (const { page, block } of marked) {
    it(`${page}:${block.line} runs`, async () => {
      const { code, out } = await runBlock(block.text);
      expect(code, `${out}\n--- server output\n${output.slice(-4000)}`).toBe(0);
    }, 90_000);
  }
});

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startOracleApp } from './helpers/oracle-app.js';

function runChat(
  args: string[],
  input: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/tools/chat.ts', ...args], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end(input);
  });
}

describe('npm run chat', () => {
  it('signs its own tokens, streams the answers of piped messages and lists its sessions', async () => {
    await using app = await startOracleApp();
    const dataDir = await mkdtemp(path.join(tmpdir(), 'chat-cli-'));
    try {
      const { code, out } = await runChat(
        ['--url', app.url],
        'hello\nthink step by step\n/sessions\n/quit\n',
        {
          DATA_DIR: dataDir,
        },
      );
      expect(code).toBe(0);
      expect(out).toContain('Guide oracle> Hello, I am Guide oracle. You said: "hello".');
      expect(out).toContain('(thinking) The user asked: "think step by step".');
      expect(out).toContain('Third, I answer: here is my reply.');
      expect(out).toMatch(/[0-9a-f-]{36} {2}hello/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('says how to start a server when none answers', async () => {
    const { code, out } = await runChat(['--url', 'http://127.0.0.1:9'], '', { DATA_DIR: tmpdir() });
    expect(code).toBe(1);
    expect(out).toContain('No oracle answers at http://127.0.0.1:9. Start one with `npm start`');
  });
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { endEventStreams } from '../../../server/oracle/http/event-stream.js';
import { loadDevUser } from '../../../scripts/tools/dev-user.js';
import { newUser, oracleApi } from '../../helpers/oracle/oracle-client.js';
import { startOracleApp } from '../../helpers/oracle/oracle-app.js';

function runChat(
  args: string[],
  input: string,
  env: Record<string, string>,
  onOutput?: (out: string) => void,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/tools/chat.ts', ...args], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const take = (d: Buffer): void => {
      out += d.toString();
      onOutput?.(out);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end(input);
  });
}

/** Resolves once `test` holds for the chat's output so far. */
function whenOutput(test: (out: string) => boolean): {
  onOutput: (out: string) => void;
  reached: Promise<void>;
} {
  let reach!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  return { onOutput: (out) => test(out) && reach(), reached };
}

/** The stored answer of the chat's session (the dev user of `dataDir` reads it back). */
async function storedAnswer(url: string, oracleDid: string, dataDir: string, out: string): Promise<string> {
  const sessionId = /session ([0-9a-f-]{36})\./.exec(out)?.[1] ?? '';
  const api = oracleApi(url, await newUser(oracleDid, await loadDevUser(dataDir)));
  const page = await api.call('GET', `/sessions/${sessionId}/messages?limit=10`);
  const messages = (page.body as { messages: { type: string; content: string }[] }).messages;
  return messages.filter((m) => m.type === 'ai').at(-1)?.content ?? '';
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

  it('asks y/n when a tool call waits for approval: y runs it, n with a reason declines it', async () => {
    await using app = await startOracleApp({
      env: { ORACLE_FEATURES: 'memory', ORACLE_TOOLS_NEED_APPROVAL: 'remember_fact' },
    });
    const dataDir = await mkdtemp(path.join(tmpdir(), 'chat-cli-'));
    try {
      const { code, out } = await runChat(
        ['--url', app.url],
        [
          'use remember_fact with {"content": "Likes tea"}',
          'y',
          'use remember_fact with {"content": "Hates coffee"}',
          'n not today',
          '/quit',
          '',
        ].join('\n'),
        { DATA_DIR: dataDir },
      );
      expect(code).toBe(0);
      expect(out).toContain(
        '[remember_fact wants to run with {"content":"Likes tea"}. Approve? y/n (n <reason> to say why)]',
      );
      expect(out).toContain('[approved]\n');
      expect(out).toContain('[denied: not today]\n');
      const api = oracleApi(app.url, await newUser(app.oracleDid, await loadDevUser(dataDir)));
      const memories = (await api.call('GET', '/memory')).body as { memories: { content: string }[] };
      expect(memories.memories.map((m) => m.content)).toEqual(['Likes tea']);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('says how to start a server when none answers', async () => {
    const { code, out } = await runChat(['--url', 'http://127.0.0.1:9'], '', { DATA_DIR: tmpdir() });
    expect(code).toBe(1);
    expect(out).toContain('No oracle answers at http://127.0.0.1:9. Start one with `npm start`');
  });

  it('re-joins a stream that ends without `done` (an instance draining) after the last event it saw, as the SDK does', async () => {
    await using app = await startOracleApp({ env: { SCRIPTED_MODEL_DELAY_MS: '5' } });
    const dataDir = await mkdtemp(path.join(tmpdir(), 'chat-cli-'));
    try {
      const streaming = whenOutput((out) => /Guide oracle> (\S+ ){10}/.test(out));
      const chat = runChat(
        ['--url', app.url],
        'write a long story\n/quit\n',
        { DATA_DIR: dataDir },
        streaming.onOutput,
      );
      await streaming.reached;
      // What a draining server does to its streams: `: draining`, then the end of the body; the run goes on.
      endEventStreams(app.server.http);
      const { code, out } = await chat;
      expect(code, out).toBe(0);
      expect(out).toMatch(/ \[stream lost after event \d+; re-joining\] \[re-joined\] /);
      expect(out).not.toContain('answer was cut');
      // Not a word lost or repeated: the printed answer, without the notes, is the stored one.
      const answer = await storedAnswer(app.url, app.oracleDid, dataDir, out);
      expect(answer.split(/\s+/).length).toBeGreaterThan(380);
      const printed = /Guide oracle> ([\s\S]*)\n/.exec(out)?.[1] ?? '';
      expect(printed.replace(/ \[stream lost after event \d+; re-joining\] \[re-joined\] /, '')).toBe(answer);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('says plainly that the answer was cut when the stream cannot be re-joined, and exits 1', async () => {
    await using app = await startOracleApp({ env: { SCRIPTED_MODEL_DELAY_MS: '5' } });
    // A proxy in front of the oracle that has lost the way to re-joins: GET /runs/… answers 404.
    const target = new URL(app.url);
    const proxy = http.createServer((req, res) => {
      if (req.method === 'GET' && req.url?.startsWith('/runs/')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"not_found"}');
        return;
      }
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'chat-cli-'));
    try {
      const streaming = whenOutput((out) => /Guide oracle> (\S+ ){10}/.test(out));
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const chat = runChat(
        ['--url', url],
        'write a long story\n/quit\n',
        { DATA_DIR: dataDir },
        streaming.onOutput,
      );
      await streaming.reached;
      endEventStreams(app.server.http);
      const { code, out } = await chat;
      expect(code, out).toBe(1);
      expect(out).toMatch(
        /\n\[the answer was cut: the stream ended after event \d+ without `done` and could not be re-joined \(run run_[0-9a-f-]{36}\)\]\n/,
      );
    } finally {
      proxy.closeAllConnections();
      proxy.close();
      await sleep(0);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

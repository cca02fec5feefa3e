/**
 * Terminal chat with a running oracle, streaming its answers:
 *
 *   npm run chat                                   # http://localhost:3000, a new session
 *   npm run chat -- --url http://localhost:3000 --session <id>
 *
 * It signs its own capability tokens as the development user (key kept in $DATA_DIR/dev-user-key). Type a
 * message and press Enter; Ctrl-C while an answer streams aborts it (POST /messages/abort); `/new` starts a
 * new session, `/sessions` lists them, `/quit` (or Ctrl-D) leaves. Input may be piped.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createParser } from 'eventsource-parser';
import { mintUserTokens } from '../../server/oracle/auth/mint.js';
import { fetchOracleConfig, loadDevUser } from './dev-user.js';

const USAGE = `Usage: npm run chat -- [--url http://localhost:3000] [--session <id>]

Chats with a running oracle (ORACLE_URL or --url), signing tokens as the development user. In the chat:
/new starts a session, /sessions lists them, /quit (or Ctrl-D) leaves; Ctrl-C aborts a streaming answer.`;

function readArgs(): { url: string; session: string | undefined } {
  try {
    const { values } = parseArgs({
      options: {
        url: { type: 'string', default: process.env['ORACLE_URL'] ?? 'http://localhost:3000' },
        session: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    return { url: values.url, session: values.session };
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    process.exit(2);
  }
}
const values = readArgs();
const base = values.url.replace(/\/+$/, '');
const tty = process.stdout.isTTY;
const dim = (s: string): string => (tty ? `\x1b[2m${s}\x1b[0m` : s);
const bold = (s: string): string => (tty ? `\x1b[1m${s}\x1b[0m` : s);

async function main(): Promise<void> {
  const config = await fetchOracleConfig(base);
  const user = await loadDevUser(process.env['DATA_DIR'] ?? './data');
  const tokens = await mintUserTokens(user, config.did as `did:${string}:${string}`, 12 * 3600);
  const headers = {
    authorization: `Bearer ${tokens.invocation.serialized}`,
    'x-auth-type': 'ucan',
    'x-ucan-delegation': tokens.delegation.serialized,
    'content-type': 'application/json',
  };
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${String(json['message'])}`);
    return json;
  };
  let sessionId = values.session ?? String((await call('POST', '/sessions', {}))['sessionId']);
  console.log(dim(`${config.name} (${config.model}) at ${base} — you are ${tokens.userDid}`));
  console.log(dim(`session ${sessionId}. /new, /sessions, /quit; Ctrl-C aborts an answer.`));

  let streaming: AbortController | undefined;
  const rl = createInterface({ input: process.stdin, terminal: tty });
  rl.on('SIGINT', () => {
    if (!streaming) return rl.close();
    process.stdout.write(dim(' [aborting]'));
    void call('POST', '/messages/abort', { sessionId });
  });
  const prompt = (): void => {
    if (tty) process.stdout.write(bold('\nyou> '));
  };

  prompt();
  for await (const line of rl) {
    const text = line.trim();
    if (!text) {
      prompt();
      continue;
    }
    if (text === '/quit') break;
    if (text === '/new') {
      sessionId = String((await call('POST', '/sessions', {}))['sessionId']);
      console.log(dim(`new session ${sessionId}`));
      prompt();
      continue;
    }
    if (text === '/sessions') {
      const page = (await call('GET', '/sessions?limit=20')) as {
        sessions: { sessionId: string; title?: string }[];
      };
      for (const s of page.sessions) console.log(dim(`${s.sessionId}  ${s.title ?? ''}`));
      prompt();
      continue;
    }
    streaming = new AbortController();
    const response = await fetch(`${base}/messages/${sessionId}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        message: text,
        stream: true,
        timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      }),
    });
    if (!response.ok || !response.body) {
      console.log(`error: ${response.status} ${await response.text()}`);
      streaming = undefined;
      prompt();
      continue;
    }
    process.stdout.write(bold(`${config.name}> `));
    let reasoning = false;
    const parser = createParser({
      onEvent(event) {
        const data = JSON.parse(event.data) as Record<string, unknown>;
        switch (event.event ?? 'message') {
          case 'reasoning':
            if (!reasoning && data['reasoning']) process.stdout.write(dim('(thinking) '));
            reasoning = true;
            process.stdout.write(dim(typeof data['reasoning'] === 'string' ? data['reasoning'] : ''));
            if (data['isComplete']) process.stdout.write('\n');
            break;
          case 'message':
            process.stdout.write(String(data['content']));
            break;
          case 'tool_call':
          case 'action_call':
            process.stdout.write(dim(`\n[${String(data['toolName'])}: ${String(data['status'])}]\n`));
            break;
          case 'render_component':
            process.stdout.write(dim(`\n[component ${String(data['componentName'])}]\n`));
            break;
          case 'error':
            process.stdout.write(`\n[error: ${String(data['error'])}]`);
            break;
          case 'done':
            if (data['status'] !== 'finished') process.stdout.write(dim(` [${String(data['status'])}]`));
            process.stdout.write('\n');
            break;
          default:
            break;
        }
      },
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const chunk = await reader.read().catch(() => undefined);
      if (!chunk || chunk.done) break;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
    }
    streaming = undefined;
    prompt();
  }
  rl.close();
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});

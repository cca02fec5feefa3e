/**
 * Terminal chat with a running oracle, streaming its answers:
 *
 *   npm run chat                                   # http://localhost:3000, a new session
 *   npm run chat -- --url http://localhost:3000 --session <id>
 *
 * It signs its own capability tokens as the development user (key kept in $DATA_DIR/dev-user-key). Type a
 * message and press Enter; Ctrl-C while an answer streams aborts it (POST /messages/abort); `/new` starts a
 * new session, `/sessions` lists them, `/quit` (or Ctrl-D) leaves. Input may be piped. `.env` is read as
 * `npm start` reads it (default URL: ORACLE_URL, PUBLIC_BASE_URL, else http://localhost:$PORT). A tool call that
 * waits for approval (ORACLE_TOOLS_NEED_APPROVAL) is asked on the terminal: `y` approves, `n <reason>` denies.
 *
 * A stream that ends without `done` (an instance restarting, a proxy cutting it) is re-joined after the last
 * event id seen (`GET /runs/:runId?after=N`), as the SDK does; when that fails the answer is said to be cut
 * and the exit code is 1.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { readDotEnv } from '../../server/env-file.js';
import { mintUserTokens } from '../../server/oracle/auth/mint.js';
import { fetchOracleConfig, loadDevUser } from './dev-user.js';

readDotEnv();
/** How many times in a row a dropped stream is re-joined without getting a new event before giving up. */
const REJOIN_ATTEMPTS = 5;
const REJOIN_BASE_MS = 250;

const USAGE = `Usage: npm run chat -- [--url http://localhost:3000] [--session <id>]

Chats with a running oracle (--url, else ORACLE_URL, PUBLIC_BASE_URL or http://localhost:$PORT, read from
the environment and .env), signing tokens as the development user. In the chat: /new starts a session,
/sessions lists them, /quit (or Ctrl-D) leaves; Ctrl-C aborts a streaming answer. A dropped stream is
re-joined; an answer that cannot be is reported cut (exit code 1).`;

function defaultUrl(): string {
  const env = process.env;
  return env['ORACLE_URL'] || env['PUBLIC_BASE_URL'] || `http://localhost:${env['PORT'] || '3000'}`;
}

function readArgs(): { url: string; session: string | undefined } {
  try {
    const { values } = parseArgs({
      options: {
        url: { type: 'string', default: defaultUrl() },
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
    const answered = await response.text();
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(answered) as Record<string, unknown>;
    } catch {
      throw new Error(
        `${method} ${path}: ${response.status}, not JSON: ${JSON.stringify(answered.slice(0, 120))}`,
      );
    }
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

  const lines = rl[Symbol.asyncIterator]();
  /**
   * A tool call that waits for approval: asks on the terminal (the next line read; piped input answers too) and
   * posts the decision. `y`/`yes` approves; anything else denies, its words after `n`/`no` being the reason.
   */
  const approve = (request: Record<string, unknown>): void => {
    const toolCallId = String(request['toolCallId']);
    process.stdout.write(
      `\n[${String(request['toolName'])} wants to run with ${JSON.stringify(request['args'])}. Approve? y/n (n <reason> to say why)] `,
    );
    void lines.next().then(async (next) => {
      const reply = next.done ? 'n' : String(next.value).trim();
      const approved = /^y(es)?$/i.test(reply);
      const reason = approved ? '' : reply.replace(/^no?\b[\s,:]*/i, '').trim();
      await call('POST', `/sessions/${sessionId}/tool-approvals/${encodeURIComponent(toolCallId)}`, {
        approved,
        ...(reason ? { reason } : {}),
      }).catch((err: unknown) => console.error(err instanceof Error ? err.message : String(err)));
    });
  };

  prompt();
  for (;;) {
    const next = await lines.next();
    if (next.done) break;
    const text = String(next.value).trim();
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
      signal: streaming.signal,
    }).catch((err: unknown) => err as Error);
    if (response instanceof Error || !response.ok || !response.body) {
      console.log(
        response instanceof Error
          ? `error: ${response.message}`
          : `error: ${response.status} ${await response.text()}`,
      );
      streaming = undefined;
      prompt();
      continue;
    }
    process.stdout.write(bold(`${config.name}> `));
    const answer: Answer = {
      runId: response.headers.get('x-run-id') ?? undefined,
      lastEventId: 0,
      text: '',
      reasoning: false,
      done: false,
      asked: new Set(),
    };
    await readAnswer(response.body, answer, approve);
    let failures = 0;
    while (!answer.done && !aborted(streaming)) {
      if (answer.runId === undefined || failures >= REJOIN_ATTEMPTS) break;
      if (failures > 0) await sleep(Math.min(8000, REJOIN_BASE_MS * 2 ** (failures - 1)));
      process.stdout.write(dim(` [stream lost after event ${answer.lastEventId}; re-joining]`));
      const before = answer.lastEventId;
      const rejoined = await fetch(`${base}/runs/${answer.runId}?after=${answer.lastEventId}`, {
        headers: { ...headers, accept: 'text/event-stream' },
        signal: streaming.signal,
      }).catch(() => undefined);
      if (rejoined?.status === 404) break;
      if (rejoined?.ok && rejoined.body) {
        process.stdout.write(dim(' [re-joined] '));
        await readAnswer(rejoined.body, answer, approve);
      } else {
        await rejoined?.body?.cancel();
      }
      failures = answer.lastEventId > before ? 0 : failures + 1;
    }
    if (!answer.done && !aborted(streaming)) {
      // Said plainly, on stdout with the answer and on stderr for whoever reads only that.
      const cut = `[the answer was cut: the stream ended after event ${answer.lastEventId} without \`done\` and could not be re-joined${answer.runId ? ` (run ${answer.runId})` : ''}]`;
      process.stdout.write(`\n${cut}\n`);
      console.error(cut);
      process.exitCode = 1;
    }
    streaming = undefined;
    prompt();
  }
  rl.close();
}

/** One answer being streamed, across re-joins of its run. */
interface Answer {
  runId: string | undefined;
  /** The id of the last event read: a re-join asks for the events after it. */
  lastEventId: number;
  /** The answer's text as printed (cut back when a resumed attempt says so). */
  text: string;
  reasoning: boolean;
  /** `done` was read: the turn is over. */
  done: boolean;
  /** Approvals asked already (a re-join reads the request again). */
  asked: Set<string>;
}

function aborted(controller: AbortController | undefined): boolean {
  return controller?.signal.aborted ?? false;
}

/** Prints the events of one stream until `done` or the end of the body (a dropped stream). */
async function readAnswer(
  body: ReadableStream<Uint8Array>,
  answer: Answer,
  approve: (request: Record<string, unknown>) => void,
): Promise<void> {
  const parser = createParser({
    onEvent(event) {
      if (answer.done) return;
      if (event.id !== undefined && /^\d+$/.test(event.id)) answer.lastEventId = Number(event.id);
      const data = JSON.parse(event.data) as Record<string, unknown>;
      switch (event.event ?? 'message') {
        case 'run': {
          if (typeof data['runId'] === 'string') answer.runId = data['runId'];
          const partialLength = data['partialLength'];
          if (data['resumed'] === true && typeof partialLength === 'number') {
            // Another attempt of the run goes on from partialLength characters of the answer.
            if (partialLength < answer.text.length) {
              answer.text = answer.text.slice(0, partialLength);
              process.stdout.write(dim(`\n[resumed from character ${partialLength}:]\n`) + answer.text);
            } else {
              process.stdout.write(dim(' [resumed] '));
            }
          }
          break;
        }
        case 'reasoning':
          if (!answer.reasoning && data['reasoning']) process.stdout.write(dim('(thinking) '));
          answer.reasoning = true;
          process.stdout.write(dim(typeof data['reasoning'] === 'string' ? data['reasoning'] : ''));
          if (data['isComplete']) process.stdout.write('\n');
          break;
        case 'message': {
          const content = String(data['content']);
          answer.text += content;
          process.stdout.write(content);
          break;
        }
        case 'tool_call':
        case 'action_call':
          process.stdout.write(dim(`\n[${String(data['toolName'])}: ${String(data['status'])}]\n`));
          break;
        case 'tool_approval_requested':
          if (answer.asked.has(String(data['toolCallId']))) break;
          answer.asked.add(String(data['toolCallId']));
          approve(data);
          break;
        case 'tool_approval_decided':
          process.stdout.write(
            dim(
              data['approved'] === true
                ? '[approved]\n'
                : `[denied${typeof data['reason'] === 'string' ? `: ${data['reason']}` : ''}]\n`,
            ),
          );
          break;
        case 'render_component':
          process.stdout.write(dim(`\n[component ${String(data['componentName'])}]\n`));
          break;
        case 'error':
          process.stdout.write(`\n[error: ${String(data['error'])}]`);
          break;
        case 'done':
          answer.done = true;
          if (data['status'] !== 'finished') process.stdout.write(dim(` [${String(data['status'])}]`));
          process.stdout.write('\n');
          break;
        default:
          break;
      }
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const chunk = await reader.read().catch(() => undefined);
    if (!chunk || chunk.done) break;
    parser.feed(decoder.decode(chunk.value, { stream: true }));
    if (answer.done) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});

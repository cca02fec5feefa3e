// The frames the SDK's reducer tests read (sdk/test/fixtures/frames/), recorded from the real server: each
// scenario's turn as the oracle streams it (the raw `text/event-stream`), re-joins of the finished run after
// event N (`GET /runs/:runId?after=N`), and what the session's socket received meanwhile. Ids and times are
// replaced by stable names (normalize), so a recording is the same on every run.
//
// Every run checks that the server still sends what the fixtures hold (their events, in order). To record
// them again after a change to the server's events:
//   RECORD_FRAMES=1 npx vitest run --project sdk-real test/sdk-real/recorded-frames.test.tsx
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
// jsdom's URL is the global here: Node's, for a file path.
import { fileURLToPath, URL as NodeUrl } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatModel, ModelChunk } from '../../server/oracle/models/model.js';
import { oraclePart } from '../../server/oracle/part.js';
import { newUser, oracleApi, type OracleUser } from '../helpers/oracle/oracle-client.js';
import { startOracleApp, type OracleApp } from '../helpers/oracle/oracle-app.js';
import { connectSocket } from '../helpers/oracle/socket-client.js';
import { mapModels } from '../helpers/oracle/test-plugin.js';

const FIXTURES = fileURLToPath(new NodeUrl('../../sdk/test/fixtures/frames/', import.meta.url));
const RECORD = process.env['RECORD_FRAMES'] === '1';

/** One turn to record: the user's message, what it advertises, and how the recorder takes part. */
interface Scenario {
  name: string;
  message: string;
  /** Browser tools advertised with the message; the recorder answers their calls on the socket. */
  tools?: { name: string; description: string; schema: Record<string, unknown> }[];
  /** Ask the oracle to abort once this many `message` events were read. */
  abortAfterMessages?: number;
  /** Re-join the finished run after these event ids. */
  rejoinAfter?: number[];
  /** Where the abort lands depends on timing: the check compares how the turn ends, not each event. */
  timed?: boolean;
  /** The app that answers (`failing`: a model that fails mid-answer). */
  app?: 'scripted' | 'failing';
}

const SCENARIOS: Scenario[] = [
  { name: 'plain', message: 'Hello there', rejoinAfter: [0, 2, 5] },
  { name: 'reasoning', message: 'Think step by step: which tea is best?', rejoinAfter: [3] },
  { name: 'component', message: 'show me the WeatherCard with {"city":"Nairobi"}' },
  { name: 'server-tool', message: 'use set_user_preferences with {"agentName":"Chai"}', rejoinAfter: [2] },
  {
    name: 'browser-tool',
    message: 'use get_page_title',
    rejoinAfter: [4],
    tools: [
      {
        name: 'get_page_title',
        description: 'The title of the page the user is on',
        schema: { type: 'object', properties: {}, additionalProperties: false },
      },
    ],
  },
  { name: 'long-aborted', message: 'Tell me a long story about tea', abortAfterMessages: 4, timed: true },
  { name: 'failed', message: 'Hello', app: 'failing' },
];

/** Every configured model answers "Half an " then "answer" and then throws. */
const failingModels = mapModels((model): ChatModel => ({
  id: model.id,
  // eslint-disable-next-line @typescript-eslint/require-await
  async *stream(): AsyncIterable<ModelChunk> {
    yield { type: 'text', text: 'Half an ' };
    yield { type: 'text', text: 'answer' };
    throw new Error('the upstream model hung up');
  },
}));

const ID_KEYS = ['sessionId', 'requestId', 'runId', 'toolCallId', 'eventId', 'id'];

/**
 * Replaces what differs between runs by stable names, in order of first appearance: ids (`ses_1`, `req_1`,
 * `run_1`, `call_1`…), timestamps (a fixed instant) and the heartbeat comments of the stream.
 */
function normalizer(): (text: string) => string {
  const names = new Map<string, string>();
  const counts = new Map<string, number>();
  const prefixOf: Record<string, string> = {
    sessionId: 'ses',
    requestId: 'req',
    runId: 'run',
    toolCallId: 'call',
    eventId: 'call',
    id: 'id',
  };
  return (text) => {
    let out = text.replace(/^:.*\n\n?/gm, '');
    out = out.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, '2026-01-01T00:00:00.000Z');
    for (const key of ID_KEYS) {
      out = out.replace(new RegExp(`"${key}":"([^"]+)"`, 'g'), (_whole, value: string) => {
        let name = names.get(value);
        if (name === undefined) {
          const prefix = prefixOf[key] ?? 'id';
          const n = (counts.get(prefix) ?? 0) + 1;
          counts.set(prefix, n);
          name = `${prefix}_${n}`;
          names.set(value, name);
        }
        return `"${key}":"${name}"`;
      });
    }
    return out;
  };
}

/** The events of a stream's text, as `name data` lines: what the drift check compares. */
const eventLines = (sse: string): string[] =>
  sse
    .split(/\n\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      return `${event} ${data}`;
    });

interface Recording {
  sse: string;
  rejoins: { after: number; sse: string }[];
  socket: { event: string; payload: unknown }[];
}

async function record(app: OracleApp, scenario: Scenario): Promise<Recording> {
  const user: OracleUser = await newUser(app.oracleDid);
  const api = oracleApi(app.url, user);
  const session = await api.createSession();
  const socket = await connectSocket(app.url, user, session.sessionId);
  socket.socket.on('browser_tool_call', (call: { toolCallId: string }) => {
    socket.socket.emit('tool_result', { toolCallId: call.toolCallId, result: { title: 'Tea shop' } });
  });
  const normalize = normalizer();
  let messages = 0;
  const turn = await api.stream(
    session.sessionId,
    { message: scenario.message, ...(scenario.tools ? { tools: scenario.tools } : {}) },
    (event) => {
      if (event.event === 'message' && ++messages === scenario.abortAfterMessages)
        void api.call('POST', '/messages/abort', { sessionId: session.sessionId });
    },
  );
  expect(turn.response.status).toBe(200);
  const runId = turn.response.headers.get('x-run-id');
  const sse = normalize(turn.raw);
  const rejoins: Recording['rejoins'] = [];
  for (const after of scenario.rejoinAfter ?? []) {
    const again = await api.rejoin(runId ?? '', after);
    expect(again.response.status).toBe(200);
    rejoins.push({ after, sse: normalize('raw' in again ? again.raw : '') });
  }
  socket.close();
  const socketEvents = socket.received
    .filter((r) => r.event !== 'connected')
    .map((r) => ({ event: r.event, payload: JSON.parse(normalize(JSON.stringify(r.payload))) as unknown }));
  return { sse, rejoins, socket: socketEvents };
}

describe('the frames the SDK reducer tests read, recorded from the real server', () => {
  let scripted: OracleApp;
  let failing: OracleApp;
  beforeAll(async () => {
    // A pause per word, so that an abort lands mid-answer.
    scripted = await startOracleApp({ env: { SCRIPTED_MODEL_DELAY_MS: '5' } });
    failing = await startOracleApp({ parts: { oracle: oraclePart({ models: failingModels }) } });
    if (RECORD) mkdirSync(FIXTURES, { recursive: true });
  });
  afterAll(async () => {
    await scripted.close();
    await failing.close();
  });

  it.each(SCENARIOS)('$name', async (scenario) => {
    const got = await record(scenario.app === 'failing' ? failing : scripted, scenario);
    const file = (suffix: string) => `${FIXTURES}${scenario.name}${suffix}`;
    if (RECORD) {
      writeFileSync(file('.sse'), got.sse);
      for (const r of got.rejoins) writeFileSync(file(`.after-${r.after}.sse`), r.sse);
      writeFileSync(file('.socket.json'), `${JSON.stringify(got.socket, null, 2)}\n`);
      return;
    }
    expect(existsSync(file('.sse')), `${file('.sse')} (record with RECORD_FRAMES=1)`).toBe(true);
    const recorded = eventLines(readFileSync(file('.sse'), 'utf8'));
    if (scenario.timed) {
      // The same first events and the same kind of end; how much text came before the abort varies.
      expect(eventLines(got.sse).slice(0, 2)).toEqual(recorded.slice(0, 2));
      expect(eventLines(got.sse).at(-1)?.split(',')[0]).toBe(recorded.at(-1)?.split(',')[0]);
    } else {
      expect(eventLines(got.sse)).toEqual(recorded);
    }
    for (const r of got.rejoins)
      expect(eventLines(r.sse)).toEqual(eventLines(readFileSync(file(`.after-${r.after}.sse`), 'utf8')));
    expect(got.socket).toEqual(JSON.parse(readFileSync(file('.socket.json'), 'utf8')));
  });
});

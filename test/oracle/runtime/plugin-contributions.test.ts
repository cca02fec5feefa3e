import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../server/oracle/models/model.js';
import { oraclePart } from '../../../server/oracle/part.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../../helpers/redis.js';
import { newUser, oracleApi, type OracleUser } from '../../helpers/oracle/oracle-client.js';
import { newOracleKey, startOracleApp, type OracleApp } from '../../helpers/oracle/oracle-app.js';
import { connectSocket } from '../../helpers/oracle/socket-client.js';
import { answerText, type SseEvent } from '../../helpers/oracle/sse.js';
import {
  recordingModels,
  testKitAddonPlugin,
  testKitPlugin,
  type PluginLog,
} from '../../helpers/oracle/test-plugin.js';

const log: PluginLog = [];
const modelRequests: ModelRequest[] = [];
let app: OracleApp;
let user: OracleUser;
let api: ReturnType<typeof oracleApi>;

beforeAll(async () => {
  app = await startOracleApp({
    env: { ORACLE_TOOL_TIMEOUT_MS: '1500' },
    parts: {
      oracle: oraclePart({
        extraPlugins: [testKitPlugin(log), testKitAddonPlugin(log)],
        models: recordingModels(modelRequests),
      }),
    },
  });
  user = await newUser(app.oracleDid);
  api = oracleApi(app.url, user);
});
afterAll(() => app.close());

const calls = (events: SseEvent[], event = 'tool_call') =>
  events.filter((e) => e.event === event).map((e) => e.data as Record<string, unknown>);

describe('a plugin contributes to the runtime', () => {
  it('boots dependencies first and reports each plugin in /health', async () => {
    expect(log.slice(0, 2)).toEqual(['test-kit setup', 'test-kit-addon setup']);
    const health = (await (await fetch(`${app.url}/health`)).json()) as {
      status: string;
      plugins: unknown[];
    };
    expect(health.status).toBe('ok');
    expect(health.plugins).toEqual(
      expect.arrayContaining([
        { name: 'test-kit', state: 'ready' },
        { name: 'test-kit-addon', state: 'ready' },
      ]),
    );
  });

  it('a server tool: streamed as tool_call start and end, its output folded into the AI message', async () => {
    const session = await api.createSession();
    const { events } = await api.stream(session.sessionId, {
      message: 'Please use add_numbers with a=2 b=3',
    });
    const toolCalls = calls(events);
    expect(toolCalls.map((c) => [c['toolName'], c['status']])).toEqual([
      ['add_numbers', 'isRunning'],
      ['add_numbers', 'done'],
    ]);
    expect(toolCalls[0]).toMatchObject({ args: { a: 2, b: 3 }, sessionId: session.sessionId });
    expect(toolCalls[1]).toMatchObject({ output: '5', toolCallId: toolCalls[0]?.['toolCallId'] });
    expect(answerText(events)).toContain('The tool add_numbers returned: 5');
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages[1].toolCalls).toEqual([
      {
        id: toolCalls[0]?.['toolCallId'],
        name: 'add_numbers',
        kind: 'tool',
        args: { a: 2, b: 3 },
        status: 'done',
        output: '5',
      },
    ]);
  });

  it('a tool that throws, or gets bad arguments, is a tool error for the model, never a failed request', async () => {
    const session = await api.createSession();
    const boom = await api.stream(session.sessionId, { message: 'use explode now' });
    expect(boom.response.status).toBe(200);
    expect(calls(boom.events)[1]).toMatchObject({
      toolName: 'explode',
      status: 'error',
      error: 'the explode tool blew up',
    });
    expect(boom.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(answerText(boom.events)).toContain('Error: the explode tool blew up');
    const bad = await api.stream(session.sessionId, { message: 'use add_numbers with a=two b=3' });
    expect(calls(bad.events)[1]).toMatchObject({
      status: 'error',
      error: expect.stringContaining('Invalid arguments for add_numbers: a:'),
    });
  });

  it('a sub-agent runs as a tool with its own prompt', async () => {
    const session = await api.createSession();
    const before = modelRequests.length;
    const { events } = await api.stream(session.sessionId, {
      message: 'use summarizer with task="a short note about tea"',
    });
    const done = calls(events).find((c) => c['status'] === 'done');
    expect(done).toMatchObject({ toolName: 'summarizer', args: { task: 'a short note about tea' } });
    expect(String(done?.['output'])).toContain('Hello, I am the summarizer sub-agent');
    const subAgentCall = modelRequests
      .slice(before)
      .find((r) => r.messages[0]?.content.startsWith('You are the summarizer'));
    expect(subAgentCall?.messages).toEqual([
      { role: 'system', content: 'You are the summarizer sub-agent. Answer with one short sentence.' },
      { role: 'user', content: 'a short note about tea' },
    ]);
  });

  it('a tool renders a component: render_component on the stream, kept in history', async () => {
    const session = await api.createSession();
    const { events } = await api.stream(session.sessionId, {
      message: 'use show_chart with {"values": "4,5"}',
    });
    const component = events.find((e) => e.event === 'render_component');
    expect(component?.data).toMatchObject({ componentName: 'Chart', args: { values: [4, 5] } });
    const history = await api.call('GET', `/messages/${session.sessionId}`);
    expect(history.body.messages[1].toolCalls).toContainEqual(
      expect.objectContaining({ kind: 'component', name: 'Chart', args: { values: [4, 5] } }),
    );
  });

  it('fills the runtime state before the prompt is compiled; prompt sections and capabilities come from the plugins', async () => {
    const session = await api.createSession();
    const room = (await api.call('POST', '/rooms', { name: 'Room 42' })).body as { roomId: string };
    const before = modelRequests.length;
    await api.call('POST', `/messages/${session.sessionId}`, {
      message: 'hello',
      metadata: { roomId: room.roomId },
    });
    const system = modelRequests[before]?.messages[0]?.content ?? '';
    expect(system).toContain(`## Test kit\nThe room is ${room.roomId}.`);
    expect(system).toContain('## Capabilities\n');
    expect(system).toContain('\n- Test kit: Adds numbers, fails on purpose and shows charts.');
    // on-demand plugins are not listed in the prompt, but list_capabilities finds them
    expect(system).not.toContain('Test kit add-on');
    expect(modelRequests[before]?.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'add_numbers',
        'explode',
        'show_chart',
        'count_turns',
        'summarizer',
        'list_capabilities',
      ]),
    );
    const listed = await api.stream(session.sessionId, { message: 'use list_capabilities' });
    expect(String(calls(listed.events)[1]?.['output'])).toContain('"name":"test-kit-addon"');
  });

  it('shared state: one plugin reads what another keeps', async () => {
    const session = await api.createSession();
    const { events } = await api.stream(session.sessionId, { message: 'use count_turns' });
    expect(Number(calls(events)[1]?.['output'])).toBeGreaterThan(0);
  });

  it('middleware runs after auth on authenticated routes; an HTTP module is mounted with the service auth', async () => {
    const r = await fetch(`${app.url}/sessions`, { headers: user.headers });
    expect(r.headers.get('x-test-kit')).toBe(user.did);
    expect((await fetch(`${app.url}/config`)).headers.get('x-test-kit')).toBeNull();
    const whoami = await fetch(`${app.url}/test-kit/whoami`, { headers: user.headers });
    expect(whoami.status).toBe(200);
    expect(await whoami.json()).toMatchObject({ userDid: user.did });
    const anonymous = await fetch(`${app.url}/test-kit/whoami`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 'auth_missing', statusCode: 401 });
  });
});

describe('features switch plugins off, with what depends on them', () => {
  it('test-kit off: its tools, routes and prompt section are gone, and the add-on is off with it', async () => {
    const offLog: PluginLog = [];
    const requests: ModelRequest[] = [];
    await using off = await startOracleApp({
      env: { ORACLE_FEATURES: '-test-kit' },
      parts: {
        oracle: oraclePart({
          extraPlugins: [testKitPlugin(offLog), testKitAddonPlugin(offLog)],
          models: recordingModels(requests),
        }),
      },
    });
    expect(offLog).toEqual([]);
    const health = (await (await fetch(`${off.url}/health`)).json()) as { plugins: unknown[] };
    expect(health.plugins).toEqual(
      expect.arrayContaining([
        { name: 'test-kit', state: 'disabled', reason: 'switched off by features' },
        { name: 'test-kit-addon', state: 'disabled', reason: 'switched off because test-kit is off' },
      ]),
    );
    const u = await newUser(off.oracleDid);
    expect((await fetch(`${off.url}/test-kit/whoami`, { headers: u.headers })).status).toBe(404);
    const o = oracleApi(off.url, u);
    const session = await o.createSession();
    await o.call('POST', `/messages/${session.sessionId}`, { message: 'hello' });
    expect(requests[0]?.messages[0]?.content).not.toContain('Test kit');
    const offered = requests[0]?.tools.map((t) => t.name) ?? [];
    for (const name of ['add_numbers', 'explode', 'show_chart', 'count_turns', 'summarizer']) {
      expect(offered).not.toContain(name);
    }
  });

  it('a plugin that is unhealthy reports degraded with its reason; teardown runs at close', async () => {
    const l: PluginLog = [];
    const degraded = await startOracleApp({
      parts: { oracle: oraclePart({ extraPlugins: [testKitPlugin(l, { degraded: true })] }) },
    });
    const health = (await (await fetch(`${degraded.url}/health`)).json()) as { plugins: unknown[] };
    expect(health.plugins).toContainEqual({
      name: 'test-kit',
      state: 'degraded',
      reason: 'told to be degraded',
    });
    await degraded.close();
    expect(l).toEqual(['test-kit setup', 'test-kit teardown']);
  });

  it('refuses to start with an unknown ORACLE_FEATURES name', async () => {
    await expect(startOracleApp({ env: { ORACLE_FEATURES: 'no-such-plugin' } })).rejects.toThrow(
      'features: unknown plugin "no-such-plugin"',
    );
  });
});

const READ_TITLE = {
  name: 'read_page_title',
  description: "Reads the title of the user's page.",
  schema: { type: 'object', properties: {} },
};
const CONFIRM = {
  name: 'confirm_order',
  description: 'Asks the user to confirm an order.',
  schema: { type: 'object', properties: { item: { type: 'string' } } },
  hasRender: true,
};

describe('browser tools and agent-UI actions over the socket', () => {
  it('a browser tool round trip: browser_tool_call to the tab, tool_result back to the model', async () => {
    const session = await api.createSession();
    const tab = await connectSocket(app.url, user, session.sessionId);
    tab.socket.on('browser_tool_call', (call: { toolCallId: string; toolName: string }) => {
      tab.socket.emit('tool_result', { toolCallId: call.toolCallId, result: { title: 'My Page' } });
    });
    try {
      const { events } = await api.stream(session.sessionId, {
        message: 'use read_page_title',
        tools: [READ_TITLE],
      });
      const onSse = events.find((e) => e.event === 'browser_tool_call')?.data as Record<string, unknown>;
      expect(onSse).toMatchObject({
        toolName: 'read_page_title',
        args: {},
        toolCallId: expect.stringMatching(/^call_/),
      });
      const onSocket = tab.received.find((r) => r.event === 'browser_tool_call')?.payload;
      expect(onSocket).toEqual({ ...onSse });
      expect(calls(events).at(-1)).toMatchObject({ status: 'done', output: '{"title":"My Page"}' });
      expect(answerText(events)).toContain('The tool read_page_title returned: {"title":"My Page"}');
      // tool_call events reach the socket too (raw payloads, no wrapper); the socket is another connection, so
      // its last frame may arrive after the stream's end.
      await expect
        .poll(() => tab.received.filter((r) => r.event === 'tool_call').map((r) => r.payload['status']))
        .toEqual(['isRunning', 'done']);
    } finally {
      tab.close();
    }
  });

  it('an action round trip: action_call to the tab, action_call_result back; two calls get distinct ids', async () => {
    const session = await api.createSession();
    const tab = await connectSocket(app.url, user, session.sessionId);
    tab.socket.on('action_call', (call: { toolCallId: string; args: { item?: string } }) => {
      tab.socket.emit('action_call_result', {
        toolCallId: call.toolCallId,
        sessionId: session.sessionId,
        result: { confirmed: call.args.item },
      });
    });
    try {
      const first = await api.stream(session.sessionId, {
        message: 'use confirm_order with item=tea',
        agActions: [CONFIRM],
      });
      const actions = calls(first.events, 'action_call');
      expect(actions.map((a) => a['status'])).toEqual(['isRunning', 'done']);
      expect(actions[1]).toMatchObject({ toolName: 'confirm_order', output: '{"confirmed":"tea"}' });
      const second = await api.stream(session.sessionId, {
        message: 'use confirm_order with item=milk',
        agActions: [CONFIRM],
      });
      expect(calls(second.events, 'action_call')[1]).toMatchObject({ output: '{"confirmed":"milk"}' });
      expect(calls(second.events, 'action_call')[0]?.['toolCallId']).not.toBe(actions[0]?.['toolCallId']);
      const history = await api.call('GET', `/messages/${session.sessionId}`);
      expect(history.body.messages[1].toolCalls[0]).toMatchObject({
        kind: 'action',
        name: 'confirm_order',
        status: 'done',
      });
    } finally {
      tab.close();
    }
  });

  // The two waits for the tool timeout run side by side (sessions of their own).
  it.concurrent(
    'no tab answers: the call times out into a tool error, and the turn still finishes',
    async () => {
      const session = await api.createSession();
      const started = Date.now();
      const { events } = await api.stream(session.sessionId, {
        message: 'use read_page_title',
        tools: [READ_TITLE],
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      expect(calls(events).at(-1)).toMatchObject({
        status: 'error',
        error: 'No result from the browser within 1500 ms (timed out).',
      });
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    },
  );

  it.concurrent("ignores a result sent from a socket of another session (even the same user's)", async () => {
    const session = await api.createSession();
    const other = await api.createSession();
    const tab = await connectSocket(app.url, user, session.sessionId);
    const intruder = await connectSocket(app.url, user, other.sessionId);
    // Only the session's own room gets the call; the intruder learns the id anyway and answers first.
    tab.socket.on('browser_tool_call', (call: { toolCallId: string }) => {
      intruder.socket.emit('tool_result', { toolCallId: call.toolCallId, result: 'forged' });
    });
    try {
      const { events } = await api.stream(session.sessionId, {
        message: 'use read_page_title',
        tools: [READ_TITLE],
      });
      expect(intruder.received.some((r) => r.event === 'browser_tool_call')).toBe(false);
      expect(calls(events).at(-1)).toMatchObject({
        status: 'error',
        error: expect.stringContaining('timed out'),
      });
    } finally {
      tab.close();
      intruder.close();
    }
  });
});

describe.runIf(TEST_REDIS_URL)('browser tools across two instances behind Redis', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(() => db.close());

  it('a call raised on instance A reaches a tab connected to instance B, and the result comes back', async () => {
    const signingKey = await newOracleKey();
    const env = { REDIS_URL: TEST_REDIS_URL ?? '' };
    const redisPrefix = testRedisPrefix();
    await using a = await startOracleApp({ db, signingKey, env, redisPrefix });
    await using b = await startOracleApp({ db, signingKey, env, redisPrefix });
    const u = await newUser(a.oracleDid);
    const session = await oracleApi(a.url, u).createSession();
    const tab = await connectSocket(b.url, u, session.sessionId);
    tab.socket.on('browser_tool_call', (call: { toolCallId: string }) => {
      tab.socket.emit('tool_result', { toolCallId: call.toolCallId, result: 'from B' });
    });
    tab.socket.on('action_call', (call: { toolCallId: string }) => {
      tab.socket.emit('action_call_result', {
        toolCallId: call.toolCallId,
        sessionId: session.sessionId,
        result: 'ok from B',
      });
    });
    try {
      const onA = oracleApi(a.url, u);
      const tool = await onA.stream(session.sessionId, {
        message: 'use read_page_title',
        tools: [READ_TITLE],
      });
      expect(calls(tool.events).at(-1)).toMatchObject({ status: 'done', output: 'from B' });
      const action = await onA.stream(session.sessionId, {
        message: 'use confirm_order',
        agActions: [CONFIRM],
      });
      expect(calls(action.events, 'action_call').at(-1)).toMatchObject({
        status: 'done',
        output: 'ok from B',
      });
    } finally {
      tab.close();
    }
  });
});

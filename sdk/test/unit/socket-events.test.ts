// Socket routing without a socket: which events of the session's socket the chat acts on (parseSocketEvent),
// what it does with each (routeSocketEvent, with a recording sink), and which message shows it
// (socketEventTarget). Then the socket events recorded from the real server (../fixtures/frames).
import { readFileSync } from 'node:fs';
import { fileURLToPath, URL as NodeUrl } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  parseSocketEvent,
  routeSocketEvent,
  socketEventTarget,
  type SocketEvent,
  type SocketEventSink,
} from '../../src/chat/socket-events.js';

const ref = { sessionId: 'ses_1', requestId: 'req_1' };
const toolCall = {
  ...ref,
  toolCallId: 't1',
  eventId: 't1',
  toolName: 'lookup',
  args: {},
  status: 'isRunning',
};
const browserCall = { ...ref, toolCallId: 'b1', toolName: 'get_title', args: {} };
const actionCall = { ...ref, toolCallId: 'a1', toolName: 'pick', args: { n: 1 }, status: 'isRunning' };
const component = { ...ref, eventId: 'c1', componentName: 'Card', args: {} };

describe('parseSocketEvent', () => {
  const rows: [string, string, unknown, boolean][] = [
    ['a tool call of the session', 'tool_call', toolCall, true],
    ['a browser tool call of the session', 'browser_tool_call', browserCall, true],
    ['an action call of the session', 'action_call', actionCall, true],
    ['a component of the session', 'render_component', component, true],
    ['another session’s tool call', 'tool_call', { ...toolCall, sessionId: 'ses_2' }, false],
    [
      'another session’s browser tool call',
      'browser_tool_call',
      { ...browserCall, sessionId: 'ses_2' },
      false,
    ],
    ['another session’s action', 'action_call', { ...actionCall, sessionId: 'ses_2' }, false],
    ['another session’s component', 'render_component', { ...component, sessionId: 'ses_2' }, false],
    ['a malformed browser tool call', 'browser_tool_call', { toolCallId: 'bad' }, false],
    ['a tool call with an unknown status', 'tool_call', { ...toolCall, status: 'paused' }, false],
    ['a payload that is not an object', 'tool_call', 'tool_call', false],
    [
      'the socket’s greeting',
      'connected',
      { message: 'hi', sessionId: 'ses_1', timestamp: '2026-01-01T00:00:00Z' },
      false,
    ],
    [
      'a stream-only event on the socket',
      'message',
      { content: 'x', timestamp: '2026-01-01T00:00:00Z' },
      false,
    ],
    ['an unknown event', 'tool_approval_request', { ...ref, toolCallId: 'x' }, false],
  ];
  it.each(rows)('%s', (_name, event, payload, routed) => {
    const parsed = parseSocketEvent(event, payload, 'ses_1');
    if (routed) expect(parsed).toEqual({ eventName: event, payload });
    else expect(parsed).toBeUndefined();
  });
});

/** A sink that records what routing asked for; `ran` holds the call ids already run. */
function recordingSink(ran: string[] = []) {
  const log: string[] = [];
  const sink: SocketEventSink = {
    show: (e) => void log.push(`show ${e.eventName}`),
    hasRun: (id) => ran.includes(id),
    runBrowserTool: (call) => {
      log.push(`run browser tool ${call.toolCallId}`);
      return Promise.resolve({ result: 'ok' });
    },
    runAction: (call) => {
      log.push(`run action ${call.toolCallId}`);
      return Promise.resolve({ result: 'ok', args: { n: 9 } });
    },
    settle: (id, outcome, args) =>
      void log.push(`settle ${id} ${JSON.stringify(outcome)} ${JSON.stringify(args)}`),
  };
  return { sink, log };
}

const flush = () => new Promise((r) => setTimeout(r, 0));
const ev = (eventName: string, payload: unknown) => ({ eventName, payload }) as SocketEvent;

describe('routeSocketEvent', () => {
  const rows: [string, SocketEvent, string[], string[]][] = [
    [
      'a browser tool call is shown, run, and its part settled',
      ev('browser_tool_call', browserCall),
      [],
      ['show browser_tool_call', 'run browser tool b1', 'settle b1 {"result":"ok"} undefined'],
    ],
    ['a browser tool call that already ran here: nothing', ev('browser_tool_call', browserCall), ['b1'], []],
    [
      'a running action is shown, run, and settled with the args it ran with',
      ev('action_call', actionCall),
      [],
      ['show action_call', 'run action a1', 'settle a1 {"result":"ok","args":{"n":9}} {"n":9}'],
    ],
    ['an action that already ran here: nothing', ev('action_call', actionCall), ['a1'], []],
    [
      'an action that is done: the stream shows it',
      ev('action_call', { ...actionCall, status: 'done' }),
      [],
      [],
    ],
    [
      'an action that failed: the stream shows it',
      ev('action_call', { ...actionCall, status: 'error' }),
      [],
      [],
    ],
    ['a server tool call is shown', ev('tool_call', toolCall), [], ['show tool_call']],
    [
      'a server tool call whose id ran here is still shown',
      ev('tool_call', toolCall),
      ['t1'],
      ['show tool_call'],
    ],
    ['a component is shown', ev('render_component', component), [], ['show render_component']],
  ];
  it.each(rows)('%s', async (_name, event, ran, expected) => {
    const { sink, log } = recordingSink(ran);
    routeSocketEvent(event, sink);
    await flush();
    expect(log).toEqual(expected);
  });
});

describe('socketEventTarget', () => {
  const rows: [string, string[], string | undefined, string | undefined][] = [
    ['its request’s message when on screen', ['req_1', 'req_2'], 'req_2', 'req_1'],
    ['else the turn in flight’s when on screen', ['req_2'], 'req_2', 'req_2'],
    ['neither on screen: none (the stream shows it)', ['req_9'], 'req_2', undefined],
    ['no turn in flight and its request not on screen: none', [], undefined, undefined],
    ['the turn’s answer not on screen yet: none', ['req_0'], 'req_2', undefined],
  ];
  it.each(rows)('%s', (_name, onScreen, turn, expected) => {
    expect(socketEventTarget(ev('tool_call', toolCall), (id) => onScreen.includes(id), turn)).toBe(expected);
  });
});

describe('the socket events recorded from the real server', () => {
  const FRAMES = fileURLToPath(new NodeUrl('../fixtures/frames/', import.meta.url));
  const recorded = (name: string) =>
    JSON.parse(readFileSync(`${FRAMES}${name}.socket.json`, 'utf8')) as { event: string; payload: unknown }[];

  it.each([
    [
      'browser-tool',
      ['show tool_call', 'show browser_tool_call', 'run browser tool call_1', 'show tool_call'],
    ],
    ['server-tool', ['show tool_call', 'show tool_call']],
    ['component', ['show render_component']],
    ['plain', []],
  ] as const)('%s: routed as the chat of ses_1 would', (name, expected) => {
    const { sink, log } = recordingSink();
    for (const { event, payload } of recorded(name)) {
      const parsed = parseSocketEvent(event, payload, 'ses_1');
      expect(parsed, event).toBeDefined();
      if (parsed) routeSocketEvent(parsed, sink);
    }
    expect(log.filter((l) => !l.startsWith('settle'))).toEqual(expected);
    // Another session's chat acts on none of them.
    expect(recorded(name).map((r) => parseSocketEvent(r.event, r.payload, 'ses_2'))).toEqual(
      recorded(name).map(() => undefined),
    );
  });
});

// The reducer over frames recorded from the real server (../fixtures/frames, recorded and checked by
// test/sdk-real/recorded-frames.test.tsx), each read through the real SSE parser, then the same recordings
// delivered the ways a network delivers them: split anywhere, twice, out of order, cut off, re-joined after
// event N (recorded re-joins and every kind of cut), with unknown events and without ids. No network, no store.
import { readFileSync } from 'node:fs';
import { fileURLToPath, URL as NodeUrl } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newTurnState, reduceEvent, type TurnState } from '../../src/chat/event-reducer.js';
import { readEventStream, type StreamEvent } from '../../src/chat/sse.js';
import type { IComponentMetadata, IMessage } from '../../src/types.js';
import { textOf } from '../message-text.js';

// jsdom's URL is the global here: Node's, for a file path.
const FRAMES = fileURLToPath(new NodeUrl('../fixtures/frames/', import.meta.url));
const frames = (file: string): string => readFileSync(`${FRAMES}${file}`, 'utf8');

/** A body that delivers the pieces, one network read each. */
function body(pieces: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const p of pieces) c.enqueue(enc.encode(p));
      c.close();
    },
  });
}

async function eventsOf(...pieces: string[]): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const batch of readEventStream(body(pieces))) out.push(...batch);
  return out;
}

interface Folded {
  turn: TurnState;
  message: IMessage | undefined;
  urgent: boolean[];
}

/** Folds events through the reducer as the controller does (a turn whose answer id the run event gives). */
function fold(
  events: StreamEvent[],
  start: Folded = { turn: newTurnState(), message: undefined, urgent: [] },
): Folded {
  let { turn, message } = start;
  const urgent = [...start.urgent];
  for (const ev of events) {
    const r = reduceEvent(turn, message, ev);
    turn = r.turn;
    message = r.message;
    urgent.push(r.urgent);
  }
  return { turn, message, urgent };
}

const partsOf = (m: IMessage | undefined): IComponentMetadata[] =>
  m === undefined || typeof m.content === 'string'
    ? []
    : (Array.isArray(m.content) ? m.content : [m.content]).filter(
        (p): p is IComponentMetadata => typeof p !== 'string',
      );

/** What each recorded turn reduces to: read from the recordings themselves, written out here. */
interface Expected {
  recording: string;
  text: string;
  ended: TurnState['ended'];
  lastEventId: number;
  reasoning?: string;
  runStatus?: IMessage['runStatus'];
  errorText?: string;
  parts?: { name: string; status: unknown; kind: unknown; output?: unknown }[];
}

const RECORDINGS: Expected[] = [
  {
    recording: 'plain',
    text: 'Hello, I am Guide oracle. You said: "Hello there". Ask me to write a long story, to think step by step, to show a component by its name, or to use one of your tools by its name.',
    ended: 'finished',
    lastEventId: 40,
  },
  {
    recording: 'reasoning',
    text: 'First, I read the question. Second, I consider what I know. Third, I answer: here is my reply.',
    reasoning:
      'The user asked: "Think step by step: which tea is best?". I will answer in three short steps.',
    ended: 'finished',
    lastEventId: 39,
  },
  {
    recording: 'component',
    text: 'Here is the WeatherCard component.',
    parts: [{ name: 'WeatherCard', status: 'done', kind: 'component' }],
    ended: 'finished',
    lastEventId: 8,
  },
  {
    recording: 'server-tool',
    text: 'Calling set_user_preferences.The tool set_user_preferences returned: {"agentName":"Chai","updatedAt":"2026-01-01T00:00:00.000Z"}',
    parts: [
      {
        name: 'set_user_preferences',
        status: 'done',
        kind: 'tool',
        output: '{"agentName":"Chai","updatedAt":"2026-01-01T00:00:00.000Z"}',
      },
    ],
    ended: 'finished',
    lastEventId: 11,
  },
  {
    recording: 'browser-tool',
    text: 'Calling get_page_title.The tool get_page_title returned: {"title":"Tea shop"}',
    // Announced as a tool call, then run in the browser: it stays a browser tool when the tool call ends.
    parts: [{ name: 'get_page_title', status: 'done', kind: 'browser_tool', output: '{"title":"Tea shop"}' }],
    ended: 'finished',
    lastEventId: 13,
  },
  {
    recording: 'long-aborted',
    text: 'A USSD menu fits',
    runStatus: 'aborted',
    ended: 'aborted',
    lastEventId: 6,
  },
  {
    recording: 'failed',
    text: 'Half an answer',
    runStatus: 'failed',
    errorText: 'The model failed to answer; try again.',
    ended: 'failed',
    lastEventId: 5,
  },
];

const recorded = new Map<string, { text: string; events: StreamEvent[]; whole: Folded }>();
beforeAll(async () => {
  for (const { recording } of RECORDINGS) {
    const text = frames(`${recording}.sse`);
    const events = await eventsOf(text);
    recorded.set(recording, { text, events, whole: fold(events) });
  }
});
const get = (recording: string) => {
  const r = recorded.get(recording);
  if (!r) throw new Error(`no recording ${recording}`);
  return r;
};

// Unknown and malformed events are warned about once per kind by the parser, for the whole module graph (the
// files of a worker share it, and the SSE reader's tests count those warnings): the ones here use kinds of
// their own (tool_approval_request; reasoning's malformed data). Keep the test output quiet.
const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
afterAll(() => warn.mockRestore());

describe('each recorded turn reduces to its answer', () => {
  it.each(RECORDINGS)('$recording', (expected) => {
    const { whole } = get(expected.recording);
    const m = whole.message;
    expect(textOf(m)).toBe(expected.text);
    expect(m).toMatchObject({ id: 'req_1', type: 'ai', isComplete: true, isReasoning: false });
    expect(m?.runStatus).toBe(expected.runStatus);
    expect(m?.reasoning).toBe(expected.reasoning);
    expect(
      partsOf(m).map((p) => ({
        name: p.name,
        status: p.props.status,
        kind: p.props.kind,
        ...(p.props.output !== undefined ? { output: p.props.output } : {}),
      })),
    ).toEqual(expected.parts ?? []);
    expect(whole.turn).toMatchObject({
      runId: 'run_1',
      requestId: 'req_1',
      ended: expected.ended,
      lastEventId: expected.lastEventId,
      resumed: false,
      errorText: expected.errorText,
    });
    // Parts and the end are published at once; text waits for the next frame.
    const { events } = get(expected.recording);
    events.forEach((ev, i) => {
      const name = ev.event.eventName;
      const urgent =
        name === 'done' ||
        name === 'tool_call' ||
        name === 'browser_tool_call' ||
        name === 'render_component';
      expect(whole.urgent[i], `${name} #${i}`).toBe(urgent);
    });
  });
});

const names = RECORDINGS.map((r) => r.recording);

describe('delivered as a network delivers it, the same answer', () => {
  it.each(names)('%s: frames split across two reads anywhere', async (recording) => {
    const { text, whole } = get(recording);
    for (let cut = 1; cut < text.length; cut += 11) {
      expect(fold(await eventsOf(text.slice(0, cut), text.slice(cut))).message).toEqual(whole.message);
    }
  });

  it.each(names)('%s: one byte per read', async (recording) => {
    const { text, whole } = get(recording);
    expect(fold(await eventsOf(...text.split(''))).message).toEqual(whole.message);
  });

  it.each(names)('%s: CRLF line ends', async (recording) => {
    const { text, whole } = get(recording);
    expect(fold(await eventsOf(text.replace(/\n/g, '\r\n'))).message).toEqual(whole.message);
  });

  it.each(names)('%s: heartbeat comments between events', async (recording) => {
    const { text, whole } = get(recording);
    const withComments = text.replace(/\n\n/g, '\n\n: ping\n\n');
    expect(fold(await eventsOf(withComments)).message).toEqual(whole.message);
  });

  it.each(names)('%s: every event delivered twice (duplicates change nothing)', (recording) => {
    const { events, whole } = get(recording);
    const twice = fold(events.flatMap((e) => [e, e]));
    expect(twice.message).toEqual(whole.message);
    expect(twice.turn).toEqual(whole.turn);
  });

  it.each(names)('%s: the whole stream replayed after it ends (a late re-join from 0)', (recording) => {
    const { events, whole } = get(recording);
    const again = fold(events, fold(events));
    expect(again.message).toEqual(whole.message);
    expect(again.urgent.slice(events.length).every((u) => !u)).toBe(true);
  });

  it.each(names)('%s: unknown events between them are skipped', async (recording) => {
    const { text, whole } = get(recording);
    const unknown = 'event: tool_approval_request\nid: 999999\ndata: {"toolCallId":"x"}\n\n';
    const mixed = text
      .split(/(?<=\n\n)/)
      .flatMap((block) => [unknown, block])
      .join('');
    expect(fold(await eventsOf(mixed)).message).toEqual(whole.message);
  });

  it.each(names)('%s: events without ids are all applied; lastEventId stays 0', async (recording) => {
    const { text, whole } = get(recording);
    const folded = fold(await eventsOf(text.replace(/^id: .*\n/gm, '')));
    expect(folded.message).toEqual(whole.message);
    expect(folded.turn.lastEventId).toBe(0);
  });

  it.each(names)('%s: inputs are never changed (every event and message frozen)', (recording) => {
    const { events, whole } = get(recording);
    const freeze = <T>(v: T): T => {
      if (v && typeof v === 'object') {
        Object.freeze(v);
        for (const x of Object.values(v)) freeze(x);
      }
      return v;
    };
    let turn = freeze(newTurnState());
    let message: IMessage | undefined;
    for (const ev of events.map((e) => freeze(structuredClone(e)))) {
      const r = reduceEvent(turn, message, ev);
      turn = freeze(r.turn);
      message = freeze(r.message);
    }
    expect(message).toEqual(whole.message);
  });

  it.each(names)('%s: cut off before done, the answer so far is not complete', (recording) => {
    const { events, whole } = get(recording);
    const cut = fold(events.slice(0, -1));
    expect(cut.turn.ended).toBeUndefined();
    expect(cut.message?.isComplete).toBeUndefined();
    // Before `done`, the text is the streamed text (an abort's partialText replaces it only at `done`).
    if (whole.turn.ended === 'finished') expect(textOf(cut.message)).toBe(textOf(whole.message));
  });
});

describe('an event after a later one (out of order) is a replay and is dropped', () => {
  it.each(names)('%s: each second event swapped with the first of its pair', (recording) => {
    const { events } = get(recording);
    const swapped = events.slice();
    for (let i = 1; i + 1 < swapped.length; i += 2) {
      const a = swapped[i] as StreamEvent;
      swapped[i] = swapped[i + 1] as StreamEvent;
      swapped[i + 1] = a;
    }
    // What applies is what comes in increasing id order; the rest is dropped.
    let last = 0;
    const kept = swapped.filter((e) => {
      if (e.id === undefined || e.id > last) {
        last = e.id ?? last;
        return true;
      }
      return false;
    });
    expect(kept.length).toBeLessThan(swapped.length);
    const got = fold(swapped);
    const want = fold(kept);
    expect(got.message).toEqual(want.message);
    expect(got.turn).toEqual(want.turn);
  });
});

describe('re-joined after event N, the same answer with no repeated text', () => {
  const rejoins = [
    ['plain', 0],
    ['plain', 2],
    ['plain', 5],
    ['reasoning', 3],
    ['server-tool', 2],
    ['browser-tool', 4],
  ] as const;

  it.each(rejoins)(
    '%s after %i: the recorded re-join continues the first N events',
    async (recording, after) => {
      const { events, whole } = get(recording);
      const rejoined = await eventsOf(frames(`${recording}.after-${after}.sse`));
      // The server replays the run's log from its start: what the client had is skipped by id.
      const folded = fold(rejoined, fold(events.filter((e) => (e.id ?? 0) <= after)));
      expect(folded.message).toEqual(whole.message);
      expect(folded.turn).toEqual(whole.turn);
    },
  );

  const cuts = RECORDINGS.flatMap(({ recording, lastEventId }) =>
    [1, Math.floor(lastEventId / 2), lastEventId - 1].map((n) => [recording, n] as const),
  );
  it.each(cuts)('%s after %i: the events after N continue the first N', (recording, n) => {
    const { events, whole } = get(recording);
    const first = fold(events.filter((e) => (e.id ?? 0) <= n));
    expect(
      fold(
        events.filter((e) => (e.id ?? 0) > n),
        first,
      ).message,
    ).toEqual(whole.message);
  });
});

describe('hand-made frames: the edges recordings do not show', () => {
  const ts = '2026-01-01T00:00:00.000Z';
  const sse = (id: number | undefined, event: string, data: unknown): string =>
    `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  const run = sse(1, 'run', { runId: 'run_1', requestId: 'req_1', sessionId: 'ses_1' });
  const text = (id: number, content: string) => sse(id, 'message', { content, timestamp: ts });
  const ref = { sessionId: 'ses_1', requestId: 'req_1' };
  const call = { ...ref, toolCallId: 't1', eventId: 't1', toolName: 'lookup', args: { q: 'tea' } };

  interface Edge {
    name: string;
    frames: string[];
    text?: string;
    ended?: TurnState['ended'];
    runStatus?: IMessage['runStatus'];
    parts?: Record<string, unknown>[];
    turn?: Partial<TurnState>;
    message?: Partial<IMessage>;
    noMessage?: boolean;
  }
  const edges: Edge[] = [
    {
      name: 'a reference done {} is finished',
      frames: [run, text(2, 'Hi'), sse(3, 'done', {})],
      text: 'Hi',
      ended: 'finished',
    },
    {
      name: 'a reference done {aborted: true, partialText} is aborted with its text',
      frames: [run, text(2, 'Hi th'), sse(3, 'done', { aborted: true, partialText: 'Hi there' })],
      text: 'Hi there',
      ended: 'aborted',
      runStatus: 'aborted',
    },
    {
      name: 'a reference done {interrupted: true} is interrupted, the text kept',
      frames: [run, text(2, 'Hi'), sse(3, 'done', { interrupted: true })],
      text: 'Hi',
      ended: 'interrupted',
      runStatus: 'interrupted',
    },
    {
      name: 'a reference done {failed: true} wins over aborted',
      frames: [run, sse(2, 'done', { failed: true, aborted: true })],
      ended: 'failed',
      runStatus: 'failed',
    },
    {
      name: 'a reference tool_call: its id in eventId, the real name in args.toolName, done by its output',
      frames: [
        run,
        sse(2, 'tool_call', {
          ...ref,
          eventId: 'e1',
          toolName: 'toolCall',
          args: { toolName: 'lookup', q: 1 },
        }),
        sse(3, 'tool_call', {
          ...ref,
          eventId: 'e1',
          toolName: 'toolCall',
          args: { toolName: 'lookup' },
          output: '42',
        }),
      ],
      parts: [{ name: 'lookup', id: 'e1', status: 'done', output: '42', args: { q: 1 } }],
    },
    {
      name: 'a tool call that fails keeps its error and no output',
      frames: [
        run,
        sse(2, 'tool_call', { ...call, status: 'isRunning' }),
        sse(3, 'tool_call', { ...call, status: 'error', error: 'timeout' }),
      ],
      parts: [{ name: 'lookup', status: 'error', error: 'timeout' }],
    },
    {
      name: 'a replayed start after the end never sends a call back to running',
      frames: [
        run,
        sse(2, 'tool_call', { ...call, status: 'done', output: '1' }),
        sse(3, 'tool_call', { ...call, status: 'isRunning' }),
      ],
      parts: [{ name: 'lookup', status: 'done', output: '1' }],
    },
    {
      name: 'an action announced without args gets them later (argsComplete)',
      frames: [
        run,
        sse(2, 'action_call', { ...ref, toolCallId: 'a1', toolName: 'pick', status: 'isRunning' }),
        sse(3, 'action_call', {
          ...ref,
          toolCallId: 'a1',
          toolName: 'pick',
          args: { n: 2 },
          status: 'isRunning',
        }),
      ],
      parts: [{ name: 'pick', args: { n: 2 }, argsComplete: true, status: 'isRunning', kind: 'action' }],
    },
    {
      name: 'a component without a status is done',
      frames: [run, sse(2, 'render_component', { ...ref, eventId: 'c1', componentName: 'Card', args: {} })],
      parts: [{ name: 'Card', status: 'done', kind: 'component' }],
    },
    {
      name: 'two calls keep the order they started in, after the text',
      frames: [
        run,
        text(2, 'A'),
        sse(3, 'tool_call', { ...call, toolCallId: 'x', eventId: 'x', status: 'isRunning' }),
        sse(4, 'tool_call', { ...call, toolCallId: 'y', eventId: 'y', status: 'isRunning' }),
        sse(5, 'tool_call', { ...call, toolCallId: 'x', eventId: 'x', status: 'done' }),
        text(6, 'B'),
      ],
      text: 'AB',
      parts: [
        { id: 'x', status: 'done' },
        { id: 'y', status: 'isRunning' },
      ],
    },
    {
      name: 'a resumed run (the runtime restarted) cuts the text back and appends what follows',
      frames: [
        run,
        text(2, 'Hello wor'),
        sse(1000001, 'run', { runId: 'run_1', requestId: 'req_1', resumed: true, partialLength: 6 }),
        text(1000002, 'world!'),
      ],
      text: 'Hello world!',
      turn: { resumed: true, lastEventId: 1000002 },
    },
    {
      name: 'reasoning complete before the answer: not reasoning any more',
      frames: [run, sse(2, 'reasoning', { ...ref, reasoning: 'Hmm.', isComplete: true }), text(3, 'Yes.')],
      text: 'Yes.',
      message: { reasoning: 'Hmm.', isReasoning: false },
    },
    {
      name: 'an error without done leaves the turn open with its text',
      frames: [run, text(2, 'Par'), sse(3, 'error', { error: 'Boom', timestamp: ts })],
      text: 'Par',
      turn: { errorText: 'Boom', ended: undefined },
    },
    {
      name: 'done failed without an error event: no error text',
      frames: [run, sse(2, 'done', { status: 'failed' })],
      ended: 'failed',
      runStatus: 'failed',
      turn: { errorText: undefined },
    },
    {
      name: 'an event whose data is not JSON is skipped',
      frames: [run, sse(2, 'reasoning', '{not json'), text(3, 'ok')],
      text: 'ok',
    },
    {
      name: 'an event that does not match its schema is skipped',
      frames: [run, sse(2, 'reasoning', { text: 'wrong field' }), text(3, 'ok')],
      text: 'ok',
    },
    {
      name: 'a non-numeric id is no id: the event is applied, lastEventId unchanged',
      frames: [
        run,
        'id: abc\nevent: message\ndata: {"content":"x","timestamp":"2026-01-01T00:00:00.000Z"}\n\n',
      ],
      text: 'x',
      turn: { lastEventId: 1 },
    },
    {
      name: 'multi-line data is joined by newlines (one JSON value)',
      frames: [run, `id: 2\nevent: message\ndata: {"content":"a",\ndata: "timestamp":"${ts}"}\n\n`],
      text: 'a',
    },
    {
      name: 'text before the run event has no message to go to',
      frames: [text(1, 'lost'), sse(2, 'run', { runId: 'run_1', requestId: 'req_1' }), text(3, 'kept')],
      text: 'kept',
    },
    {
      name: 'a socket-only connected event on the stream changes nothing',
      frames: [run, sse(2, 'connected', { message: 'hi', sessionId: 'ses_1', timestamp: ts }), text(3, 'x')],
      text: 'x',
    },
    {
      name: 'done before anything: the turn ends with no message',
      frames: [sse(1, 'done', { status: 'finished' })],
      ended: 'finished',
      noMessage: true,
    },
  ];

  it.each(edges)('$name', async (edge) => {
    const { turn, message } = fold(await eventsOf(edge.frames.join('')));
    if (edge.noMessage) {
      expect(message).toBeUndefined();
    } else {
      expect(message).toMatchObject({ id: 'req_1', type: 'ai' });
      expect(textOf(message)).toBe(edge.text ?? '');
      expect(message?.runStatus).toBe(edge.runStatus);
      const parts = partsOf(message).map((p) => ({ name: p.name, ...p.props }));
      expect(parts).toHaveLength(edge.parts?.length ?? 0);
      edge.parts?.forEach((p, i) => expect(parts[i]).toMatchObject(p));
      if (edge.message) expect(message).toMatchObject(edge.message);
    }
    expect(turn.ended).toBe(edge.ended);
    if (edge.turn) expect(turn).toMatchObject(edge.turn);
  });
});

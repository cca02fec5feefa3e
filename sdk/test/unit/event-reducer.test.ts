// The stream-to-message reducer, driven by recorded frames: no network, no store, no timers.
import { describe, expect, it } from 'vitest';
import { newTurnState, reduceEvent, type TurnState } from '../../src/chat/event-reducer.js';
import { readEventStream, type StreamEvent } from '../../src/chat/sse.js';
import type { IMessage } from '../../src/types.js';
import { textOf } from '../message-text.js';

const ts = '2026-11-23T10:00:00.000Z';
const frame = (id: number, event: string, data: unknown): string =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A body that delivers `text` in the given pieces, one network read each. */
function body(pieces: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const p of pieces) c.enqueue(enc.encode(p));
      c.close();
    },
  });
}

async function eventsOf(pieces: string[]): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const batch of readEventStream(body(pieces))) out.push(...batch);
  return out;
}

/** Folds events through the reducer, as the controller does. */
function fold(events: StreamEvent[], turn = newTurnState({ requestId: 'req_1' }), message?: IMessage) {
  let t: TurnState = turn;
  let m = message;
  const urgent: boolean[] = [];
  for (const ev of events) {
    const r = reduceEvent(t, m, ev);
    t = r.turn;
    m = r.message;
    urgent.push(r.urgent);
  }
  return { turn: t, message: m, urgent };
}

describe('the event reducer', () => {
  it('gives the same message when frames are split anywhere across reads', async () => {
    const text = [
      frame(1, 'run', { runId: 'run_1', requestId: 'req_1' }),
      frame(2, 'message', { content: 'Hello ', timestamp: ts }),
      frame(3, 'message', { content: 'world', timestamp: ts }),
      frame(4, 'done', { status: 'finished' }),
    ].join('');
    const whole = fold(await eventsOf([text]));
    for (let cut = 1; cut < text.length; cut += 7) {
      const split = fold(await eventsOf([text.slice(0, cut), text.slice(cut)]));
      expect(split.message).toEqual(whole.message);
    }
    expect(textOf(whole.message)).toBe('Hello world');
    expect(whole.message?.isComplete).toBe(true);
    expect(whole.turn).toMatchObject({ runId: 'run_1', lastEventId: 4, ended: 'finished' });
  });

  it('skips replayed events (id at or below the last applied), so a re-join never repeats text', async () => {
    const first = await eventsOf([
      frame(1, 'run', { runId: 'r', requestId: 'req_1' }),
      frame(2, 'message', { content: 'one ', timestamp: ts }),
    ]);
    const replay = await eventsOf([
      frame(2, 'message', { content: 'one ', timestamp: ts }),
      frame(3, 'message', { content: 'two', timestamp: ts }),
    ]);
    const { message, turn } = fold([...first, ...replay]);
    expect(textOf(message)).toBe('one two');
    expect(turn.lastEventId).toBe(3);
  });

  it('a resumed run cuts the text back to partialLength and appends what follows', async () => {
    const { message, turn } = fold(
      await eventsOf([
        frame(1, 'run', { runId: 'r', requestId: 'req_1' }),
        frame(2, 'message', { content: 'Hello wor', timestamp: ts }),
        frame(1000001, 'run', { runId: 'r', requestId: 'req_1', resumed: true, partialLength: 6 }),
        frame(1000002, 'message', { content: 'world!', timestamp: ts }),
      ]),
    );
    expect(textOf(message)).toBe('Hello world!');
    expect(turn.resumed).toBe(true);
  });

  it('aborted and interrupted ends replace the text with partialText and say how the run ended', async () => {
    for (const status of ['aborted', 'interrupted'] as const) {
      const { message, turn, urgent } = fold(
        await eventsOf([
          frame(1, 'message', { content: 'Half an ans', timestamp: ts }),
          frame(2, 'done', { status, partialText: 'Half an answer' }),
        ]),
      );
      expect(textOf(message)).toBe('Half an answer');
      expect(message).toMatchObject({ runStatus: status, isComplete: true, isReasoning: false });
      expect(turn.ended).toBe(status);
      expect(urgent.at(-1)).toBe(true);
    }
  });

  it('a failed end keeps the error event’s text for the send error', async () => {
    const { turn } = fold(
      await eventsOf([
        frame(1, 'error', { error: 'The model is unavailable', timestamp: ts }),
        frame(2, 'done', { status: 'failed', partialText: '' }),
      ]),
    );
    expect(turn).toMatchObject({ ended: 'failed', errorText: 'The model is unavailable' });
  });

  it('tool calls and components become parts after the text, updated in place, never back to running', async () => {
    const call = {
      sessionId: 's',
      requestId: 'req_1',
      toolCallId: 't1',
      eventId: 't1',
      toolName: 'get_weather',
      args: { city: 'X' },
    };
    const { message, urgent } = fold(
      await eventsOf([
        frame(1, 'message', { content: 'Looking. ', timestamp: ts }),
        frame(2, 'tool_call', { ...call, status: 'isRunning' }),
        frame(3, 'render_component', {
          sessionId: 's',
          requestId: 'req_1',
          eventId: 'c1',
          componentName: 'Card',
          args: { a: 1 },
        }),
        frame(4, 'message', { content: 'Done.', timestamp: ts }),
        frame(5, 'tool_call', { ...call, status: 'done', output: '{"t":24}' }),
        frame(6, 'tool_call', { ...call, status: 'isRunning' }),
      ]),
    );
    expect(message?.content).toEqual([
      'Looking. Done.',
      {
        name: 'get_weather',
        props: expect.objectContaining({ id: 't1', status: 'done', output: '{"t":24}', kind: 'tool' }),
      },
      { name: 'Card', props: { id: 'c1', args: { a: 1 }, status: 'done', kind: 'component' } },
    ]);
    expect(urgent).toEqual([false, true, true, false, true, true]);
  });

  it('keeps reasoning apart from the answer', async () => {
    const { message } = fold(
      await eventsOf([
        frame(1, 'reasoning', { sessionId: 's', requestId: 'req_1', reasoning: 'Think ', isComplete: false }),
        frame(2, 'reasoning', { sessionId: 's', requestId: 'req_1', reasoning: 'hard.', isComplete: false }),
        frame(3, 'message', { content: 'Answer.', timestamp: ts }),
      ]),
    );
    expect(message).toMatchObject({ reasoning: 'Think hard.', isReasoning: true, content: 'Answer.' });
  });

  it('takes the message id from the run event when the turn had none (a picked-up run)', async () => {
    const { message } = fold(
      await eventsOf([
        frame(1, 'run', { runId: 'r', requestId: 'req_7' }),
        frame(2, 'message', { content: 'hi', timestamp: ts }),
      ]),
      newTurnState(),
    );
    expect(message).toMatchObject({ id: 'req_7', type: 'ai', content: 'hi' });
  });

  it('never changes its inputs', async () => {
    const turn = newTurnState({ requestId: 'req_1' });
    const message: IMessage = { id: 'req_1', type: 'ai', content: 'a' };
    const frozenTurn = structuredClone(turn);
    const frozenMessage = structuredClone(message);
    fold(await eventsOf([frame(1, 'message', { content: 'b', timestamp: ts })]), turn, message);
    expect(turn).toEqual(frozenTurn);
    expect(message).toEqual(frozenMessage);
  });
});

describe('tool calls that wait for approval', () => {
  const ref = { sessionId: 's', requestId: 'req_1' };
  const requested = {
    ...ref,
    toolCallId: 'call_1',
    toolName: 'remember_fact',
    args: { content: 'tea' },
    expiresAt: ts,
  };
  const decided = (approved: boolean) => ({
    ...ref,
    toolCallId: 'call_1',
    approved,
    decidedBy: approved ? 'did:key:z6Mkuser' : 'system',
    decidedAt: ts,
    ...(approved ? {} : { reason: 'timeout' }),
  });
  const call = (status: string, extra: Record<string, unknown> = {}) => ({
    ...ref,
    toolCallId: 'call_1',
    eventId: 'call_1',
    toolName: 'remember_fact',
    args: { content: 'tea' },
    status,
    ...extra,
  });
  const partOf = (m: IMessage | undefined) =>
    (Array.isArray(m?.content) ? m.content : []).find((p) => typeof p !== 'string');

  it.each([
    ['requested only', [frame(2, 'tool_approval_requested', requested)], 'awaiting_approval'],
    [
      'approved, then run',
      [
        frame(2, 'tool_approval_requested', requested),
        frame(3, 'tool_approval_decided', decided(true)),
        frame(4, 'tool_call', call('isRunning')),
        frame(5, 'tool_call', call('done', { output: 'ok' })),
      ],
      'done',
    ],
    [
      'denied',
      [
        frame(2, 'tool_approval_requested', requested),
        frame(3, 'tool_approval_decided', decided(false)),
        frame(4, 'tool_call', call('denied', { error: 'The user declined to run remember_fact.' })),
      ],
      'denied',
    ],
    [
      'denied, then a late replayed request keeps it denied',
      [
        frame(2, 'tool_approval_requested', requested),
        frame(3, 'tool_call', call('denied', { error: 'no' })),
        frame(4, 'tool_call', call('isRunning')),
      ],
      'denied',
    ],
  ])('%s: the call is one part, its status %s', async (_name, frames, status) => {
    const { message } = fold(
      await eventsOf([frame(1, 'run', { runId: 'r', requestId: 'req_1' }), ...frames]),
    );
    const parts = (Array.isArray(message?.content) ? message.content : []).filter(
      (p) => typeof p !== 'string',
    );
    expect(parts).toHaveLength(1);
    expect(partOf(message)).toMatchObject({
      name: 'remember_fact',
      props: { id: 'call_1', status, args: { content: 'tea' } },
    });
  });
});

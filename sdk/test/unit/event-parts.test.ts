// The reducer's event by event rules and the part helpers (partOf, mergePart, settlePart, applyPart), driven
// with typed events directly: each rule's exact output, including what it must leave out.
import { describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../../contracts/events.js';
import {
  applyPart,
  mergePart,
  newTurnState,
  partOf,
  reduceEvent,
  settlePart,
} from '../../src/chat/event-reducer.js';
import type { IComponentMetadata, IMessage } from '../../src/types.js';

const ts = '2026-11-28T10:00:00.000Z';
const ref = { sessionId: 's1', requestId: 'r1' };
const msg = (content: IMessage['content'] = ''): IMessage => ({ id: 'r1', type: 'ai', content });
const at = (id: number | undefined, event: AnyEvent) => ({ id, event });

describe('reduceEvent, event by event', () => {
  it('an event without an id is applied and leaves lastEventId as it was', () => {
    const turn = newTurnState({ requestId: 'r1', lastEventId: 7 });
    const r = reduceEvent(
      turn,
      msg('a'),
      at(undefined, { eventName: 'message', payload: { content: 'b', timestamp: ts } }),
    );
    expect(r.message?.content).toBe('ab');
    expect(r.turn.lastEventId).toBe(7);
    expect(r.urgent).toBe(false);
  });

  it('a replay (id at or below the last) returns the very same turn and message, not urgent', () => {
    const turn = newTurnState({ requestId: 'r1', lastEventId: 5 });
    const m = msg('a');
    const r = reduceEvent(turn, m, at(5, { eventName: 'done', payload: { status: 'finished' } }));
    expect(r.turn).toBe(turn);
    expect(r.message).toBe(m);
    expect(r.urgent).toBe(false);
  });

  it('run: names the run; resumed without a message marks the turn only', () => {
    const r = reduceEvent(
      newTurnState(),
      undefined,
      at(1, { eventName: 'run', payload: { runId: 'u1', requestId: 'r9', resumed: true, partialLength: 3 } }),
    );
    expect(r.turn).toMatchObject({ runId: 'u1', requestId: 'r9', resumed: true, lastEventId: 1 });
    expect(r.message).toEqual({ id: 'r9', type: 'ai', content: '' });
    expect(r.urgent).toBe(false);
  });

  it('run resumed with no partialLength cuts the text to nothing', () => {
    const r = reduceEvent(
      newTurnState({ requestId: 'r1' }),
      msg('Hello'),
      at(2, { eventName: 'run', payload: { runId: 'u1', requestId: 'r1', resumed: true } }),
    );
    expect(r.message?.content).toBe('');
  });

  it('run not resumed keeps the text and the turn not resumed', () => {
    const r = reduceEvent(
      newTurnState({ requestId: 'r1' }),
      msg('Hello'),
      at(2, { eventName: 'run', payload: { runId: 'u1', requestId: 'r1', partialLength: 1 } }),
    );
    expect(r.message?.content).toBe('Hello');
    expect(r.turn.resumed).toBe(false);
  });

  it('message with no turn id yet and no message: nothing to show', () => {
    const r = reduceEvent(
      newTurnState(),
      undefined,
      at(1, { eventName: 'message', payload: { content: 'x', timestamp: ts } }),
    );
    expect(r.message).toBeUndefined();
  });

  it('reasoning: appended apart from the text; isReasoning until the complete one', () => {
    const turn = newTurnState({ requestId: 'r1' });
    const a = reduceEvent(
      turn,
      msg('T'),
      at(1, { eventName: 'reasoning', payload: { ...ref, reasoning: 'thin', isComplete: false } }),
    );
    expect(a.message).toEqual({ id: 'r1', type: 'ai', content: 'T', reasoning: 'thin', isReasoning: true });
    expect(a.urgent).toBe(false);
    const b = reduceEvent(
      a.turn,
      a.message,
      at(2, { eventName: 'reasoning', payload: { ...ref, reasoning: 'king', isComplete: true } }),
    );
    expect(b.message).toMatchObject({ reasoning: 'thinking', isReasoning: false });
  });

  it('a part event is urgent; with no message id yet it shows nothing', () => {
    const ev: AnyEvent = {
      eventName: 'browser_tool_call',
      payload: { ...ref, toolCallId: 'b1', toolName: 'geo', args: {} },
    };
    expect(reduceEvent(newTurnState({ requestId: 'r1' }), msg(), at(1, ev)).urgent).toBe(true);
    expect(reduceEvent(newTurnState(), undefined, at(1, ev)).message).toBeUndefined();
  });

  it('an action_call is a part too (urgent, upserted by its id)', () => {
    const r = reduceEvent(
      newTurnState({ requestId: 'r1' }),
      msg('T'),
      at(2, {
        eventName: 'action_call',
        payload: { ...ref, toolCallId: 'a1', toolName: 'theme', args: { t: 'dark' }, status: 'isRunning' },
      }),
    );
    expect(r.urgent).toBe(true);
    expect(r.message?.content).toEqual([
      'T',
      {
        name: 'theme',
        props: {
          id: 'a1',
          toolName: 'theme',
          args: { t: 'dark' },
          argsComplete: true,
          status: 'isRunning',
          kind: 'action',
          isAgAction: true,
        },
      },
    ]);
  });

  it('error keeps its text on the turn and changes nothing else', () => {
    const m = msg('x');
    const r = reduceEvent(
      newTurnState({ requestId: 'r1' }),
      m,
      at(3, { eventName: 'error', payload: { error: 'boom', code: 'turn_failed', timestamp: ts } }),
    );
    expect(r.turn.errorText).toBe('boom');
    expect(r.message).toBe(m);
    expect(r.urgent).toBe(false);
  });

  it('done finished: complete, not reasoning, no runStatus, text kept', () => {
    const r = reduceEvent(
      newTurnState({ requestId: 'r1' }),
      { ...msg('All'), isReasoning: true },
      at(4, { eventName: 'done', payload: { status: 'finished', partialText: 'ignored' } }),
    );
    expect(r.message).toEqual({ id: 'r1', type: 'ai', content: 'All', isComplete: true, isReasoning: false });
    expect(r.turn.ended).toBe('finished');
    expect(r.urgent).toBe(true);
  });

  it('done not finished without partialText keeps the text and says how it ended', () => {
    const r = reduceEvent(
      newTurnState({ requestId: 'r1' }),
      msg('Half'),
      at(4, { eventName: 'done', payload: { status: 'interrupted' } }),
    );
    expect(r.message).toMatchObject({ content: 'Half', runStatus: 'interrupted', isComplete: true });
  });

  it('done with no message: the turn ends, urgent, nothing to show', () => {
    const r = reduceEvent(
      newTurnState(),
      undefined,
      at(4, { eventName: 'done', payload: { status: 'aborted', partialText: 'x' } }),
    );
    expect(r).toEqual({
      turn: expect.objectContaining({ ended: 'aborted', lastEventId: 4 }),
      message: undefined,
      urgent: true,
    });
  });

  it('connected changes nothing and is not urgent', () => {
    const turn = newTurnState({ requestId: 'r1' });
    const m = msg('x');
    const r = reduceEvent(
      turn,
      m,
      at(undefined, { eventName: 'connected', payload: { message: 'hi', sessionId: 's1', timestamp: ts } }),
    );
    expect(r.turn).toBe(turn);
    expect(r.message).toBe(m);
    expect(r.urgent).toBe(false);
  });
});

describe('partOf', () => {
  it('tool_call: a tool part with its ids; output and error only when given', () => {
    expect(
      partOf({
        eventName: 'tool_call',
        payload: {
          ...ref,
          toolCallId: 't1',
          eventId: 'e1',
          toolName: 'add',
          args: { a: 1 },
          status: 'isRunning',
        },
      }),
    ).toStrictEqual({
      name: 'add',
      props: {
        id: 't1',
        toolName: 'add',
        args: { a: 1 },
        status: 'isRunning',
        kind: 'tool',
        isToolCall: true,
        requestId: 'r1',
        sessionId: 's1',
      },
    });
    const done = partOf({
      eventName: 'tool_call',
      payload: {
        ...ref,
        toolCallId: 't1',
        eventId: 'e1',
        toolName: 'add',
        args: {},
        status: 'error',
        output: 'o',
        error: 'bad',
      },
    });
    expect(done?.props).toMatchObject({ output: 'o', error: 'bad', status: 'error' });
  });

  it('action_call: an action part; argsComplete says whether args came; output and error only when given', () => {
    expect(
      partOf({
        eventName: 'action_call',
        payload: { ...ref, toolCallId: 'a1', toolName: 'theme', status: 'isRunning' },
      }),
    ).toStrictEqual({
      name: 'theme',
      props: {
        id: 'a1',
        toolName: 'theme',
        args: {},
        argsComplete: false,
        status: 'isRunning',
        kind: 'action',
        isAgAction: true,
      },
    });
    expect(
      partOf({
        eventName: 'action_call',
        payload: {
          ...ref,
          toolCallId: 'a1',
          toolName: 'theme',
          args: { t: 'dark' },
          status: 'done',
          output: 'ok',
        },
      }),
    ).toStrictEqual({
      name: 'theme',
      props: {
        id: 'a1',
        toolName: 'theme',
        args: { t: 'dark' },
        argsComplete: true,
        status: 'done',
        kind: 'action',
        isAgAction: true,
        output: 'ok',
      },
    });
    expect(
      partOf({
        eventName: 'action_call',
        payload: { ...ref, toolCallId: 'a1', toolName: 'theme', args: {}, status: 'error', error: 'no' },
      })?.props,
    ).toStrictEqual({
      id: 'a1',
      toolName: 'theme',
      args: {},
      argsComplete: true,
      status: 'error',
      kind: 'action',
      isAgAction: true,
      error: 'no',
    });
  });

  it('render_component: a component part, done unless told otherwise', () => {
    expect(
      partOf({
        eventName: 'render_component',
        payload: { ...ref, eventId: 'c1', componentName: 'Chart', args: { v: 1 } },
      }),
    ).toStrictEqual({
      name: 'Chart',
      props: { id: 'c1', args: { v: 1 }, status: 'done', kind: 'component' },
    });
    expect(
      partOf({
        eventName: 'render_component',
        payload: { ...ref, eventId: 'c1', componentName: 'Chart', args: {}, status: 'isRunning' },
      })?.props.status,
    ).toBe('isRunning');
  });

  it('browser_tool_call: a running browser-tool part', () => {
    expect(
      partOf({
        eventName: 'browser_tool_call',
        payload: { ...ref, toolCallId: 'b1', toolName: 'geo', args: { q: 1 } },
      }),
    ).toStrictEqual({
      name: 'geo',
      props: {
        id: 'b1',
        toolName: 'geo',
        args: { q: 1 },
        status: 'isRunning',
        kind: 'browser_tool',
        isToolCall: true,
        requestId: 'r1',
        sessionId: 's1',
      },
    });
  });

  it('events that are not parts', () => {
    for (const ev of [
      { eventName: 'run', payload: { runId: 'u', requestId: 'r' } },
      { eventName: 'message', payload: { content: 'x', timestamp: ts } },
      { eventName: 'reasoning', payload: { ...ref, reasoning: 'x', isComplete: true } },
      { eventName: 'error', payload: { error: 'x', timestamp: ts } },
      { eventName: 'done', payload: { status: 'finished' } },
      { eventName: 'connected', payload: { message: 'x', sessionId: 's', timestamp: ts } },
    ] as AnyEvent[]) {
      expect(partOf(ev), ev.eventName).toBeUndefined();
      const m = msg('t');
      expect(applyPart(m, ev)).toBe(m);
    }
  });
});

describe('mergePart', () => {
  const part = (props: Partial<IComponentMetadata['props']>, name = 'p'): IComponentMetadata => ({
    name,
    props: { id: 'x', args: {}, ...props },
  });

  it('no old part: the new one as it is', () => {
    const next = part({ status: 'isRunning' });
    expect(mergePart(undefined, next)).toBe(next);
  });

  it('a browser tool reported by tool_call stays a browser tool; other kinds follow the new event', () => {
    expect(mergePart(part({ kind: 'browser_tool' }), part({ kind: 'tool' })).props.kind).toBe('browser_tool');
    expect(mergePart(part({ kind: 'tool' }), part({ kind: 'action' })).props.kind).toBe('action');
    expect(mergePart(part({ kind: 'browser_tool' }), part({ kind: 'component' })).props.kind).toBe(
      'component',
    );
  });

  it('empty args keep the known ones (and argsComplete); complete empty args replace them', () => {
    const old = part({ args: { a: 1 }, argsComplete: true });
    expect(mergePart(old, part({ args: {}, argsComplete: false })).props).toMatchObject({
      args: { a: 1 },
      argsComplete: true,
    });
    expect(mergePart(part({ args: { a: 1 } }), part({ args: {} })).props.args).toEqual({ a: 1 });
    expect(mergePart(part({ args: { a: 1 } }), part({ args: {} })).props.argsComplete).toBeUndefined();
    expect(mergePart(old, part({ args: {}, argsComplete: true })).props.args).toEqual({});
    expect(mergePart(old, part({ args: { b: 2 } })).props.args).toEqual({ b: 2 });
  });

  it('a settled part never goes back to running, keeping its output or error', () => {
    expect(
      mergePart(part({ status: 'done', output: '1' }), part({ status: 'isRunning' })).props,
    ).toMatchObject({ status: 'done', output: '1' });
    expect(
      mergePart(part({ status: 'error', error: 'e' }), part({ status: 'isRunning' })).props,
    ).toMatchObject({ status: 'error', error: 'e' });
    const noOutput = mergePart(part({ status: 'done' }), part({ status: 'isRunning' })).props;
    expect('output' in noOutput || 'error' in noOutput).toBe(false);
    // Running to settled, and settled to settled, follow the new event.
    expect(
      mergePart(part({ status: 'isRunning' }), part({ status: 'done', output: '2' })).props,
    ).toMatchObject({ status: 'done', output: '2' });
    expect(
      mergePart(part({ status: 'done', output: '1' }), part({ status: 'error', error: 'late' })).props,
    ).toMatchObject({ status: 'error', error: 'late' });
  });

  it('takes the new name', () => {
    expect(mergePart(part({}, 'old'), part({}, 'new')).name).toBe('new');
  });
});

describe('settlePart', () => {
  const running: IComponentMetadata = {
    name: 'geo',
    props: { id: 'b1', args: { q: 1 }, status: 'isRunning', kind: 'browser_tool' },
  };

  it('a message without the part is returned as it is', () => {
    const m = msg(['t', running]);
    expect(settlePart(m, 'other', { result: 1 })).toBe(m);
  });

  it('done with the JSON of the result; null for none; args replaced only when given', () => {
    const m = msg(['t', running]);
    expect(settlePart(m, 'b1', { result: { lat: 1 } }).content).toEqual([
      't',
      {
        name: 'geo',
        props: { id: 'b1', args: { q: 1 }, status: 'done', kind: 'browser_tool', output: '{"lat":1}' },
      },
    ]);
    expect(
      (settlePart(m, 'b1', { result: undefined }).content as IComponentMetadata[])[1]?.props.output,
    ).toBe('null');
    expect((settlePart(m, 'b1', { result: 0 }).content as IComponentMetadata[])[1]?.props.output).toBe('0');
    expect(
      (settlePart(m, 'b1', { result: 1 }, { q: 2 }).content as IComponentMetadata[])[1]?.props.args,
    ).toEqual({ q: 2 });
  });

  it('an error marks it failed with the error and no output', () => {
    const settled = (
      settlePart(msg([running]), 'b1', { result: 'ignored', error: 'denied' }).content as IComponentMetadata[]
    )[0];
    expect(settled).toEqual({
      name: 'geo',
      props: { id: 'b1', args: { q: 1 }, status: 'error', kind: 'browser_tool', error: 'denied' },
    });
  });
});

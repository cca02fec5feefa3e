import { describe, expect, it, vi } from 'vitest';
import { fromReferenceForm, readEventStream } from '../../src/chat/sse.js';

const enc = new TextEncoder();

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(typeof chunk === 'string' ? enc.encode(chunk) : chunk);
      c.close();
    },
  });
}

async function read(chunks: (string | Uint8Array)[]) {
  const batches = [];
  for await (const batch of readEventStream(streamOf(chunks))) batches.push(batch);
  return batches;
}

const TURN = [
  'id: 1\nevent: run\ndata: {"runId":"run_1","requestId":"req_1"}\n\n',
  ': heartbeat\n\n',
  'id: 2\nevent: message\ndata: {"content":"Héllo ✓ ","timestamp":"2026-11-23T10:00:00.000Z"}\n\n',
  'id: 3\nevent: done\ndata: {"status":"finished"}\n\n',
].join('');

describe('the SSE reader', () => {
  it('reads id, event and JSON data of each frame, skipping comments', async () => {
    const events = (await read([TURN])).flat();
    expect(events).toEqual([
      { id: 1, event: { eventName: 'run', payload: { runId: 'run_1', requestId: 'req_1' } } },
      {
        id: 2,
        event: {
          eventName: 'message',
          payload: { content: 'Héllo ✓ ', timestamp: '2026-11-23T10:00:00.000Z' },
        },
      },
      { id: 3, event: { eventName: 'done', payload: { status: 'finished' } } },
    ]);
  });

  it('gives the same events however the bytes are split, even inside a UTF-8 character', async () => {
    const bytes = enc.encode(TURN);
    const expected = (await read([TURN])).flat();
    for (let cut = 1; cut < bytes.length; cut++) {
      const events = (await read([bytes.slice(0, cut), bytes.slice(cut)])).flat();
      expect(events, `split at byte ${cut}`).toEqual(expected);
    }
    const oneByOne = (await read(Array.from(bytes, (b) => new Uint8Array([b])))).flat();
    expect(oneByOne).toEqual(expected);
  });

  it('joins multi-line data and accepts CRLF line ends', async () => {
    const frame =
      'id: 7\r\nevent: message\r\ndata: {"content":\r\ndata: "a b","timestamp":"2026-11-23T10:00:00.000Z"}\r\n\r\n';
    expect((await read([frame])).flat()).toEqual([
      {
        id: 7,
        event: { eventName: 'message', payload: { content: 'a b', timestamp: '2026-11-23T10:00:00.000Z' } },
      },
    ]);
  });

  it('yields one batch per network read', async () => {
    const [a, b] = TURN.split(': heartbeat\n\n');
    const batches = await read([a ?? '', `: heartbeat\n\n${b ?? ''}`]);
    expect(batches.map((x) => x.map((e) => e.event.eventName))).toEqual([['run'], ['message', 'done']]);
  });

  it('skips unknown events and payloads that do not match their schema (warning once)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const events = (
      await read([
        'event: router.update\ndata: {}\n\n',
        'event: message\ndata: {"nope":1}\n\n',
        'event: message\ndata: not json\n\n',
        'id: x\nevent: done\ndata: {"status":"aborted","partialText":"ab"}\n\n',
      ])
    ).flat();
    expect(events).toEqual([
      { id: undefined, event: { eventName: 'done', payload: { status: 'aborted', partialText: 'ab' } } },
    ]);
    expect(warn).toHaveBeenCalledTimes(3);
  });

  it('defaults an event without an event: line to message', async () => {
    expect(
      (await read(['data: {"content":"x","timestamp":"2026-11-23T10:00:00.000Z"}\n\n'])).flat()[0]?.event
        .eventName,
    ).toBe('message');
  });
});

describe("the reference server's event forms (fromReferenceForm)", () => {
  it.each([
    [{}, { status: 'finished' }],
    [
      { aborted: true, partialText: 'Hel' },
      { status: 'aborted', partialText: 'Hel' },
    ],
    [{ interrupted: true }, { status: 'interrupted' }],
    [{ failed: true, aborted: true }, { status: 'failed' }],
    [{ aborted: false, interrupted: false, failed: false }, { status: 'finished' }],
    [
      { status: 'aborted', partialText: 'x' },
      { status: 'aborted', partialText: 'x' },
    ],
  ])('done %j reads as %j', (data, read) => {
    expect(fromReferenceForm('done', data)).toEqual(read);
  });

  it('tool_call: the id from eventId, the real name from args.toolName, the status from output', () => {
    const ref = { sessionId: 's', requestId: 'r' };
    expect(
      fromReferenceForm('tool_call', {
        ...ref,
        toolName: 'toolCall',
        args: { q: 1, toolName: 'search' },
        eventId: 'c1',
        status: 'isRunning',
      }),
    ).toEqual({
      ...ref,
      toolCallId: 'c1',
      eventId: 'c1',
      toolName: 'search',
      args: { q: 1 },
      status: 'isRunning',
    });
    expect(
      fromReferenceForm('tool_call', { ...ref, toolName: 'search', eventId: 'c2', output: 'ok' }),
    ).toEqual({
      ...ref,
      toolCallId: 'c2',
      eventId: 'c2',
      toolName: 'search',
      args: {},
      status: 'done',
      output: 'ok',
    });
    // This service's own form is left as it is.
    const own = { ...ref, toolCallId: 'c3', eventId: 'c3', toolName: 't', args: {}, status: 'done' };
    expect(fromReferenceForm('tool_call', own)).toBe(own);
    expect(fromReferenceForm('message', { content: 'x' })).toEqual({ content: 'x' });
  });
});

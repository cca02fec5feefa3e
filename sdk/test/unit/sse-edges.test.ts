// The SSE reader's edges: which ids count, warnings once per kind with their exact text, no empty batches, and
// the body cancelled when the reader stops early.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readEventStream, toStreamEvent } from '../../src/chat/sse.js';

const enc = new TextEncoder();
const done = '{"status":"finished"}';

afterEach(() => vi.restoreAllMocks());

describe('toStreamEvent ids', () => {
  it('only a whole decimal id is kept', () => {
    const idOf = (id: string | undefined) => toStreamEvent({ id, event: 'done', data: done })?.id;
    expect(idOf('7')).toBe(7);
    expect(idOf('123')).toBe(123);
    expect(idOf(undefined)).toBeUndefined();
    expect(idOf('12a')).toBeUndefined();
    expect(idOf('a12')).toBeUndefined();
    expect(idOf('')).toBeUndefined();
  });
});

describe('warnings', () => {
  it('once per unknown event name, with its text', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(toStreamEvent({ id: undefined, event: 'edge.one', data: '{}' })).toBeUndefined();
    expect(toStreamEvent({ id: undefined, event: 'edge.one', data: '{}' })).toBeUndefined();
    expect(toStreamEvent({ id: undefined, event: 'edge.two', data: '{}' })).toBeUndefined();
    expect(warn.mock.calls).toEqual([
      ['[oracles-client-sdk] ignoring unknown stream event "edge.one"'],
      ['[oracles-client-sdk] ignoring unknown stream event "edge.two"'],
    ]);
  });

  it('once per event name whose payload does not match, and apart from data that is not JSON', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(toStreamEvent({ id: undefined, event: 'render_component', data: '{"x":1}' })).toBeUndefined();
    expect(toStreamEvent({ id: undefined, event: 'render_component', data: '{"y":2}' })).toBeUndefined();
    expect(toStreamEvent({ id: undefined, event: 'render_component', data: 'not json' })).toBeUndefined();
    expect(warn.mock.calls).toEqual([
      ['[oracles-client-sdk] ignoring a "render_component" event that does not match its schema'],
      ['[oracles-client-sdk] ignoring a "render_component" event whose data is not JSON'],
    ]);
  });
});

describe('readEventStream', () => {
  it('a read that completes no event yields no batch', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode(': heartbeat\n\n'));
        c.enqueue(enc.encode(`id: 1\nevent: done\ndata: ${done}\n\n`));
        c.enqueue(enc.encode(': heartbeat\n\nid: 2\nevent: do'));
        c.close();
      },
    });
    const batches = [];
    for await (const batch of readEventStream(body)) batches.push(batch);
    expect(batches).toEqual([[{ id: 1, event: { eventName: 'done', payload: { status: 'finished' } } }]]);
  });

  it('stopping early cancels the body', async () => {
    const cancel = vi.fn();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode(`id: 1\nevent: done\ndata: ${done}\n\n`));
      },
      cancel,
    });
    for await (const batch of readEventStream(body)) {
      expect(batch).toHaveLength(1);
      break;
    }
    await vi.waitFor(() => expect(cancel).toHaveBeenCalledTimes(1));
  });
});

// ChatStore's edges: unsubscribing, meta that does not change, the throttle, the default frame scheduler and
// dispose, and a replaced list that is the store's own copy.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatStore, INITIAL_RUN } from '../../src/chat/chat-store.js';
import type { IMessage } from '../../src/types.js';

const m = (id: string, content = id): IMessage => ({ id, type: 'ai', content });

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('ChatStore edges', () => {
  it('starts ready and empty, with the initial run', () => {
    const store = new ChatStore();
    expect(store.mode).toBe('batched');
    expect(store.getMessages()).toEqual([]);
    expect(store.getMeta()).toStrictEqual({
      status: 'ready',
      error: undefined,
      sendMessageError: undefined,
      isLoading: false,
      hasOlderMessages: false,
      isRealTimeConnected: false,
      run: INITIAL_RUN,
      pendingApprovals: [],
    });
  });

  it('an unsubscribed listener is not called again (messages and meta)', () => {
    const store = new ChatStore('immediate');
    const onMessages = vi.fn();
    const onMeta = vi.fn();
    const offMessages = store.subscribeMessages(onMessages);
    const offMeta = store.subscribeMeta(onMeta);
    store.upsert('a', () => m('a'));
    store.commit();
    store.setMeta({ isLoading: true });
    expect([onMessages.mock.calls.length, onMeta.mock.calls.length]).toEqual([1, 1]);
    offMessages();
    offMeta();
    store.upsert('b', () => m('b'));
    store.commit();
    store.setMeta({ isLoading: false });
    expect([onMessages.mock.calls.length, onMeta.mock.calls.length]).toEqual([1, 1]);
  });

  it('meta that does not change publishes nothing and keeps the same object; a change does', () => {
    const store = new ChatStore();
    const onMeta = vi.fn();
    store.subscribeMeta(onMeta);
    const before = store.getMeta();
    store.setMeta({ status: 'ready', isLoading: false });
    expect(onMeta).not.toHaveBeenCalled();
    expect(store.getMeta()).toBe(before);
    store.setMeta({ status: 'ready', isLoading: true });
    expect(onMeta).toHaveBeenCalledTimes(1);
    expect(store.getMeta()).toMatchObject({ status: 'ready', isLoading: true });
  });

  it('find gives the message as last edited, or nothing for an unknown id', () => {
    const store = new ChatStore('batched', () => () => undefined);
    store.upsert('a', () => m('a', 'one'));
    store.upsert('a', (old) => ({ ...(old as IMessage), content: 'two' }));
    expect(store.find('a')?.content).toBe('two');
    expect(store.find('zzz')).toBeUndefined();
    expect(store.getMessages()).toEqual([]); // not published yet
  });

  it('replaceAll keeps a copy: the caller’s array changing later changes nothing', () => {
    const store = new ChatStore('immediate');
    const list = [m('a')];
    store.replaceAll(list);
    store.flush();
    list.push(m('b'));
    expect(store.getMessages().map((x) => x.id)).toEqual(['a']);
  });

  it('with throttleMs, batched publishes once per throttle tick, not per frame', () => {
    vi.useFakeTimers();
    const frames = vi.fn(() => () => undefined);
    const store = new ChatStore('batched', frames);
    store.throttleMs = 100;
    const onMessages = vi.fn();
    store.subscribeMessages(onMessages);
    store.upsert('a', () => m('a'));
    store.commit();
    store.upsert('b', () => m('b'));
    store.commit();
    expect(frames).not.toHaveBeenCalled();
    vi.advanceTimersByTime(99);
    expect(onMessages).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onMessages).toHaveBeenCalledTimes(1);
    expect(store.getMessages().map((x) => x.id)).toEqual(['a', 'b']);
    // A throttle of 0 is no throttle: the frame scheduler again.
    store.throttleMs = 0;
    store.upsert('c', () => m('c'));
    store.commit();
    expect(frames).toHaveBeenCalledTimes(1);
  });

  it('a flush before the throttle tick cancels it (no second publish)', () => {
    vi.useFakeTimers();
    const store = new ChatStore('batched');
    store.throttleMs = 50;
    const onMessages = vi.fn();
    store.subscribeMessages(onMessages);
    store.upsert('a', () => m('a'));
    store.commit();
    store.flush();
    expect(vi.getTimerCount()).toBe(0);
    expect(onMessages).toHaveBeenCalledTimes(1);
  });

  it('the default scheduler uses requestAnimationFrame, and dispose cancels the frame', () => {
    const callbacks = new Map<number, () => void>();
    let next = 1;
    vi.stubGlobal('requestAnimationFrame', (cb: () => void) => {
      callbacks.set(next, cb);
      return next++;
    });
    vi.stubGlobal('cancelAnimationFrame', (id: number) => callbacks.delete(id));
    const store = new ChatStore('batched');
    const onMessages = vi.fn();
    store.subscribeMessages(onMessages);
    store.upsert('a', () => m('a'));
    store.commit();
    expect(callbacks.size).toBe(1);
    store.dispose();
    expect(callbacks.size).toBe(0);
    store.commit();
    for (const cb of callbacks.values()) cb();
    expect(onMessages).toHaveBeenCalledTimes(1);
  });

  it('without requestAnimationFrame the default scheduler is a 16 ms timer, cancelled by dispose', () => {
    vi.useFakeTimers();
    vi.stubGlobal('requestAnimationFrame', undefined);
    const store = new ChatStore('batched');
    const onMessages = vi.fn();
    store.subscribeMessages(onMessages);
    store.upsert('a', () => m('a'));
    store.commit();
    vi.advanceTimersByTime(15);
    expect(onMessages).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onMessages).toHaveBeenCalledTimes(1);
    store.upsert('b', () => m('b'));
    store.commit();
    store.dispose();
    vi.advanceTimersByTime(100);
    expect(onMessages).toHaveBeenCalledTimes(1);
  });
});

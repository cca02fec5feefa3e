import { describe, expect, it } from 'vitest';
import { ChatStore } from '../../src/chat/chat-store.js';
import { appendText, textOf } from '../../src/chat/content.js';

function manualFrames() {
  const queue: (() => void)[] = [];
  return {
    schedule: (cb: () => void) => {
      queue.push(cb);
      return () => queue.splice(queue.indexOf(cb), 1);
    },
    runFrame: () => queue.splice(0).forEach((cb) => cb()),
    pending: () => queue.length,
  };
}

describe('ChatStore', () => {
  it("'batched' publishes messages at most once per frame; meta changes publish pending text first", () => {
    const frames = manualFrames();
    const store = new ChatStore('batched', frames.schedule);
    let published = 0;
    let seenAtStatus = '';
    store.subscribeMessages(() => published++);
    store.subscribeMeta(() => (seenAtStatus = textOf(store.getMessages().at(-1)?.content ?? '')));
    store.upsert('a', () => ({ id: 'a', type: 'ai', content: '' }));
    for (let i = 0; i < 100; i++) {
      store.upsert('a', (m) => ({ ...m!, content: appendText(m!.content, 'x') }));
      store.commit();
    }
    expect(published).toBe(0);
    expect(frames.pending()).toBe(1);
    frames.runFrame();
    expect(published).toBe(1);
    store.upsert('a', (m) => ({ ...m!, content: appendText(m!.content, 'y') }));
    store.commit();
    store.setMeta({ status: 'streaming' });
    expect(published).toBe(2);
    expect(seenAtStatus).toBe('x'.repeat(100) + 'y');
    expect(frames.pending()).toBe(0);
  });

  it("'immediate' publishes at every commit", () => {
    const store = new ChatStore('immediate');
    let published = 0;
    store.subscribeMessages(() => published++);
    store.upsert('a', () => ({ id: 'a', type: 'ai', content: 'x' }));
    store.commit();
    store.upsert('a', (m) => ({ ...m!, content: 'xy' }));
    store.commit();
    expect(published).toBe(2);
  });

  it('copies the list once per publish and never touches unchanged messages', () => {
    const store = new ChatStore('immediate');
    store.replaceAll(
      Array.from({ length: 5000 }, (_, i) => ({ id: `m${i}`, type: 'human' as const, content: `m${i}` })),
    );
    store.flush();
    const before = store.getMessages();
    store.upsert('live', () => ({ id: 'live', type: 'ai', content: 'a' }));
    store.upsert('live', (m) => ({ ...m!, content: 'ab' }));
    store.commit();
    const after = store.getMessages();
    expect(after).not.toBe(before);
    expect(after).toHaveLength(5001);
    for (let i = 0; i < 5000; i++) expect(after[i]).toBe(before[i]);
    expect(before).toHaveLength(5000);
  });

  it('prepends older pages without duplicates and keeps ids indexed', () => {
    const store = new ChatStore('immediate');
    store.replaceAll([{ id: 'b', type: 'human', content: 'b' }]);
    store.prepend([
      { id: 'a', type: 'human', content: 'a' },
      { id: 'b', type: 'human', content: 'dup' },
    ]);
    store.flush();
    expect(store.getMessages().map((m) => m.content)).toEqual(['a', 'b']);
    store.upsert('b', (m) => ({ ...m!, content: 'B' }));
    store.flush();
    expect(store.find('b')?.content).toBe('B');
  });
});

// Who holds a chat: the registry's one controller per key, and the controller's attach on the first hook and
// detach after the last (each release counted once). Driven with a recording stand-in for the HTTP client:
// no network, no React.
import { describe, expect, it } from 'vitest';
import type { AppRoute } from '@ts-rest/core';
import { ChatController, type ChatEndpoints } from '../../src/chat/chat-controller.js';
import { ChatRegistry } from '../../src/chat/chat-registry.js';
import { ActionRegistry } from '../../src/tools/action-registry.js';
import type { OracleHttp } from '../../src/http/oracle-http.js';

/** An HTTP client whose history answers wait for the test, and that says no run is in flight. */
function recordingHttp() {
  const calls: string[] = [];
  const pages: ((page: unknown) => void)[] = [];
  const http = {
    call(route: AppRoute): Promise<unknown> {
      calls.push(`${route.method} ${route.path}`);
      if (route.path.endsWith('/messages') && route.method === 'GET')
        return new Promise((resolve) => pages.push(resolve));
      return Promise.reject(new Error('no run in flight'));
    },
  } as unknown as OracleHttp;
  return { http, calls, pages };
}

const page = (text: string) => ({
  messages: [{ id: 'm1', type: 'ai', content: text }],
  prevCursor: null,
  hasOlder: false,
});

const controller = (endpoints: ChatEndpoints) =>
  new ChatController({
    sessionId: 'ses_1',
    userDid: 'did:key:z6MkUser',
    actions: new ActionRegistry(),
    resolve: () => Promise.resolve(endpoints),
  });

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ChatController: retain and release', () => {
  it('attaches once for the first hook, stays attached while one hook holds it, detaches after the last', async () => {
    const h = recordingHttp();
    const ep: ChatEndpoints = { http: h.http, wsUrl: undefined };
    const c = controller(ep);
    const releaseA = c.retain(ep);
    const releaseB = c.retain(ep);
    await tick();
    const historyCalls = () => h.calls.filter((x) => x.endsWith('/messages')).length;
    expect(historyCalls()).toBe(1);

    // A's release, twice (React strict mode runs cleanups again): counted once, B still holds the chat.
    releaseA();
    releaseA();
    h.pages[0]?.(page('from history'));
    await tick();
    expect(c.store.getMessages().map((m) => m.content)).toEqual(['from history']);

    // The last hook goes: the chat detaches, and a history answer that comes later is not applied.
    void c.refetchMessages();
    await tick();
    releaseB();
    h.pages[1]?.(page('too late'));
    await tick();
    expect(c.store.getMessages().map((m) => m.content)).toEqual(['from history']);

    // A hook that comes back attaches again (a new history load).
    const releaseC = c.retain(ep);
    await tick();
    expect(historyCalls()).toBe(3);
    releaseC();
  });
});

describe('ChatRegistry', () => {
  const deps = () => {
    const h = recordingHttp();
    const ep: ChatEndpoints = { http: h.http, wsUrl: undefined };
    return {
      sessionId: 'ses_1',
      userDid: 'did:key:z6MkUser',
      actions: new ActionRegistry(),
      resolve: () => Promise.resolve(ep),
    };
  };

  it('one controller per key while a hook uses it; a new one once the last hook released it', () => {
    const r = new ChatRegistry();
    const a = r.get('k', deps);
    expect(r.get('k', deps)).toBe(a);
    expect(r.get('other', deps)).not.toBe(a);
    const release1 = r.use('k', a);
    const release2 = r.use('k', a);
    release1();
    expect(r.get('k', deps)).toBe(a);
    release2();
    expect(r.get('k', deps)).not.toBe(a);
  });

  it('hooks may leave in any order: the chat stays while one of them uses it', () => {
    const r = new ChatRegistry();
    const a = r.get('k', deps);
    const releaseFirst = r.use('k', a);
    const releaseSecond = r.use('k', a);
    releaseSecond();
    expect(r.get('k', deps)).toBe(a);
    releaseFirst();
    expect(r.get('k', deps)).not.toBe(a);
  });

  it('a hook of a forgotten controller leaving does not take out the controller now in use', () => {
    const r = new ChatRegistry();
    const old = r.get('k', deps);
    const releaseOld = r.use('k', old);
    const fresh = new ChatRegistry().get('k', deps);
    // Another hook registers its own controller for the key while the old one is still used.
    const releaseFresh = r.use('k', fresh);
    expect(r.get('k', deps)).toBe(fresh);
    releaseOld();
    expect(r.get('k', deps)).toBe(fresh);
    releaseFresh();
    expect(r.get('k', deps)).not.toBe(fresh);
  });

  it('a controller made before the key was forgotten does not take the new one out when released', () => {
    const r = new ChatRegistry();
    const old = r.get('k', deps);
    const releaseOld = r.use('k', old);
    releaseOld();
    // The key is free: a new controller, used by a new hook.
    const fresh = r.get('k', deps);
    expect(fresh).not.toBe(old);
    const releaseFresh = r.use('k', fresh);
    // A hook still rendering with the old controller uses it again, then goes: the key is the old one's
    // only while it is used.
    const releaseOldAgain = r.use('k', old);
    expect(r.get('k', deps)).toBe(old);
    releaseOldAgain();
    expect(r.get('k', deps)).not.toBe(old);
    releaseFresh();
  });

  it('a key used without get: use registers the controller for it', () => {
    const r = new ChatRegistry();
    const c = new ChatRegistry().get('k', deps);
    const release = r.use('k', c);
    expect(r.get('k', deps)).toBe(c);
    release();
    expect(r.get('k', deps)).not.toBe(c);
  });
});

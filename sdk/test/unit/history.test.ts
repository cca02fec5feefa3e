// History paging and its fallback to the whole legacy history, with a recording stand-in for the HTTP client;
// then the pure merge of the newest page into the thread on screen, as a table.
import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { fetchNewestPage, fetchOlderPage, mergeHistory, type LiveTurn } from '../../src/chat/history.js';
import type { OracleHttp } from '../../src/http/oracle-http.js';
import { OracleRequestError } from '../../src/http/oracle-request-error.js';
import type { IMessage } from '../../src/types.js';

const message = { id: 'm1', type: 'ai' as const, content: 'hi' };

/** Answers the paged route with `paged` (an error is thrown) and the whole history with one message. */
function httpAnswering(paged: unknown) {
  const calls: { route: string; args: unknown }[] = [];
  const http = {
    call(route: AppRoute, args: unknown): Promise<unknown> {
      calls.push({ route: `${route.method} ${route.path}`, args });
      if (route.path === '/messages/:sessionId') return Promise.resolve({ messages: [message] });
      return paged instanceof Error ? Promise.reject(paged) : Promise.resolve(paged);
    },
  } as unknown as OracleHttp;
  return { http, calls };
}

const failure = (status: number, code?: string) =>
  new OracleRequestError('failed', { status, ...(code ? { code } : {}) });

describe('fetchNewestPage', () => {
  it('asks the paged route for the newest `limit` messages and returns its page', async () => {
    const page = { messages: [message], prevCursor: 'c1', hasOlder: true, nextCursor: null };
    const { http, calls } = httpAnswering(page);
    const signal = new AbortController().signal;
    expect(await fetchNewestPage(http, 's1', 7, signal)).toBe(page);
    expect(calls).toEqual([
      {
        route: 'GET /sessions/:sessionId/messages',
        args: { params: { sessionId: 's1' }, query: { limit: 7 }, signal },
      },
    ]);
  });

  it('falls back to the whole history when the paged route is missing (405, or 404 other than session_not_found)', async () => {
    for (const err of [failure(405), failure(404), failure(404, 'route_not_found')]) {
      const { http, calls } = httpAnswering(err);
      expect(await fetchNewestPage(http, 's1', 20)).toEqual({
        messages: [message],
        prevCursor: null,
        hasOlder: false,
      });
      expect(calls.map((c) => c.route)).toEqual([
        'GET /sessions/:sessionId/messages',
        'GET /messages/:sessionId',
      ]);
    }
  });

  it('any other failure is the caller’s: session_not_found, other statuses, errors that are not the oracle’s', async () => {
    for (const err of [failure(404, 'session_not_found'), failure(500), failure(403), new Error('network')]) {
      const { http, calls } = httpAnswering(err);
      await expect(fetchNewestPage(http, 's1', 20)).rejects.toBe(err);
      expect(calls).toHaveLength(1);
    }
  });
});

describe('fetchOlderPage', () => {
  it('asks for the page before the cursor and returns its messages and paging', async () => {
    const { http, calls } = httpAnswering({
      messages: [message],
      prevCursor: null,
      hasOlder: false,
      nextCursor: 'n',
    });
    expect(await fetchOlderPage(http, 's1', 'c1', 5)).toStrictEqual({
      messages: [message],
      prevCursor: null,
      hasOlder: false,
    });
    expect(calls[0]?.args).toEqual({ params: { sessionId: 's1' }, query: { limit: 5, before: 'c1' } });
  });
});

// mergeHistory: a thread on screen, the newest page of history, the turn in flight → the thread after.
describe('mergeHistory', () => {
  const human = (id: string, content = id): IMessage => ({ id, type: 'human', content });
  const ai = (id: string, content = id): IMessage => ({ id, type: 'ai', content });
  const ids = (ms: readonly IMessage[]): string[] => ms.map((m) => m.id);

  interface Row {
    name: string;
    thread: IMessage[];
    page: IMessage[];
    live?: LiveTurn;
    expected: string[];
    keptOlder: boolean;
  }
  const rows: Row[] = [
    {
      name: 'an empty thread takes the page',
      thread: [],
      page: [human('h1'), ai('a1')],
      expected: ['h1', 'a1'],
      keptOlder: false,
    },
    {
      name: 'an empty page empties a thread with no turn',
      thread: [human('h1'), ai('a1')],
      page: [],
      expected: [],
      keptOlder: false,
    },
    {
      name: 'the same page again: no duplicate',
      thread: [human('h1'), ai('a1')],
      page: [human('h1'), ai('a1')],
      expected: ['h1', 'a1'],
      keptOlder: false,
    },
    {
      name: 'older pages before the page’s first message are kept',
      thread: [human('h0'), ai('a0'), human('h1'), ai('a1')],
      page: [human('h1'), ai('a1'), human('h2')],
      expected: ['h0', 'a0', 'h1', 'a1', 'h2'],
      keptOlder: true,
    },
    {
      name: 'a page that does not join the thread replaces it (older pages dropped)',
      thread: [human('h0'), ai('a0')],
      page: [human('h5'), ai('a5')],
      expected: ['h5', 'a5'],
      keptOlder: false,
    },
    {
      name: 'a page whose first message is the thread’s first: nothing older to keep',
      thread: [human('h1'), ai('a1')],
      page: [human('h1'), ai('a1'), human('h2')],
      expected: ['h1', 'a1', 'h2'],
      keptOlder: false,
    },
    {
      name: 'an older message the page has too is not repeated',
      thread: [human('h0'), ai('a1'), human('h1')],
      page: [human('h1'), ai('a1')],
      expected: ['h0', 'h1', 'a1'],
      keptOlder: true,
    },
    {
      name: 'the turn’s optimistic question and answer stay while history lacks them',
      thread: [human('h1'), ai('a1'), human('local:q', 'Hi'), ai('req_2', 'Hel')],
      page: [human('h1'), ai('a1')],
      live: { humanId: 'local:q', requestId: 'req_2' },
      expected: ['h1', 'a1', 'local:q', 'req_2'],
      keptOlder: false,
    },
    {
      name: 'history ending with the question’s text holds it: the optimistic one goes',
      thread: [human('h1'), ai('a1'), human('local:q', 'Hi'), ai('req_2', 'Hel')],
      page: [human('h1'), ai('a1'), human('h2', 'Hi')],
      live: { humanId: 'local:q', requestId: 'req_2' },
      expected: ['h1', 'a1', 'h2', 'req_2'],
      keptOlder: false,
    },
    {
      name: 'history ending with another question keeps the optimistic one',
      thread: [human('local:q', 'Hi'), ai('req_2')],
      page: [human('h2', 'Something else')],
      live: { humanId: 'local:q', requestId: 'req_2' },
      expected: ['h2', 'local:q', 'req_2'],
      keptOlder: false,
    },
    {
      name: 'history ending with an answer of the same text keeps the optimistic question',
      thread: [human('local:q', 'Hi')],
      page: [ai('a9', 'Hi')],
      live: { humanId: 'local:q', requestId: undefined },
      expected: ['a9', 'local:q'],
      keptOlder: false,
    },
    {
      name: 'the answer history already has is history’s; only a page ending with the question holds the optimistic one',
      thread: [human('local:q', 'Hi'), ai('req_2', 'Hel')],
      page: [human('h2', 'Hi'), ai('req_2', 'Hello')],
      live: { humanId: 'local:q', requestId: 'req_2' },
      expected: ['h2', 'req_2', 'local:q'],
      keptOlder: false,
    },
    {
      name: 'a turn with no answer id yet keeps only its question',
      thread: [human('local:q', 'Hi')],
      page: [],
      live: { humanId: 'local:q', requestId: undefined },
      expected: ['local:q'],
      keptOlder: false,
    },
    {
      name: 'a picked-up run (no optimistic question) keeps its answer',
      thread: [human('h1'), ai('req_7', 'part')],
      page: [human('h1')],
      live: { humanId: undefined, requestId: 'req_7' },
      expected: ['h1', 'req_7'],
      keptOlder: false,
    },
    {
      name: 'without a turn, messages history lacks are dropped (a refetch is history’s view)',
      thread: [human('local:q', 'Hi'), ai('req_2')],
      page: [human('h1')],
      expected: ['h1'],
      keptOlder: false,
    },
    {
      name: 'a turn whose messages are not on screen adds nothing',
      thread: [human('h1')],
      page: [human('h1')],
      live: { humanId: 'local:gone', requestId: 'req_gone' },
      expected: ['h1'],
      keptOlder: false,
    },
    {
      name: 'older pages, the page and the live turn, in that order',
      thread: [human('h0'), human('h1'), human('local:q', 'Q'), ai('req_3')],
      page: [human('h1'), ai('a1')],
      live: { humanId: 'local:q', requestId: 'req_3' },
      expected: ['h0', 'h1', 'a1', 'local:q', 'req_3'],
      keptOlder: true,
    },
  ];

  it.each(rows)('$name', ({ thread, page, live, expected, keptOlder }) => {
    const before = structuredClone(thread);
    const merged = mergeHistory(thread, page, live);
    expect(ids(merged.messages)).toEqual(expected);
    expect(merged.keptOlder).toBe(keptOlder);
    // Pure: the thread given is not changed, and messages are the very objects given.
    expect(thread).toEqual(before);
    for (const m of merged.messages) expect([...thread, ...page]).toContain(m);
  });

  it('a page message wins over the thread’s message of the same id (history is newer)', () => {
    const merged = mergeHistory([ai('a1', 'old')], [ai('a1', 'new')], undefined);
    expect(merged.messages).toEqual([ai('a1', 'new')]);
  });
});

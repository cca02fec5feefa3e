// History paging and its fallback to the whole legacy history, with a recording stand-in for the HTTP client.
import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { fetchNewestPage, fetchOlderPage } from '../../src/chat/history.js';
import type { OracleHttp } from '../../src/http/oracle-http.js';
import { OracleRequestError } from '../../src/http/oracle-request-error.js';

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

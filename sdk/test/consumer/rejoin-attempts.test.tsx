import { useChat, type IMessage } from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { mockOracle, providerFor, server, session, withMockServer } from './harness.js';

withMockServer();

// Regression test for issue 26: the re-join of a dropped answer stream gives up after exactly its attempts,
// not one late, and also when no re-join is answered 404 (runs.test.tsx covers the 404: the run is gone).
// Each case counts the re-join requests the oracle saw; the backoff is shortened through the `rejoin` option.

const textOf = (m: IMessage | undefined): string => (typeof m?.content === 'string' ? m.content : '');

/** How every re-join is answered. */
const answers = {
  'a 503 error': () =>
    HttpResponse.json({ code: 'unavailable', message: 'Try again later.', statusCode: 503 }, { status: 503 }),
  'a 500 error': () =>
    HttpResponse.json({ code: 'internal', message: 'Something broke.', statusCode: 500 }, { status: 500 }),
  'an empty stream': () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start: (c) => c.close(),
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    ),
} as const;

describe('the re-join gives up after exactly its attempts, ending disconnected', () => {
  const cases = (Object.keys(answers) as (keyof typeof answers)[]).flatMap((answer) => [
    { answer, attempts: 3, expected: 3 },
    // The default: 5.
    { answer, attempts: undefined, expected: 5 },
  ]);

  it.each(cases)(
    'every re-join answered with $answer, attempts $attempts → $expected re-joins, then disconnected',
    async ({ answer, attempts, expected }) => {
      const oracle = mockOracle({
        sessions: [session()],
        script: [{ type: 'text', text: 'partial ' }, { type: 'drop' }],
      });
      const rejoins: string[] = [];
      server.use(
        http.get(`${oracle.control.apiUrl}/runs/:runId`, async ({ request }) => {
          rejoins.push(new URL(request.url).searchParams.get('after') ?? '');
          // A real network answers later: a client that re-joins without end must not starve the test's timers.
          await new Promise((resolve) => setTimeout(resolve, 1));
          return answers[answer]();
        }),
      );
      const { result } = renderHook(
        () =>
          useChat({
            oracleDid: oracle.control.oracleDid,
            sessionId: 'ses_1',
            onPaymentRequiredError: vi.fn(),
            rejoin: { baseMs: 1, maxMs: 2, jitter: 0, ...(attempts === undefined ? {} : { attempts }) },
          }),
        { wrapper: providerFor(oracle) },
      );
      await waitFor(() => expect(result.current.isLoading).toBe(false));
      act(() => result.current.sendMessage('go'));
      await waitFor(() => expect(result.current.status).toBe('error'));
      expect(result.current.run).toMatchObject({ ended: 'disconnected', reconnecting: false });
      expect(result.current.sendMessageError?.message).toBe(
        'The answer stream was lost and could not be re-joined',
      );
      expect(textOf(result.current.messages.at(-1))).toBe('partial ');
      // Each re-join asked for what follows the last event seen, and no more re-joins come after the end.
      expect(rejoins).toHaveLength(expected);
      expect(new Set(rejoins).size).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(rejoins).toHaveLength(expected);
    },
  );
});

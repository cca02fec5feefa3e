// Issue 35 item 6: a test written from the README sends at once, without waiting for `isRealTimeConnected`;
// the kit's scripted browser tool call must not go to a socket that is not there yet.
import { useChat } from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { mockOracle, providerFor, session, withMockServer } from './harness.js';

withMockServer();

const pageTitle = {
  toolName: 'pageTitle',
  description: 'The page title',
  schema: z.object({}),
  fn: () => 'My page',
};

describe('the MSW kit: a scripted browser tool call or action and the socket', () => {
  it('a browser_tool_call scripted before the socket is connected waits for it (it hung with the tool running)', async () => {
    let refusals = 1;
    const oracle = mockOracle({
      sessions: [session()],
      // The first handshake is refused as the service refuses it when it cannot check it: the SDK tries
      // again after its backoff, so the socket connects well after the turn has started.
      socketAuth: () => (refusals-- > 0 ? 'unavailable' : undefined),
      script: [
        { type: 'browser_tool_call', toolName: 'pageTitle', args: {} },
        { type: 'text', text: 'Done.' },
      ],
    });
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
          browserTools: { pageTitle },
        }),
      { wrapper: providerFor(oracle) },
    );
    act(() => result.current.sendMessage('title?'));
    await waitFor(() => expect(oracle.control.toolResults).toHaveLength(1), { timeout: 8000 });
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(oracle.control.toolResults).toEqual([{ toolCallId: expect.any(String), result: 'My page' }]);
    expect(oracle.control.handshakes.map((h) => h.accepted)).toEqual([false, true]);
    expect(result.current.error).toBeUndefined();
    expect(oracle.control.errors).toEqual([]);
  });

  it('an action_call whose session gets no socket within socketWaitMs fails the turn with an error naming the step and the session', async () => {
    let refusals = 1;
    const oracle = mockOracle({
      sessions: [session()],
      // The SDK tries again after its backoff (hundreds of ms): later than the kit is told to wait.
      socketAuth: () => (refusals-- > 0 ? 'unavailable' : undefined),
      socketWaitMs: 100,
      script: [
        { type: 'text', text: 'Working. ' },
        { type: 'action_call', toolName: 'highlight', args: { id: 'x' } },
        { type: 'text', text: 'never streamed' },
      ],
    });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    act(() => result.current.sendMessage('go'));
    await waitFor(() => expect(oracle.control.errors).toHaveLength(1));
    const error = oracle.control.errors[0];
    expect(error).toBeInstanceOf(Error);
    expect(error?.message).toMatch(
      /^MSW kit: the scripted action_call "highlight" \(step 2\) of session ses_1 found no connected socket of that session within 100 ms \(handshakes of it so far: \d+ refused, 0 accepted\)\. Wait for `isRealTimeConnected` before sending, or raise `socketWaitMs`\.$/,
    );
    const run = oracle.control.latestRun('ses_1');
    await waitFor(() => expect(run?.status).toBe('failed'));
    expect(run?.events.map((e) => e.event)).toEqual(['run', 'message', 'error', 'done']);
    expect(run?.events.at(-2)?.data).toMatchObject({ error: error?.message });
    expect(run?.text).toBe('Working. ');
    // Where the test's author looks: the failed turn's error in the chat.
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.sendMessageError?.message).toBe(error?.message);
  });
});

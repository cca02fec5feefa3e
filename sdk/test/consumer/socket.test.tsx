import { useChat } from '@open-oracles/oracles-client-sdk';
import { renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { mockOracle, providerFor, session, withMockServer } from './harness.js';

withMockServer();

describe('the socket channel', () => {
  it('reconnects after the connection drops', async () => {
    const oracle = mockOracle({ sessions: [session()] });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    oracle.control.dropSockets('ses_1');
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(false));
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true), { timeout: 5000 });
    expect(oracle.control.handshakes.filter((h) => h.accepted)).toHaveLength(2);
  });

  it('retries a refused handshake with backoff and fresh tokens (connect_error is not retried by socket.io)', async () => {
    let refusals = 1;
    const oracle = mockOracle({
      sessions: [session()],
      socketAuth: () => (refusals-- > 0 ? 'auth_expired' : undefined),
    });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true), { timeout: 5000 });
    const [refused, accepted] = oracle.control.handshakes;
    expect(refused?.accepted).toBe(false);
    expect(accepted?.accepted).toBe(true);
    // The retry carries a newly minted delegation (posted to /delegation first).
    expect(accepted?.auth?.['ucanDelegation']).not.toBe(refused?.auth?.['ucanDelegation']);
    expect(oracle.control.delegations.map((d) => d.serialized)).toEqual([accepted?.auth?.['ucanDelegation']]);
  });

  it('ignores socket events of other sessions and duplicate tool calls', async () => {
    const oracle = mockOracle({ sessions: [session(), session('ses_2')] });
    const fn = vi.fn(() => Promise.resolve('ok'));
    const { z } = await import('zod');
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
          browserTools: { t: { toolName: 't', description: 'd', schema: z.object({}), fn } },
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    const call = { sessionId: 'ses_1', requestId: 'r1', toolCallId: 'tc-1', toolName: 't', args: {} };
    oracle.control.emit('ses_1', 'browser_tool_call', call);
    oracle.control.emit('ses_1', 'browser_tool_call', call);
    oracle.control.emit('ses_1', 'browser_tool_call', { ...call, sessionId: 'ses_2', toolCallId: 'tc-2' });
    await waitFor(() => expect(oracle.control.toolResults).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 30));
    expect(fn).toHaveBeenCalledTimes(1);
    expect(oracle.control.toolResults).toEqual([{ toolCallId: 'tc-1', result: 'ok' }]);
  });
});

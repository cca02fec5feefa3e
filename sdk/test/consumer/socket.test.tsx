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

  it('a handshake refused as expired is retried with a new invocation only: the wallet is not asked, nothing is posted to /delegation', async () => {
    let refusals = 1;
    const oracle = mockOracle({
      sessions: [session()],
      socketAuth: () => (refusals-- > 0 ? 'auth_expired' : undefined),
    });
    const createDelegation = vi.fn((oracleDid: string) =>
      Promise.resolve({ serialized: `delegation-${oracleDid}`, expiresAt: Date.now() + 3_600_000 }),
    );
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle, { createDelegation }) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true), { timeout: 5000 });
    const [refused, accepted] = oracle.control.handshakes;
    expect(refused?.accepted).toBe(false);
    expect(accepted?.accepted).toBe(true);
    expect(accepted?.auth?.['invocation']).not.toBe(refused?.auth?.['invocation']);
    expect(accepted?.auth?.['ucanDelegation']).toBe(refused?.auth?.['ucanDelegation']);
    expect(createDelegation).toHaveBeenCalledTimes(1);
    expect(oracle.control.delegations).toEqual([]);
  });

  it('a handshake refused for its delegation is retried with a new one, posted to /delegation first', async () => {
    let refusals = 1;
    const oracle = mockOracle({
      sessions: [session()],
      socketAuth: () => (refusals-- > 0 ? 'delegation_expired' : undefined),
    });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true), { timeout: 5000 });
    const [refused, accepted] = oracle.control.handshakes;
    expect(accepted?.auth?.['ucanDelegation']).not.toBe(refused?.auth?.['ucanDelegation']);
    expect(oracle.control.delegations.map((d) => d.serialized)).toEqual([accepted?.auth?.['ucanDelegation']]);
  });

  // Issue 35: a deleted session (or a room the user was removed from, or a database outage) re-minted the
  // delegation on every refused handshake: a wallet prompt every ≤ 30 s, without limit.
  it.each(['session_not_found', 'room_not_found'])(
    "a handshake refused with %s is the chat's error, naming it; the wallet is asked nothing and nothing is retried",
    async (code) => {
      const oracle = mockOracle({ sessions: [session()], socketAuth: () => code });
      const onReauthorize = vi.fn(() => true);
      const createDelegation = vi.fn((oracleDid: string) =>
        Promise.resolve({ serialized: `delegation-${oracleDid}`, expiresAt: Date.now() + 3_600_000 }),
      );
      const { result } = renderHook(
        () =>
          useChat({
            oracleDid: oracle.control.oracleDid,
            sessionId: 'ses_1',
            onPaymentRequiredError: vi.fn(),
          }),
        { wrapper: providerFor(oracle, { createDelegation, onReauthorize }) },
      );
      await waitFor(() => expect(result.current.error).toMatchObject({ code, step: 'socket handshake' }));
      expect(result.current.error?.message).toMatch(
        new RegExp(`^The chat's socket at .+ was refused \\(${code}\\)`),
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(oracle.control.handshakes).toHaveLength(1);
      expect(onReauthorize).not.toHaveBeenCalled();
      expect(createDelegation).toHaveBeenCalledTimes(1);
      expect(result.current.isRealTimeConnected).toBe(false);
    },
  );

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

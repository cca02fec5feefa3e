import { useChat } from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { longText } from '../../server/oracle/models/scripted-rules.js';
import type { TestApp } from '../helpers/app.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import {
  newSession,
  ORACLE_DID,
  providerFor,
  realWallet,
  startRealOracle,
  textOf,
} from '../helpers/sdk-real/real-oracle.js';

/** What the scripted model answers to "tell me a long story", word by word. */
const LONG = longText(400);

describe('durable runs: the SDK against the real service', () => {
  let app: TestApp;
  beforeAll(async () => {
    // A pause between words, so a test can act while the answer streams (400 words: about 2.4 s).
    app = await startRealOracle({ SCRIPTED_MODEL_DELAY_MS: '6' });
  });
  afterAll(() => app.close());

  it('abortStream lands in ready keeping the partial answer, the one the service stored', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet);
    const { result, unmount } = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(result.current.isConfigReady && !result.current.isLoading).toBe(true));
    act(() => result.current.sendMessage('tell me a long story'));
    await waitFor(() => expect(textOf(result.current.messages.at(-1)).length).toBeGreaterThan(40));
    await act(() => result.current.abortStream());
    await waitFor(() => expect(result.current.status).toBe('ready'));
    const partial = textOf(result.current.messages.at(-1));
    expect(partial.length).toBeGreaterThan(40);
    expect(partial.length).toBeLessThan(LONG.length);
    expect(LONG.startsWith(partial)).toBe(true);
    expect(result.current.run.ended).toBe('aborted');
    expect(result.current.sendMessageError).toBeUndefined();
    unmount();

    const reloaded = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(reloaded.result.current.messages).toHaveLength(2));
    expect(textOf(reloaded.result.current.messages[1])).toBe(partial);
  });

  it('a dropped stream re-joins its run (GET /runs/:runId?after=N) and the answer has no repeated text', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet);
    // The SDK reaches the service through a proxy the test cuts: every connection drops, the stream too.
    const port = app.server.port;
    await using proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port });
    const via = `http://127.0.0.1:${proxy.port}`;
    const runStates: boolean[] = [];
    const { result } = renderHook(
      () => {
        const chat = useChat({
          oracleDid: ORACLE_DID,
          sessionId,
          onPaymentRequiredError: vi.fn(),
          overrides: { baseUrl: via, wsUrl: via },
          streamingMode: 'immediate',
        });
        if (chat.run.reconnecting) runStates.push(true);
        return chat;
      },
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(result.current.isConfigReady && !result.current.isLoading).toBe(true));
    act(() => result.current.sendMessage('tell me a long story'));
    await waitFor(() => expect(textOf(result.current.messages.at(-1)).length).toBeGreaterThan(40));
    const runId = result.current.run.runId;
    await proxy.cut();
    const cutAt = textOf(result.current.messages.at(-1)).length;
    await proxy.restore();
    await waitFor(() => expect(result.current.status).toBe('ready'), { timeout: 20_000 });
    expect(cutAt).toBeLessThan(LONG.length);
    expect(runStates.length).toBeGreaterThan(0);
    expect(result.current.run).toMatchObject({ runId, ended: 'finished', reconnecting: false });
    expect(textOf(result.current.messages.at(-1))).toBe(LONG);
    expect(result.current.messages).toHaveLength(2);
  });

  it('a chat mounted while its session has a run in flight picks the run up (GET /sessions/:id/run)', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet);
    const first = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(first.result.current.isConfigReady).toBe(true));
    act(() => first.result.current.sendMessage('tell me a long story'));
    await waitFor(() => expect(textOf(first.result.current.messages.at(-1)).length).toBeGreaterThan(40));
    // "Reload the page": the first chat goes away mid-turn, a new one mounts.
    first.unmount();
    const second = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(second.result.current.status).toBe('streaming'));
    await waitFor(() => expect(second.result.current.status).toBe('ready'), { timeout: 20_000 });
    expect(second.result.current.messages.map((m) => m.type)).toEqual(['human', 'ai']);
    expect(textOf(second.result.current.messages[1])).toBe(LONG);
    expect(second.result.current.run.ended).toBe('finished');
  });

  it('a chat mounted on a session with no run yet: GET /sessions/:id/run answers 204 once, no error, no retry', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet);
    const fetched: string[] = [];
    const realFetch = globalThis.fetch;
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const response = await realFetch(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      fetched.push(`${init?.method ?? 'GET'} ${url.pathname} ${response.status}`);
      return response;
    });
    try {
      const { result } = renderHook(
        () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn() }),
        { wrapper: providerFor(app, wallet) },
      );
      await waitFor(() => expect(fetched.some((f) => f.includes('/run '))).toBe(true));
      await waitFor(() => expect(result.current.isConfigReady && !result.current.isLoading).toBe(true));
      await act(() => new Promise((r) => setTimeout(r, 300)));
      expect(fetched.filter((f) => f.includes('/run '))).toEqual([`GET /sessions/${sessionId}/run 204`]);
      expect(fetched.filter((f) => !/ 2\d\d$/.test(f))).toEqual([]);
      expect(result.current.error).toBeFalsy();
      expect(result.current.status).toBe('ready');
      expect(result.current.messages).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });
});

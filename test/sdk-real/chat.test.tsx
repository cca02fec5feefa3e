import {
  renderMessageContent,
  useAgAction,
  useChat,
  useModels,
  useOracleSessions,
  useOraclesConfig,
  type BrowserTools,
  type IMessage,
  type UIComponents,
} from '@open-oracles/oracles-client-sdk';
import { act, render, renderHook, screen, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { TestApp } from '../helpers/app.js';
import {
  newSession,
  ORACLE_DID,
  providerFor,
  realWallet,
  startRealOracle,
  textOf,
} from '../helpers/sdk-real/real-oracle.js';

describe('the SDK against the real oracle service', () => {
  let app: TestApp;
  let serverDid: string;
  beforeAll(async () => {
    app = await startRealOracle();
    serverDid = ((await (await fetch(`${app.url}/config`)).json()) as { did: string }).did;
  });
  afterAll(() => app.close());

  it("useOraclesConfig resolves the API and socket URLs through the chain gateway's entity route, then reads /config", async () => {
    const wallet = await realWallet();
    const { result } = renderHook(() => useOraclesConfig(ORACLE_DID), { wrapper: providerFor(app, wallet) });
    await waitFor(() => expect(result.current.isConfigReady).toBe(true));
    // The fixture node advertises the server's own port (server/server.ts binds it before the parts start).
    expect(result.current.apiUrl).toBe(`http://localhost:${app.server.port}`);
    expect(result.current.wsUrl).toBe(`http://localhost:${app.server.port}`);
    expect(result.current.config).toMatchObject({ did: serverDid, entityDid: ORACLE_DID });
    expect(result.current.error).toBeUndefined();
  });

  it('streams an answer with real UCANs (submitted → streaming → ready) and the history of a new mount has it', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet, 'streaming');
    const mintedBefore = wallet.minted.length;
    const statuses: string[] = [];
    const onPaymentRequiredError = vi.fn();
    const { result, unmount } = renderHook(
      () => {
        const chat = useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError });
        if (statuses.at(-1) !== chat.status) statuses.push(chat.status);
        return chat;
      },
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(result.current.isConfigReady && !result.current.isLoading).toBe(true));
    expect(result.current.messages).toEqual([]);
    act(() => result.current.sendMessage('Hello there'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(statuses).toEqual(['ready', 'submitted', 'streaming', 'ready']);
    const [question, answer] = result.current.messages;
    expect(textOf(question)).toBe('Hello there');
    expect(answer?.type).toBe('ai');
    expect(textOf(answer)).toMatch(/Hello there/);
    expect(result.current.run).toMatchObject({ ended: 'finished', reconnecting: false, resumed: false });
    expect(result.current.sendMessageError).toBeUndefined();
    expect(onPaymentRequiredError).not.toHaveBeenCalled();
    // The wallet was asked for one invocation (the provider caches per user and oracle); the delegation it
    // signed for newSession's provider was kept (localStorage, as in a browser) and reused, not minted again.
    expect(
      wallet.minted
        .slice(mintedBefore)
        .map((m) => [m.kind, m.audience])
        .sort(),
    ).toEqual([['invocation', ORACLE_DID]]);
    const streamed = result.current.messages.map((m) => ({ id: m.id, type: m.type, text: textOf(m) }));
    unmount();

    const again = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(again.result.current.messages).toHaveLength(2));
    const reloaded = again.result.current.messages.map((m) => ({ id: m.id, type: m.type, text: textOf(m) }));
    expect(reloaded[0]).toMatchObject({ type: 'human', text: 'Hello there' });
    // The streamed answer's id is the X-Request-Id, the id history returns for it.
    expect(reloaded[1]).toEqual(streamed[1]);
  });

  it("regression: useModels said isLoading false with no models while the oracle config resolved; useChat's model option picks a model, an unknown one is a send error", async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet);
    const served = (await (await fetch(`${app.url}/models`)).json()) as { models: { id: string }[] };
    let model = 'scripted';
    const { result, rerender } = renderHook(
      () => ({
        models: useModels(ORACLE_DID),
        chat: useChat({
          oracleDid: ORACLE_DID,
          sessionId,
          onPaymentRequiredError: vi.fn(),
          model,
        }),
      }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(result.current.models.isLoading).toBe(false));
    expect(result.current.models.models.map((m) => m.id)).toEqual(served.models.map((m) => m.id));
    expect(result.current.models.defaultModel).toBe('scripted');
    await waitFor(() => expect(result.current.chat.isConfigReady).toBe(true));
    act(() => result.current.chat.sendMessage('with the scripted model'));
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    expect(result.current.chat.sendMessageError).toBeUndefined();
    model = 'no-such-model';
    rerender();
    act(() => result.current.chat.sendMessage('with a model the service does not have'));
    await waitFor(() => expect(result.current.chat.status).toBe('error'));
    expect(result.current.chat.sendMessageError).toMatchObject({ status: 400, code: 'unknown_model' });
  });

  it('useOracleSessions creates, lists in pages and deletes sessions on the server', async () => {
    const wallet = await realWallet();
    const { result } = renderHook(() => useOracleSessions(ORACLE_DID, { pageSize: 2 }), {
      wrapper: providerFor(app, wallet),
    });
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    expect(result.current.sessions).toEqual([]);
    const ids: string[] = [];
    for (const title of ['one', 'two', 'three']) {
      await act(async () => {
        ids.push((await result.current.createSession(title)).sessionId);
      });
    }
    await waitFor(() => expect(result.current.total).toBe(3));
    expect(result.current.sessions).toHaveLength(2);
    expect(result.current.hasNextPage).toBe(true);
    act(() => result.current.fetchNextPage());
    await waitFor(() => expect(result.current.sessions).toHaveLength(3));
    expect(result.current.sessions.map((s) => s.sessionId).sort()).toEqual([...ids].sort());
    expect(result.current.sessions.map((s) => s.title).sort()).toEqual(['one', 'three', 'two']);
    await act(() => result.current.deleteSession(ids[1] ?? ''));
    await waitFor(() => expect(result.current.total).toBe(2));
    expect(result.current.sessions.map((s) => s.sessionId)).not.toContain(ids[1]);
  });

  it('regression: useOracleSessions said isLoading false with an empty list while the oracle config was still resolving', async () => {
    const wallet = await realWallet();
    const seen: { isLoading: boolean; count: number }[] = [];
    const { result } = renderHook(
      () => {
        const s = useOracleSessions(ORACLE_DID);
        seen.push({ isLoading: s.isLoading, count: s.sessions.length });
        return s;
      },
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    // Every render before the first page was loading; none showed "no sessions" as a result.
    const firstSettled = seen.findIndex((r) => !r.isLoading);
    expect(firstSettled).toBeGreaterThan(0);
    expect(seen.slice(0, firstSettled).every((r) => r.isLoading)).toBe(true);
    await act(async () => {
      await result.current.createSession('now it works');
    });
    await waitFor(() => expect(result.current.total).toBe(1));
  });

  it("runs a browser tool over the real socket.io channel and the agent's answer carries its result", async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet);
    const fn = vi.fn(() => 'Water the seedlings at six.');
    const browserTools: BrowserTools = {
      readPageNote: {
        toolName: 'readPageNote',
        description: 'Reads the note on the page',
        schema: z.object({}),
        fn,
      },
    };
    const { result } = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn(), browserTools }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    act(() => result.current.sendMessage('use readPageNote'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(fn).toHaveBeenCalledTimes(1);
    const answer = result.current.messages.at(-1);
    expect(textOf(answer)).toBe(
      'Calling readPageNote.The tool readPageNote returned: Water the seedlings at six.',
    );
    const partOf = (m: IMessage | undefined) =>
      (Array.isArray(m?.content) ? m.content : []).find((p) => typeof p !== 'string');
    expect(partOf(answer)).toMatchObject({
      props: { toolName: 'readPageNote', kind: 'browser_tool', status: 'done' },
    });
  });

  it("regression: a browser tool's part became kind 'tool' when the service's tool_call events for it followed (history says browser_tool)", async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet);
    const browserTools: BrowserTools = {
      pageTitle: { toolName: 'pageTitle', description: 'Title', schema: z.object({}), fn: () => 'My page' },
    };
    const partsOf = (messages: IMessage[]) =>
      messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((p) => typeof p !== 'string');
    const live = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn(), browserTools }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(live.result.current.isRealTimeConnected).toBe(true));
    act(() => live.result.current.sendMessage('use pageTitle'));
    await waitFor(() => expect(live.result.current.status).toBe('ready'));
    expect(partsOf(live.result.current.messages).map((p) => [p.props.toolName, p.props.kind])).toEqual([
      ['pageTitle', 'browser_tool'],
    ]);
    live.unmount();
    const reloaded = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(reloaded.result.current.messages).toHaveLength(2));
    expect(partsOf(reloaded.result.current.messages).map((p) => [p.props.toolName, p.props.kind])).toEqual([
      ['pageTitle', 'browser_tool'],
    ]);
  });

  it('runs an agent-UI action (useAgAction) with its inline render, and renders a component through uiComponents', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet);
    const handler = vi.fn(({ cardId }: { cardId: string }) => ({ highlighted: cardId }));
    const uiComponents: UIComponents = {
      WeatherCard: ({ city, celsius }: { city: string; celsius: number }) => (
        <div data-testid="weather-card">
          {city}: {celsius} °C
        </div>
      ),
    };
    let send: (text: string) => void = () => undefined;
    let status = '';
    function Chat(): ReactNode {
      useAgAction({
        name: 'highlight_card',
        description: 'Highlights a card',
        parameters: z.object({ cardId: z.string() }),
        handler,
        render: ({ status: s, args }) => (
          <span data-testid="action-render">
            {s === 'done' ? `Highlighted ${args.cardId ?? ''}` : 'Highlighting…'}
          </span>
        ),
      });
      const chat = useChat({
        oracleDid: ORACLE_DID,
        sessionId,
        onPaymentRequiredError: vi.fn(),
        uiComponents,
      });
      send = chat.sendMessage;
      status = chat.isRealTimeConnected ? chat.status : 'offline';
      return (
        <ol>
          {chat.messages.map((m) => (
            <li key={m.id}>{renderMessageContent(m.content, uiComponents)}</li>
          ))}
        </ol>
      );
    }
    const Wrapper = providerFor(app, wallet);
    render(
      <Wrapper>
        <Chat />
      </Wrapper>,
    );
    await waitFor(() => expect(status).toBe('ready'));
    act(() => send('use highlight_card with {"cardId": "card-2"}'));
    await waitFor(() => expect(screen.getByTestId('action-render').textContent).toBe('Highlighted card-2'));
    await waitFor(() => expect(status).toBe('ready'));
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0]?.[0]).toEqual({ cardId: 'card-2' });
    await waitFor(() => expect(screen.getByText(/The tool highlight_card returned: .*card-2/)).toBeTruthy());

    act(() => send('show me the WeatherCard with {"city": "Nairobi", "celsius": 24}'));
    await waitFor(() => expect(screen.getByTestId('weather-card').textContent).toBe('Nairobi: 24 °C'));
    await waitFor(() => expect(status).toBe('ready'));
    expect(screen.getByText('Here is the WeatherCard component.')).toBeTruthy();
  });
});

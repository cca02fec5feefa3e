import {
  renderMessageContent,
  useChat,
  type BrowserTools,
  type IMessage,
} from '@open-oracles/oracles-client-sdk';
import { z } from 'zod';
import { act, fireEvent, render, renderHook, screen, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import {
  newSession,
  ORACLE_DID,
  providerFor,
  realWallet,
  startRealOracle,
} from '../helpers/sdk-real/real-oracle.js';

const onPaymentRequiredError = (): void => undefined;

/** The tool-call part of an AI message, as the chat shows it. */
const toolPart = (m: IMessage | undefined) =>
  (Array.isArray(m?.content) ? m.content : []).find((p) => typeof p !== 'string');

/**
 * Renders a chat of the session as an app would (its status and each message through renderMessageContent);
 * `onRender` sees the chat at every render.
 */
function renderChat(
  app: TestApp,
  wallet: Awaited<ReturnType<typeof realWallet>>,
  sessionId: string,
  onRender: (chat: ReturnType<typeof useChat>) => void,
): void {
  function Chat() {
    const chat = useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError });
    onRender(chat);
    return (
      <div>
        <p data-testid="status">{chat.status}</p>
        {chat.messages.map((m) => (
          <div key={m.id}>{renderMessageContent(m.content)}</div>
        ))}
      </div>
    );
  }
  const Wrapper = providerFor(app, wallet);
  render(
    <Wrapper>
      <Chat />
    </Wrapper>,
  );
}

describe('useChat with tool calls that wait for approval, against the real oracle', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startRealOracle({ ORACLE_FEATURES: 'memory', ORACLE_TOOLS_NEED_APPROVAL: 'remember_fact' });
  });
  afterAll(() => app.close());

  it('lists the waiting call in pendingApprovals, shows its part as awaiting_approval, and approve() lets it run', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet, 'approve');
    const { result } = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError }),
      {
        wrapper: providerFor(app, wallet),
      },
    );
    await waitFor(() => expect(result.current.isConfigReady && !result.current.isLoading).toBe(true));
    expect(result.current.pendingApprovals).toEqual([]);
    act(() => result.current.sendMessage('use remember_fact with {"content": "Prefers tea"}'));
    await waitFor(() => expect(result.current.pendingApprovals).toHaveLength(1));
    const [pending] = result.current.pendingApprovals;
    expect(pending).toMatchObject({ toolName: 'remember_fact', args: { content: 'Prefers tea' } });
    expect(result.current.status).toBe('streaming');
    expect(toolPart(result.current.messages.at(-1))).toMatchObject({
      props: { id: pending?.toolCallId, status: 'awaiting_approval' },
    });
    await act(() => result.current.approve(pending!.toolCallId));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(result.current.pendingApprovals).toEqual([]);
    expect(toolPart(result.current.messages.at(-1))).toMatchObject({ props: { status: 'done' } });
  });

  it('deny() declines it with a reason; a second decision is refused', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet, 'deny');
    const { result } = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError }),
      {
        wrapper: providerFor(app, wallet),
      },
    );
    await waitFor(() => expect(result.current.isConfigReady && !result.current.isLoading).toBe(true));
    act(() => result.current.sendMessage('use remember_fact with {"content": "Hates coffee"}'));
    await waitFor(() => expect(result.current.pendingApprovals).toHaveLength(1));
    const { toolCallId } = result.current.pendingApprovals[0]!;
    await act(() => result.current.deny(toolCallId, 'not now'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(toolPart(result.current.messages.at(-1))).toMatchObject({
      props: { status: 'denied', error: expect.stringContaining('reason: not now') as unknown },
    });
    await expect(result.current.approve(toolCallId)).rejects.toMatchObject({ status: 409 });
  });

  it('a waiting call survives a reload: a new mount gets it back from the run and can decide it', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet, 'reload');
    const first = renderHook(() => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError }), {
      wrapper: providerFor(app, wallet),
    });
    await waitFor(() =>
      expect(first.result.current.isConfigReady && !first.result.current.isLoading).toBe(true),
    );
    act(() => first.result.current.sendMessage('use remember_fact with {"content": "Grows maize"}'));
    await waitFor(() => expect(first.result.current.pendingApprovals).toHaveLength(1));
    const { toolCallId } = first.result.current.pendingApprovals[0]!;
    first.unmount();

    // A new provider: what a page reload starts from.
    const again = renderHook(() => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError }), {
      wrapper: providerFor(app, wallet),
    });
    await waitFor(() =>
      expect(again.result.current.pendingApprovals.map((a) => a.toolCallId)).toEqual([toolCallId]),
    );
    await act(() => again.result.current.approve(toolCallId));
    await waitFor(() => expect(again.result.current.status).toBe('ready'));
    expect(toolPart(again.result.current.messages.at(-1))).toMatchObject({ props: { status: 'done' } });
  });

  it('renderMessageContent draws the waiting call as a card whose Approve button decides it', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet, 'card');
    const sent: { current: ((m: string) => void) | undefined } = { current: undefined };
    renderChat(app, wallet, sessionId, (chat) => (sent.current = chat.sendMessage));
    await waitFor(() => expect(sent.current).toBeDefined());
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
    act(() => sent.current?.('use remember_fact with {"content": "Reads at night"}'));
    const approve = await screen.findByRole('button', { name: 'Approve' });
    expect(screen.getByText(/remember_fact wants to run with \{"content":"Reads at night"\}/)).toBeTruthy();
    fireEvent.click(approve);
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(screen.getByText('[remember_fact: done]')).toBeTruthy();
  });

  it("after a reload, history alone draws the waiting call, before the run is re-joined, and its card's Approve decides it", async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet, 'history card');
    const first = renderHook(() => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError }), {
      wrapper: providerFor(app, wallet),
    });
    await waitFor(() =>
      expect(first.result.current.isConfigReady && !first.result.current.isLoading).toBe(true),
    );
    act(() => first.result.current.sendMessage('use remember_fact with {"content": "Keeps bees"}'));
    await waitFor(() => expect(first.result.current.pendingApprovals).toHaveLength(1));
    first.unmount();

    // The reloaded page's look at the run (GET /sessions/:id/run) is held back: what it shows comes from history.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const heldRuns: string[] = [];
    const realFetch = globalThis.fetch;
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (new URL(url).pathname === `/sessions/${sessionId}/run` && (init?.method ?? 'GET') === 'GET') {
        heldRuns.push(url);
        await held;
      }
      return realFetch(input, init);
    });
    try {
      let messages: IMessage[] = [];
      renderChat(app, wallet, sessionId, (chat) => (messages = chat.messages));
      const approve = await screen.findByRole('button', { name: 'Approve' });
      expect(heldRuns).toHaveLength(1);
      expect(screen.getByText(/remember_fact wants to run with \{"content":"Keeps bees"\}/)).toBeTruthy();
      expect(messages.map((m) => m.type)).toEqual(['human', 'ai']);
      expect(messages[1]?.isComplete).toBe(false);
      fireEvent.click(approve);
      await waitFor(() =>
        expect(screen.getByRole('button', { name: 'Approve' })).toHaveProperty('disabled', true),
      );
      expect(screen.queryByText(/decided already/)).toBeNull();
      release();
      // The run, re-joined, rebuilds the answer in its place: one answer, the tool done.
      await waitFor(() => expect(screen.getByText('[remember_fact: done]')).toBeTruthy());
      await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
      expect(messages.map((m) => m.type)).toEqual(['human', 'ai']);
      // Nothing of history's snapshot is left on it (its calls, one of them waiting).
      expect(messages[1]?.toolCalls?.map((c) => c.status) ?? []).not.toContain('awaiting_approval');
      expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    } finally {
      release();
      spy.mockRestore();
    }
  });

  it('a browser tool with needsApproval waits in pendingApprovals: denied, fn does not run and the agent reads why; approved, it runs', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet, 'browser');
    const ran: string[] = [];
    const browserTools: BrowserTools = {
      pageTitle: {
        toolName: 'pageTitle',
        description: 'Title of the page',
        schema: z.object({}),
        fn: () => {
          ran.push('pageTitle');
          return 'My page';
        },
        needsApproval: true,
      },
    };
    const { result } = renderHook(
      () => useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError, browserTools }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    act(() => result.current.sendMessage('use pageTitle'));
    await waitFor(() => expect(result.current.pendingApprovals).toHaveLength(1));
    expect(result.current.pendingApprovals[0]).toMatchObject({ toolName: 'pageTitle', args: {} });
    expect(toolPart(result.current.messages.at(-1))).toMatchObject({
      props: { status: 'awaiting_approval' },
    });
    await act(() => result.current.deny(result.current.pendingApprovals[0]!.toolCallId, 'private'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(ran).toEqual([]);
    expect(result.current.pendingApprovals).toEqual([]);
    expect(toolPart(result.current.messages.at(-1))).toMatchObject({
      props: { error: 'The user declined to run pageTitle (reason: private).' },
    });

    act(() => result.current.sendMessage('use pageTitle'));
    await waitFor(() => expect(result.current.pendingApprovals).toHaveLength(1));
    await act(() => result.current.approve(result.current.pendingApprovals[0]!.toolCallId));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(ran).toEqual(['pageTitle']);
    expect(toolPart(result.current.messages.at(-1))).toMatchObject({ props: { status: 'done' } });
  });
});

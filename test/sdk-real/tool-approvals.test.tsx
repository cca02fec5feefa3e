import {
  renderMessageContent,
  useChat,
  type BrowserTools,
  type IMessage,
} from '@open-oracles/oracles-client-sdk';
import { z } from 'zod';
import { act, fireEvent, render, renderHook, screen, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import {
  newSession,
  ORACLE_DID,
  providerFor,
  realWallet,
  startRealOracle,
} from '../helpers/sdk-real/real-oracle.js';

/** The tool-call part of an AI message, as the chat shows it. */
const onPaymentRequiredError = (): void => undefined;

const toolPart = (m: IMessage | undefined) =>
  (Array.isArray(m?.content) ? m.content : []).find((p) => typeof p !== 'string');

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
    function Chat() {
      const chat = useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError });
      sent.current = chat.sendMessage;
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

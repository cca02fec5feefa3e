import {
  DefaultToolCall,
  renderMessageContent,
  useAgAction,
  useChat,
  type UIComponents,
} from '@open-oracles/oracles-client-sdk';
import { act, render, renderHook, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { mockOracle, providerFor, session, withMockServer } from './harness.js';
import { textOf } from '../message-text.js';

withMockServer();

describe('useChat against the mocked oracle', () => {
  it('resolves the config through the chain, loads history, streams an answer and lands in ready', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      history: {
        ses_1: [
          { id: 'h1', type: 'human', content: 'earlier' },
          { id: 'a1', type: 'ai', content: 'before' },
        ],
      },
      script: [
        { type: 'reasoning', text: 'Thinking about it.' },
        { type: 'text', text: 'Hello there, friend.' },
      ],
    });
    const onPaymentRequiredError = vi.fn();
    const statuses: string[] = [];
    const { result } = renderHook(
      () => {
        const chat = useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError,
        });
        if (statuses.at(-1) !== chat.status) statuses.push(chat.status);
        return chat;
      },
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.messages).toHaveLength(2));
    expect(result.current.isConfigReady).toBe(true);
    expect(result.current.isLoading).toBe(false);
    expect(result.current.messages.map(textOf)).toEqual(['earlier', 'before']);

    act(() => result.current.sendMessage('Hi'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    const answer = result.current.messages.at(-1);
    expect(textOf(answer)).toBe('Hello there, friend.');
    expect(answer?.reasoning).toBe('Thinking about it.');
    expect(answer?.id).toBe(oracle.control.latestRun('ses_1')?.requestId);
    expect(result.current.run).toMatchObject({ ended: 'finished', reconnecting: false, resumed: false });
    expect(statuses).toEqual(['ready', 'submitted', 'streaming', 'ready']);
    expect(result.current.sendMessageError).toBeUndefined();
    expect(onPaymentRequiredError).not.toHaveBeenCalled();
  });

  it('sends the auth headers of spec §5 C on every request and the same artifacts in the socket handshake', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      requireInvocation: true,
      script: [{ type: 'text', text: 'ok' }],
    });
    const { result } = renderHook(
      () =>
        useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError: vi.fn() }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    act(() => result.current.sendMessage('Hi'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(oracle.control.requests.length).toBeGreaterThan(1);
    for (const r of oracle.control.requests) {
      expect(r.headers['authorization']).toMatch(/^Bearer invocation-/);
      expect(r.headers['x-auth-type']).toBe('ucan');
      expect(r.headers['x-ucan-delegation']).toMatch(/^delegation-/);
    }
    const handshake = oracle.control.handshakes.at(-1);
    expect(handshake?.query).toMatchObject({ sessionId: 'ses_1', userDid: 'did:key:z6MkUser' });
    expect(handshake?.auth?.['invocation']).toMatch(/^invocation-/);
    expect(handshake?.auth?.['ucanDelegation']).toMatch(/^delegation-/);
  });

  it('runs a browser tool from the socket with parsed args and sends the result back', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [
        { type: 'browser_tool_call', toolName: 'pageTitle', args: { upper: true } },
        { type: 'text', text: 'Done.' },
      ],
    });
    document.title = 'Demo page';
    const fn = vi.fn(({ upper }: { upper: boolean }) =>
      Promise.resolve(upper ? document.title.toUpperCase() : document.title),
    );
    const uiComponents: UIComponents = {
      ToolCall: ({ toolName, status }: { toolName: string; status?: string }) => (
        <i>{`${toolName}:${status}`}</i>
      ),
    };
    function Chat() {
      const chat = useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'ses_1',
        onPaymentRequiredError: vi.fn(),
        uiComponents,
        browserTools: {
          pageTitle: {
            toolName: 'pageTitle',
            description: 'The page title',
            schema: z.object({ upper: z.boolean() }),
            fn,
          },
        },
      });
      return (
        <div>
          <span data-testid="status">{chat.status}</span>
          <span data-testid="rt">{String(chat.isRealTimeConnected)}</span>
          <button onClick={() => chat.sendMessage('title?')}>send</button>
          {chat.messages.map((m) => (
            <p key={m.id}>{renderMessageContent(m.content, uiComponents)}</p>
          ))}
        </div>
      );
    }
    render(<Chat />, { wrapper: providerFor(oracle) });
    await waitFor(() => expect(screen.getByTestId('rt').textContent).toBe('true'));
    act(() => screen.getByText('send').click());
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenCalledWith({ upper: true });
    expect(oracle.control.toolResults).toEqual([
      { toolCallId: expect.stringMatching(/^btc_/), result: 'DEMO PAGE' },
    ]);
    expect(screen.getByText('pageTitle:done')).toBeTruthy();
    const sent = oracle.control.requests.find((r) => r.method === 'POST' && r.path === '/messages/ses_1');
    expect((sent?.body as { tools: unknown[] }).tools).toEqual([
      {
        name: 'pageTitle',
        description: 'The page title',
        schema: {
          type: 'object',
          properties: { upper: { type: 'boolean' } },
          required: ['upper'],
          additionalProperties: false,
        },
      },
    ]);
  });

  it('answers bad browser-tool arguments with an error result, never a throw', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [{ type: 'browser_tool_call', toolName: 'pageTitle', args: { upper: 'yes' } }],
    });
    const fn = vi.fn();
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
          browserTools: {
            pageTitle: {
              toolName: 'pageTitle',
              description: 'd',
              schema: z.object({ upper: z.boolean() }),
              fn,
            },
          },
        }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    act(() => result.current.sendMessage('go'));
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(fn).not.toHaveBeenCalled();
    expect(oracle.control.toolResults).toEqual([
      {
        toolCallId: expect.any(String),
        result: null,
        error: 'Invalid arguments for browser tool "pageTitle": upper: Expected boolean, received string',
      },
    ]);
  });

  it('runs an agent-UI action, renders it inline with its latest render, and reports the result', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      script: [
        { type: 'action_call', toolName: 'highlight', args: { cardId: 'c7' } },
        { type: 'text', text: 'Highlighted.' },
      ],
    });
    const handler = vi.fn(({ cardId }: { cardId: string }) => Promise.resolve({ highlighted: cardId }));
    function Chat({ label }: { label: string }) {
      useAgAction({
        name: 'highlight',
        description: 'Highlights a card',
        parameters: z.object({ cardId: z.string() }),
        handler,
        render: ({ status, args }) => <b>{`${label} ${args.cardId ?? ''} ${status}`}</b>,
      });
      const chat = useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'ses_1',
        onPaymentRequiredError: vi.fn(),
      });
      return (
        <div>
          <span data-testid="status">{chat.status}</span>
          <span data-testid="rt">{String(chat.isRealTimeConnected)}</span>
          <button onClick={() => chat.sendMessage('highlight c7')}>send</button>
          {chat.messages.map((m) => (
            <p key={m.id}>{renderMessageContent(m.content)}</p>
          ))}
        </div>
      );
    }
    const wrapper = providerFor(oracle);
    const view = render(<Chat label="first" />, { wrapper });
    await waitFor(() => expect(screen.getByTestId('rt').textContent).toBe('true'));
    view.rerender(<Chat label="latest" />);
    act(() => screen.getByText('send').click());
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
    expect(handler).toHaveBeenCalledWith({ cardId: 'c7' });
    expect(oracle.control.actionResults).toEqual([
      { toolCallId: expect.stringMatching(/^act_/), sessionId: 'ses_1', result: { highlighted: 'c7' } },
    ]);
    expect(screen.getByText('latest c7 done')).toBeTruthy();
    const sent = oracle.control.requests.find((r) => r.method === 'POST' && r.path === '/messages/ses_1');
    expect((sent?.body as { agActions: unknown[] }).agActions).toEqual([
      expect.objectContaining({ name: 'highlight', description: 'Highlights a card', hasRender: true }),
    ]);
  });

  it('calls onPaymentRequiredError with the claim ids of a 402 and lands in error', async () => {
    const oracle = mockOracle({ sessions: [session()], paymentRequired: ['claim-1', 'claim-2'] });
    const onPaymentRequiredError = vi.fn();
    const { result } = renderHook(
      () => useChat({ oracleDid: oracle.control.oracleDid, sessionId: 'ses_1', onPaymentRequiredError }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    act(() => result.current.sendMessage('Hi'));
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(onPaymentRequiredError).toHaveBeenCalledWith(['claim-1', 'claim-2']);
    expect(result.current.sendMessageError?.message).toBe('Your credits do not cover this turn.');
    expect(result.current.error).toBeUndefined();
  });
});

describe('useChat with overrides', () => {
  it('two hooks of the same session on two servers (overrides.baseUrl) each talk to their own', async () => {
    const here = mockOracle({
      apiUrl: 'http://here.test',
      sessions: [session()],
      history: { ses_1: [{ id: 'h1', type: 'human', content: 'said here' }] },
      script: [{ type: 'text', text: 'from here' }],
    });
    mockOracle({
      apiUrl: 'http://there.test',
      sessions: [session()],
      history: { ses_1: [{ id: 't1', type: 'human', content: 'said there' }] },
      script: [{ type: 'text', text: 'from there' }],
    });
    const oracleDid = here.control.oracleDid;
    const { result } = renderHook(
      () => ({
        here: useChat({
          oracleDid,
          sessionId: 'ses_1',
          overrides: { baseUrl: 'http://here.test' },
          onPaymentRequiredError: vi.fn(),
        }),
        there: useChat({
          oracleDid,
          sessionId: 'ses_1',
          overrides: { baseUrl: 'http://there.test' },
          onPaymentRequiredError: vi.fn(),
        }),
      }),
      { wrapper: providerFor(here, { chainRestUrl: undefined }) },
    );
    await waitFor(() => expect(result.current.there.messages.map(textOf)).toEqual(['said there']));
    expect(result.current.here.messages.map(textOf)).toEqual(['said here']);
    act(() => result.current.there.sendMessage('Hi'));
    await waitFor(() => expect(textOf(result.current.there.messages.at(-1))).toBe('from there'));
    await waitFor(() => expect(result.current.there.status).toBe('ready'));
    expect(result.current.here.messages.map(textOf)).toEqual(['said here']);
  });
});

describe('the default tool-call line', () => {
  // Issue 35: it was an inline span glued to the answer's text ("TRIAL CHAT[pageTitle: done]").
  it('sits on a line of its own, apart from the text, and stays valid inside a <p>', () => {
    const { container } = render(
      <p>
        TRIAL CHAT
        <DefaultToolCall id="c1" toolName="pageTitle" args={{}} status="done" />
      </p>,
    );
    const line = container.querySelector<HTMLElement>('[data-oracle-part="tool-call"]');
    expect(line?.tagName).toBe('SPAN');
    expect(line?.style.display).toBe('block');
    expect(line?.textContent).toBe('[pageTitle: done]');
  });
});

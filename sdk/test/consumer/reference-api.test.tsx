// A drop-in for apps on the published reference SDK (@ixo/oracles-client-sdk 1.4.0): this file is written
// against that package's public API (its provider props, hooks and return fields, facts §11) as such an app
// uses them; only the import line below was changed. Deliberate differences are named in sdk/README.md
// ("Moving from @ixo/oracles-client-sdk 1.4.0") and asserted at the end.
import {
  OraclesProvider,
  renderMessageContent,
  useAgAction,
  useChat,
  useModels,
  useOracleSessions,
  useOraclesConfig,
  useOraclesContext,
} from '@open-oracles/oracles-client-sdk'; // was: from '@ixo/oracles-client-sdk'
import { QueryClient } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import { useState, type ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { mockOracle, session, withMockServer } from './harness.js';

withMockServer();

const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('an app written for reference SDK 1.4.0', () => {
  it('runs unchanged: queryClient prop, overrides, useChat options and return fields, resumeRun, detachStream', async () => {
    const oracle = mockOracle({
      sessions: [session()],
      stepDelayMs: 2,
      script: ({ body }) =>
        body.message === 'long'
          ? [{ type: 'text', text: words(120) }]
          : [
              { type: 'text', text: 'Here is the card. ' },
              { type: 'render_component', componentName: 'WeatherCard', args: { city: 'Nairobi' } },
            ],
    });
    const overrides = { baseUrl: oracle.control.apiUrl, wsUrl: oracle.control.wsUrl };
    const queryClient = new QueryClient();
    const uiComponents = { WeatherCard: ({ city }: { city: string }) => <b>{`card ${city}`}</b> };
    let api: ReturnType<typeof useChat> | undefined;

    function Chat({ oracleDid, sessionId }: { oracleDid: string; sessionId: string }): ReactNode {
      const [claims, setClaims] = useState<string[]>([]);
      const { models } = useModels(oracleDid, overrides);
      const { isConfigReady } = useOraclesConfig(oracleDid, overrides);
      useOracleSessions(oracleDid);
      useAgAction({
        name: 'noop',
        description: 'does nothing',
        parameters: z.object({}),
        handler: () => Promise.resolve({ ok: true }),
      });
      const chat = useChat({
        oracleDid,
        sessionId,
        overrides,
        onPaymentRequiredError: setClaims,
        uiComponents,
        streamingMode: 'batched',
        streamingThrottleMs: 30,
        historyPageSize: 10,
        model: models[0]?.id,
        browserTools: {},
      });
      api = chat;
      const {
        messages,
        sendMessage,
        abortStream,
        status,
        isSending,
        isLoading,
        error,
        sendMessageError,
        refetchMessages,
        isRealTimeConnected,
        isConfigReady: chatReady,
        run,
        resumeRun,
        detachStream,
      } = chat;
      void [abortStream, isSending, isLoading, error, refetchMessages, resumeRun, detachStream];
      return (
        <div>
          <span data-testid="ready">{String(isConfigReady && chatReady && isRealTimeConnected)}</span>
          <span data-testid="status">{status}</span>
          <span data-testid="run">{run.ended ?? 'none'}</span>
          <span>{sendMessageError?.message}</span>
          <span>{claims.join(',')}</span>
          <button onClick={() => sendMessage('weather', { spaceId: 'space-1' })}>send</button>
          {messages.map((m) => (
            <p key={m.id} data-testid={m.type}>
              {renderMessageContent(m.content, uiComponents)}
            </p>
          ))}
        </div>
      );
    }
    function Wallet({ children }: { children: ReactNode }): ReactNode {
      const { wallet } = useOraclesContext();
      return <div data-did={wallet.did}>{children}</div>;
    }
    render(
      <OraclesProvider
        initialWallet={{
          address: 'ixo1user',
          did: 'did:key:z6MkRefUser',
          matrix: { accessToken: 'syt_x', homeServer: 'http://matrix.test' },
        }}
        transactSignX={() => Promise.resolve({ transactionHash: 'AB' })}
        createDelegation={(oracleDid) =>
          Promise.resolve({
            serialized: `d-${oracleDid}`,
            expiresAt: Date.now() + 3_600_000,
          })
        }
        createInvocation={(oracleDid) =>
          Promise.resolve({
            serialized: `i-${oracleDid}`,
            expiresAt: Date.now() + 600_000,
          })
        }
        queryClient={queryClient}
      >
        <Wallet>
          <Chat oracleDid={oracle.control.oracleDid} sessionId="ses_1" />
        </Wallet>
      </OraclesProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('ready').textContent).toBe('true'));
    act(() => screen.getByText('send').click());
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
    expect(screen.getByTestId('ai').textContent).toBe('Here is the card. card Nairobi');
    const sent = oracle.control.requests.find((r) => r.method === 'POST' && r.path === '/messages/ses_1');
    expect(sent?.body).toMatchObject({
      message: 'weather',
      metadata: { spaceId: 'space-1' },
      model: 'scripted',
    });
    expect(sent?.headers).toMatchObject({
      'x-ucan-delegation': `d-${oracle.control.oracleDid}`,
      'x-auth-type': 'ucan',
    });
    // The app's QueryClient holds the server state (its devtools show it).
    expect(queryClient.getQueryCache().getAll().length).toBeGreaterThan(0);

    // detachStream stops reading while the run goes on; resumeRun re-joins it and it ends in full.
    act(() => api?.sendMessage('long'));
    await waitFor(() => expect(api?.status).toBe('streaming'));
    act(() => api?.detachStream());
    expect(api?.status).toBe('ready');
    expect(oracle.control.latestRun('ses_1')?.ended).toBe(false);
    await act(() => api!.resumeRun());
    await waitFor(() => expect(api?.run.ended).toBe('finished'));
    const answer = api?.messages.at(-1)?.content;
    expect(answer).toBe(words(120));
    expect(api?.run).toMatchObject({ reconnecting: false, resumed: false });
  });

  it('deliberate differences, named: config resolution, the zod major, the streaming default, reasoning', async () => {
    // 1. Config resolution reads the chain gateway's REST entity route (`chainRestUrl`), not a GraphQL
    //    indexer named by BLOCKSYNC_GRAPHQL_URL: without either a chain URL or overrides the hooks say so.
    const oracle = mockOracle({
      sessions: [session()],
      script: [
        { type: 'reasoning', text: 'Thinking.' },
        { type: 'text', text: 'Answer.' },
      ],
    });
    const wallet = { address: 'a', did: 'did:key:z6MkRef2', matrix: { accessToken: '', homeServer: '' } };
    const props = {
      initialWallet: wallet,
      transactSignX: () => Promise.resolve('tx'),
      createDelegation: () => Promise.resolve({ serialized: 'd', expiresAt: Date.now() + 3_600_000 }),
    };
    let chat: ReturnType<typeof useChat> | undefined;
    function Probe({ withOverrides }: { withOverrides: boolean }): ReactNode {
      chat = useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'ses_1',
        onPaymentRequiredError: vi.fn(),
        ...(withOverrides ? { overrides: { baseUrl: oracle.control.apiUrl } } : {}),
      });
      return null;
    }
    const view = render(
      <OraclesProvider {...props}>
        <Probe withOverrides={false} />
      </OraclesProvider>,
    );
    expect(chat?.error?.message).toMatch(/set chainRestUrl .* or overrides\.baseUrl/);
    view.rerender(
      <OraclesProvider {...props}>
        <Probe withOverrides />
      </OraclesProvider>,
    );
    await waitFor(() => expect(chat?.isLoading).toBe(false));
    // 2. `streamingMode` defaults to 'batched' (the reference's code default is 'immediate').
    // 3. Reasoning is a field of the answer message (`reasoning`), not a message of its own.
    act(() => chat?.sendMessage('hi'));
    await waitFor(() => expect(chat?.status).toBe('ready'));
    expect(chat?.messages.at(-1)).toMatchObject({ type: 'ai', content: 'Answer.', reasoning: 'Thinking.' });
    expect(chat?.messages.filter((m) => m.type === 'ai')).toHaveLength(1);
    // 4. zod 3 (spec C5) where the reference peers zod ^4.4.3: checked in sdk/test/exports.test.ts.
  });
});

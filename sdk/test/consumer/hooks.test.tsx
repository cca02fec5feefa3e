import {
  getOpenIdToken,
  OraclesProvider,
  renderMessageContent,
  useAgAction,
  useChat,
  useContractOracle,
  useGetOpenIdToken,
  useMemoryEngine,
  useModels,
  useOracleSessions,
  useOraclesConfig,
  useOraclesContext,
  type UIComponents,
} from '@open-oracles/oracles-client-sdk';
import { act, render, renderHook, screen, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { mockOracle, providerFor, session, wallet, withMockServer } from './harness.js';

withMockServer();

const OUTSIDE = 'useOraclesContext must be used within a OraclesProvider';

describe('every hook needs the provider', () => {
  const hooks: Record<string, () => unknown> = {
    useOraclesContext: () => useOraclesContext(),
    useChat: () =>
      useChat({ oracleDid: 'did:ixo:entity:x', sessionId: 's', onPaymentRequiredError: () => undefined }),
    useAgAction: () =>
      useAgAction({ name: 'a', description: 'd', parameters: z.object({}), handler: () => null }),
    useOracleSessions: () => useOracleSessions('did:ixo:entity:x'),
    useOraclesConfig: () => useOraclesConfig('did:ixo:entity:x'),
    useContractOracle: () => useContractOracle(),
    useMemoryEngine: () => useMemoryEngine(),
    useGetOpenIdToken: () => useGetOpenIdToken(),
    useModels: () => useModels('did:ixo:entity:x'),
  };
  for (const [name, hook] of Object.entries(hooks)) {
    it(`${name} outside OraclesProvider throws exactly the spec's message`, () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      expect(() => renderHook(hook)).toThrow(new Error(OUTSIDE));
    });
  }
});

describe('useOraclesConfig', () => {
  it('resolves apiUrl and wsUrl from the chain IID document, then reads /config', async () => {
    const oracle = mockOracle({ apiUrl: 'http://api.oracle.test', wsUrl: 'http://ws.oracle.test' });
    const { result } = renderHook(() => useOraclesConfig(oracle.control.oracleDid), {
      wrapper: providerFor(oracle),
    });
    await waitFor(() => expect(result.current.isConfigReady).toBe(true));
    expect(result.current.apiUrl).toBe('http://api.oracle.test');
    expect(result.current.wsUrl).toBe('http://ws.oracle.test');
    expect(result.current.config).toMatchObject({
      name: 'Mock oracle',
      model: 'scripted',
      price: { amount: 0 },
    });
    expect(result.current.error).toBeUndefined();
  });

  it('lets overrides win', async () => {
    const oracle = mockOracle({ apiUrl: 'http://local.test' });
    const { result } = renderHook(
      () =>
        useOraclesConfig('did:ixo:entity:elsewhere', {
          baseUrl: 'http://local.test',
          wsUrl: 'http://ws.local.test',
        }),
      { wrapper: providerFor(oracle, { chainRestUrl: undefined }) },
    );
    await waitFor(() => expect(result.current.isConfigReady).toBe(true));
    expect(result.current.apiUrl).toBe('http://local.test');
    expect(result.current.wsUrl).toBe('http://ws.local.test');
  });

  it('names what is missing, without throwing, when neither a chain URL nor a base URL is set', () => {
    const oracle = mockOracle();
    const { result } = renderHook(() => useOraclesConfig(oracle.control.oracleDid), {
      wrapper: providerFor(oracle, { chainRestUrl: undefined }),
    });
    expect(result.current).toMatchObject({ isConfigReady: false, apiUrl: undefined });
    expect(result.current.error?.message).toBe(
      'Cannot find the oracle did:ixo:entity:mock-oracle: set chainRestUrl (where its DID is looked up) or overrides.baseUrl on OraclesProvider, or pass overrides to the hook',
    );
  });

  it('reports an unknown oracle as an error', async () => {
    const oracle = mockOracle();
    const { result } = renderHook(() => useOraclesConfig('did:ixo:entity:unknown'), {
      wrapper: providerFor(oracle),
    });
    await waitFor(() => expect(result.current.error).toBeDefined());
    expect(result.current.isConfigReady).toBe(false);
  });
});

describe('useOracleSessions', () => {
  it('lists in pages, creates and deletes, refreshing the list each time', async () => {
    const sessions = Array.from({ length: 25 }, (_, i) => session(`ses_${i}`));
    const oracle = mockOracle({ sessions });
    const { result } = renderHook(() => useOracleSessions(oracle.control.oracleDid), {
      wrapper: providerFor(oracle),
    });
    await waitFor(() => expect(result.current.sessions).toHaveLength(20));
    expect(result.current).toMatchObject({ total: 25, hasNextPage: true });
    act(() => result.current.fetchNextPage());
    await waitFor(() => expect(result.current.sessions).toHaveLength(25));
    expect(result.current.hasNextPage).toBe(false);

    let created = '';
    await act(async () => {
      created = (await result.current.createSession('Trip')).sessionId;
    });
    await waitFor(() => expect(result.current.total).toBe(26));
    expect(result.current.sessions[0]).toMatchObject({ sessionId: created, title: 'Trip' });

    await act(() => result.current.deleteSession(created));
    await waitFor(() => expect(result.current.total).toBe(25));
    expect(result.current.sessions.some((s) => s.sessionId === created)).toBe(false);
  });

  it('refreshes after a chat turn (the session gets a title)', async () => {
    const oracle = mockOracle({ sessions: [session()], script: [{ type: 'text', text: 'hi' }] });
    const { result } = renderHook(
      () => ({
        sessions: useOracleSessions(oracle.control.oracleDid),
        chat: useChat({
          oracleDid: oracle.control.oracleDid,
          sessionId: 'ses_1',
          onPaymentRequiredError: vi.fn(),
        }),
      }),
      { wrapper: providerFor(oracle) },
    );
    await waitFor(() => expect(result.current.sessions.sessions).toHaveLength(1));
    expect(result.current.sessions.sessions[0]?.title).toBe('New chat');
    act(() => result.current.chat.sendMessage('Plan a trip'));
    await waitFor(() => expect(result.current.sessions.sessions[0]?.title).toBe('Plan a trip'));
  });
});

describe('useContractOracle', () => {
  it('pays payTo through transactSignX with a bank MsgSend whose memo carries the payment reference, then reports the tx hash', async () => {
    const oracle = mockOracle({ paymentRequired: ['claim-9'] });
    const transactSignX = vi.fn(() => Promise.resolve({ txHash: 'A1B2C3D4E5F60718' }));
    const { result } = renderHook(() => useContractOracle(), {
      wrapper: providerFor(oracle, { transactSignX }),
    });
    let paid: Awaited<ReturnType<typeof result.current.contractOracle>> | undefined;
    await act(async () => {
      paid = await result.current.contractOracle({
        oracleDid: oracle.control.oracleDid,
        amount: '5000',
        memo: 'credits',
      });
    });
    expect(transactSignX).toHaveBeenCalledWith(
      [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: {
            fromAddress: wallet.address,
            toAddress: 'ixo1mockoraclepayto',
            amount: [{ denom: 'uixo', amount: '5000' }],
          },
        },
      ],
      // The oracle's payment reference for the user first (it binds the payment to them), then the app's words.
      'pay_00000000000000000000000000000000 credits',
    );
    expect(oracle.control.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/credits/payments',
      body: { txHash: 'A1B2C3D4E5F60718', amount: { denom: 'uixo', amount: '5000' } },
    });
    expect(paid).toEqual({ txHash: 'A1B2C3D4E5F60718', balance: 105, settledClaims: ['claim-9'] });
    expect(result.current.isContracting).toBe(false);
  });

  it('reports a wallet that returns no transaction hash', async () => {
    const oracle = mockOracle();
    const { result } = renderHook(() => useContractOracle(), {
      wrapper: providerFor(oracle, { transactSignX: () => Promise.resolve({ code: 0 }) }),
    });
    await act(async () => {
      await expect(
        result.current.contractOracle({ oracleDid: oracle.control.oracleDid, amount: 1 }),
      ).rejects.toThrow('transactSignX returned no transaction hash');
    });
    expect(result.current.error?.message).toBe('transactSignX returned no transaction hash');
  });
});

describe('useMemoryEngine, useModels, OpenID', () => {
  it('remembers, lists and forgets through the memory routes', async () => {
    const oracle = mockOracle();
    const { result } = renderHook(() => useMemoryEngine(), { wrapper: providerFor(oracle) });
    const did = oracle.control.oracleDid;
    const m = await result.current.remember(did, { content: 'Prefers metric units', tags: ['units'] });
    expect(m).toMatchObject({ content: 'Prefers metric units', tags: ['units'] });
    expect((await result.current.listMemories(did, { q: 'units' })).memories.map((x) => x.id)).toEqual([
      m.id,
    ]);
    await result.current.forget(did, m.id);
    expect((await result.current.listMemories(did)).total).toBe(0);
  });

  it('lists the models and the default', async () => {
    const oracle = mockOracle();
    const { result } = renderHook(() => useModels(oracle.control.oracleDid), {
      wrapper: providerFor(oracle),
    });
    await waitFor(() => expect(result.current.models).toHaveLength(1));
    expect(result.current.defaultModel).toBe('scripted');
  });

  it('mints a messaging-server OpenID token with the wallet session', async () => {
    const oracle = mockOracle();
    const { result } = renderHook(() => useGetOpenIdToken(), { wrapper: providerFor(oracle) });
    await waitFor(() => expect(result.current.openIdToken).toBeDefined());
    expect(result.current.openIdToken).toMatchObject({
      access_token: 'mock-openid-token',
      matrix_server_name: 'matrix.test',
    });
    await expect(getOpenIdToken({ homeServer: 'http://matrix.test', accessToken: '' })).rejects.toThrow(
      /M_MISSING_TOKEN/,
    );
  });
});

describe('rendering', () => {
  it('renders components through uiComponents; unknown names render nothing and warn once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const oracle = mockOracle({
      sessions: [session()],
      script: [
        {
          type: 'render_component',
          componentName: 'WeatherCard',
          args: { city: 'Nairobi', temperature: 24 },
        },
        { type: 'render_component', componentName: 'Mystery', args: {} },
        { type: 'render_component', componentName: 'Mystery', args: {} },
        { type: 'text', text: 'Shown.' },
      ],
    });
    const uiComponents: UIComponents = {
      WeatherCard: ({ city, temperature }: { city: string; temperature: number }) => (
        <em>{`${city} ${temperature}°`}</em>
      ),
    };
    function Chat(): ReactNode {
      const chat = useChat({
        oracleDid: oracle.control.oracleDid,
        sessionId: 'ses_1',
        onPaymentRequiredError: vi.fn(),
        uiComponents,
      });
      return (
        <div>
          <span data-testid="status">{chat.status}</span>
          <button onClick={() => chat.sendMessage('weather')}>send</button>
          {chat.messages.map((m) => (
            <p key={m.id} data-testid={m.type}>
              {renderMessageContent(m.content, uiComponents)}
            </p>
          ))}
        </div>
      );
    }
    render(<Chat />, { wrapper: providerFor(oracle) });
    await waitFor(() => expect(screen.getByText('send')).toBeTruthy());
    await act(() => new Promise((r) => setTimeout(r, 20)));
    act(() => screen.getByText('send').click());
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
    expect(screen.getByText('Nairobi 24°')).toBeTruthy();
    // The text first, then the parts in order: the layout history gives after a reload.
    expect(screen.getByTestId('ai').textContent).toBe('Shown.Nairobi 24°');
    expect(warn.mock.calls.filter(([m]) => String(m).includes('"Mystery"'))).toHaveLength(1);
  });

  it('renderMessageContent needs no provider for plain content', () => {
    render(
      <p>
        {renderMessageContent(['a', { name: 'X', props: { id: '1', args: { v: 2 } } }], {
          X: ({ v }: { v: number }) => <b>{v}</b>,
        })}
      </p>,
    );
    expect(screen.getByText('2').tagName).toBe('B');
  });
});

describe('the provider', () => {
  it('keeps one token cache for its life: re-renders with new callbacks reuse the minted delegation', async () => {
    const oracle = mockOracle({ sessions: [session()], script: [{ type: 'text', text: 'x' }] });
    const createDelegation = vi.fn((did: string) =>
      Promise.resolve({ serialized: `d-${did}`, expiresAt: Date.now() + 3_600_000 }),
    );
    function App({ n }: { n: number }) {
      return (
        <OraclesProvider
          initialWallet={wallet}
          transactSignX={() => Promise.resolve(`tx${n}`)}
          createDelegation={(did) => createDelegation(did)}
          chainRestUrl={oracle.control.chainRestUrl}
        >
          <Sessions />
        </OraclesProvider>
      );
    }
    function Sessions() {
      const { sessions, refetch } = useOracleSessions(oracle.control.oracleDid);
      return <button onClick={() => void refetch()}>{sessions.length}</button>;
    }
    const view = render(<App n={1} />);
    await waitFor(() => expect(screen.getByRole('button').textContent).toBe('1'));
    view.rerender(<App n={2} />);
    act(() => screen.getByRole('button').click());
    await waitFor(() =>
      expect(oracle.control.requests.filter((r) => r.path === '/sessions')).toHaveLength(2),
    );
    expect(createDelegation).toHaveBeenCalledTimes(1);
  });
});

import {
  OracleRequestError,
  useChat,
  useContractOracle,
  useMemoryEngine,
  useOraclesConfig,
  useOraclesContext,
} from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_PAY_TO_ADDRESS } from '../../server/oracle/plugins/credits/index.js';
import type { TestApp } from '../helpers/app.js';
import { transactOnChain } from '../helpers/chain-tx.js';
import {
  newSession,
  ORACLE_DID,
  providerFor,
  realWallet,
  startRealOracle,
} from '../helpers/sdk-real/real-oracle.js';

describe('plugins and capability tokens: the SDK against the real service', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startRealOracle({
      ORACLE_FEATURES: 'memory,credits',
      CREDITS_INITIAL_BALANCE: '1',
      CREDITS_PRICE_PER_TURN: '1',
    });
  });
  afterAll(() => app.close());

  it("useMemoryEngine remembers, lists and forgets through the memory plugin's routes", async () => {
    const wallet = await realWallet();
    const { result } = renderHook(() => useMemoryEngine(), { wrapper: providerFor(app, wallet) });
    const memory = await result.current.remember(ORACLE_DID, {
      content: 'Grows maize near Kisumu',
      tags: ['farm'],
    });
    expect(memory).toMatchObject({ content: 'Grows maize near Kisumu', tags: ['farm'] });
    await result.current.remember(ORACLE_DID, { content: 'Has two children' });
    const all = await result.current.listMemories(ORACLE_DID);
    expect(all.total).toBe(2);
    expect(all.memories.map((m) => m.content)).toEqual(['Has two children', 'Grows maize near Kisumu']);
    expect((await result.current.listMemories(ORACLE_DID, { q: 'maize' })).memories.map((m) => m.id)).toEqual(
      [memory.id],
    );
    await result.current.forget(ORACLE_DID, memory.id);
    expect((await result.current.listMemories(ORACLE_DID)).total).toBe(1);
  });

  it('a 402 calls onPaymentRequiredError with the claim ids; useContractOracle pays through transactSignX and the next turn runs', async () => {
    const wallet = await realWallet();
    const sessionId = await newSession(app, wallet);
    const onPaymentRequiredError = vi.fn();
    // A real transaction on the fixture chain: the service verifies it there.
    const transactSignX = vi.fn(transactOnChain(app.ctx.chainGrpcUrl));
    const { result } = renderHook(
      () => ({
        chat: useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError }),
        contract: useContractOracle(),
      }),
      { wrapper: providerFor(app, wallet, { transactSignX }) },
    );
    await waitFor(() => expect(result.current.chat.isConfigReady).toBe(true));
    act(() => result.current.chat.sendMessage('first, paid by the initial credit'));
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    expect(onPaymentRequiredError).not.toHaveBeenCalled();

    act(() => result.current.chat.sendMessage('second, with no credit left'));
    await waitFor(() => expect(onPaymentRequiredError).toHaveBeenCalledTimes(1));
    await waitFor(() => expect(result.current.chat.status).toBe('error'));
    const claims = onPaymentRequiredError.mock.calls[0]?.[0] as string[];
    expect(claims).toEqual([expect.stringMatching(/^claim_/)]);
    expect(result.current.chat.sendMessageError).toBeInstanceOf(OracleRequestError);
    expect(result.current.chat.sendMessageError).toMatchObject({ status: 402, code: 'payment_required' });
    const account = await result.current.contract.getCredits(ORACLE_DID);
    expect(account).toMatchObject({ balance: 0, outstandingClaims: claims });

    const paid = await act(() =>
      result.current.contract.contractOracle({ oracleDid: ORACLE_DID, amount: 5000 }),
    );
    expect(transactSignX).toHaveBeenCalledWith(
      [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: {
            fromAddress: 'ixo1realtestuser',
            toAddress: FIXTURE_PAY_TO_ADDRESS,
            amount: [{ denom: 'uixo', amount: '5000' }],
          },
        },
      ],
      account.paymentMemo,
    );
    expect(account.paymentMemo).toMatch(/^pay_[0-9a-f]{32}$/);
    const { transactionHash } = await (transactSignX.mock.results[0]?.value as Promise<{
      transactionHash: string;
    }>);
    expect(paid).toEqual({ txHash: transactionHash, balance: 5, settledClaims: claims });
    act(() => result.current.chat.sendMessage('third, after paying'));
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    expect(result.current.chat.sendMessageError).toBeUndefined();
    expect(onPaymentRequiredError).toHaveBeenCalledTimes(1);
    expect((await result.current.contract.getCredits(ORACLE_DID)).balance).toBe(4);
  });

  it('renews a delegation through POST /delegation: a new one minted by createDelegation, stored by the service', async () => {
    // Each delegation lives a second longer than the one before (two mints in one second are otherwise equal).
    const wallet = await realWallet({ ttlSeconds: (_kind, index) => 3600 + index });
    const { result } = renderHook(
      () => ({ ctx: useOraclesContext(), config: useOraclesConfig(ORACLE_DID) }),
      { wrapper: providerFor(app, wallet) },
    );
    await waitFor(() => expect(result.current.config.isConfigReady).toBe(true));
    const http = result.current.ctx.http(ORACLE_DID, result.current.config.apiUrl ?? '');
    const stored = () =>
      app.db.kysely
        .selectFrom('oracle_delegations')
        .select(['serialized', 'expires_at'])
        .where('user_did', '=', wallet.did)
        .execute();
    expect(await stored()).toEqual([]);
    await http.renewDelegation();
    const first = wallet.minted.filter((m) => m.kind === 'delegation');
    expect(first).toHaveLength(1);
    expect((await stored()).map((r) => r.serialized)).toEqual([first[0]?.token.serialized]);
    await http.renewDelegation();
    const minted = wallet.minted.filter((m) => m.kind === 'delegation');
    expect(minted).toHaveLength(2);
    expect(minted[1]?.token.serialized).not.toBe(minted[0]?.token.serialized);
    expect((await stored()).map((r) => r.serialized)).toEqual([minted[1]?.token.serialized]);
  });

  it('renews short-lived tokens before they expire: the next turn carries new ones and the service accepts them', async () => {
    // Tokens of 6 s are renewed at half their lifetime.
    const wallet = await realWallet({ ttlSeconds: () => 6 });
    const sessionId = await newSession(app, wallet);
    const { result } = renderHook(
      () => ({
        chat: useChat({ oracleDid: ORACLE_DID, sessionId, onPaymentRequiredError: vi.fn() }),
        contract: useContractOracle(),
      }),
      {
        wrapper: providerFor(app, wallet, {
          transactSignX: transactOnChain(app.ctx.chainGrpcUrl),
        }),
      },
    );
    await waitFor(() =>
      expect(result.current.chat.isConfigReady && !result.current.chat.isLoading).toBe(true),
    );
    await act(() => result.current.contract.contractOracle({ oracleDid: ORACLE_DID, amount: 5000 }));
    act(() => result.current.chat.sendMessage('one'));
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    const before = wallet.minted.length;
    await new Promise((r) => setTimeout(r, 3_200));
    act(() => result.current.chat.sendMessage('two'));
    await waitFor(() => expect(result.current.chat.status).toBe('ready'));
    expect(result.current.chat.sendMessageError).toBeUndefined();
    expect(result.current.chat.messages).toHaveLength(4);
    // New tokens of both kinds were minted after the first turn (more than one each on a slow machine).
    const renewed = new Set(wallet.minted.slice(before).map((m) => m.kind));
    expect([...renewed].sort()).toEqual(['delegation', 'invocation']);
  });
});

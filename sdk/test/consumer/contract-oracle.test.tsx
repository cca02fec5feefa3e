// useContractOracle pays once (issue 35 item 2): a signed transfer is kept before it is reported, a report the
// chain node cannot see yet is retried within a time limit, and a later call reports the kept hash again
// instead of signing a second transfer. Only public exports and the MSW kit are used.
import {
  memoryDelegationStorage,
  OracleRequestError,
  useContractOracle,
} from '@open-oracles/oracles-client-sdk';
import type { PaymentReportAnswer } from '@open-oracles/oracles-client-sdk/msw';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { mockOracle, providerFor, wallet, withMockServer } from './harness.js';

withMockServer();

const HASH = 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90';
const REPORT_URL = 'http://oracle.test/credits/payments';
/** Small waits, so a test of the retries takes milliseconds. */
const fast = { baseMs: 5, maxMs: 20, jitter: 0 };

function setup(paymentReports: PaymentReportAnswer[], options: Parameters<typeof useContractOracle>[0] = {}) {
  const oracle = mockOracle({ paymentRequired: ['claim-9'], paymentReports });
  const storage = memoryDelegationStorage();
  const transactSignX = vi.fn(() => Promise.resolve({ transactionHash: HASH }));
  const hook = renderHook(() => useContractOracle({ reportRetry: fast, ...options }), {
    wrapper: providerFor(oracle, { transactSignX, delegationStorage: storage }),
  });
  const reports = () => oracle.control.requests.filter((r) => r.path === '/credits/payments');
  return { oracle, storage, transactSignX, hook, reports };
}

describe('useContractOracle pays once', () => {
  it('retries a 404 payment_not_found with backoff until the payment is credited, signing once', async () => {
    const { oracle, transactSignX, hook, reports } = setup(['payment_not_found', 'payment_not_found']);
    let paid: unknown;
    await act(async () => {
      paid = await hook.result.current.contractOracle({
        oracleDid: oracle.control.oracleDid,
        amount: '5000',
      });
    });
    expect(paid).toEqual({ txHash: HASH, balance: 105, settledClaims: ['claim-9'] });
    expect(transactSignX).toHaveBeenCalledTimes(1);
    expect(reports().map((r) => (r.body as { txHash: string }).txHash)).toEqual([HASH, HASH, HASH]);
    expect(hook.result.current.pendingPayment).toBeUndefined();
  });

  it('regression: a report that failed and a second contractOracle call signed a second transfer', async () => {
    const { oracle, transactSignX, hook, reports } = setup(['network_error']);
    const oracleDid = oracle.control.oracleDid;
    let failure: unknown;
    await act(async () => {
      failure = await hook.result.current
        .contractOracle({ oracleDid, amount: '5000' })
        .catch((e: unknown) => e);
    });
    const pendingAfterFailure = hook.result.current.pendingPayment;
    let paid: unknown;
    await act(async () => {
      // A different amount changes nothing: the kept transfer is what gets reported.
      paid = await hook.result.current.contractOracle({ oracleDid, amount: '7000' });
    });
    expect(transactSignX).toHaveBeenCalledTimes(1);
    expect(reports().map((r) => r.body)).toEqual([
      { txHash: HASH, amount: { denom: 'uixo', amount: '5000' } },
      { txHash: HASH, amount: { denom: 'uixo', amount: '5000' } },
    ]);
    expect(paid).toEqual({ txHash: HASH, balance: 105, settledClaims: ['claim-9'] });
    expect(hook.result.current.pendingPayment).toBeUndefined();
    expect(pendingAfterFailure).toMatchObject({
      txHash: HASH,
      amount: { denom: 'uixo', amount: '5000' },
      signedAt: expect.any(Number) as number,
    });
    expect((failure as Error).message).toMatch(
      /POST http:\/\/oracle\.test\/credits\/payments.*could not be reached.*kept pending/s,
    );
  });

  it('keeps a pending payment across a reload (a new provider on the same storage) and reports it there', async () => {
    const first = setup(['network_error']);
    const oracleDid = first.oracle.control.oracleDid;
    await act(async () => {
      await expect(first.hook.result.current.contractOracle({ oracleDid, amount: '5000' })).rejects.toThrow();
    });
    first.hook.unmount();
    // The documented key: one pending payment per (user, oracle).
    const key = `oracles_pending_payment::${wallet.did}::${oracleDid}`;
    expect(JSON.parse(first.storage.getItem(key) ?? 'null')).toMatchObject({
      txHash: HASH,
      paysFor: ['claim-9'],
    });

    const transactSignX = vi.fn(() => Promise.resolve({ transactionHash: 'F'.repeat(64) }));
    const reloaded = renderHook(() => useContractOracle({ oracleDid, reportRetry: fast }), {
      wrapper: providerFor(first.oracle, { transactSignX, delegationStorage: first.storage }),
    });
    expect(reloaded.result.current.pendingPayment).toMatchObject({ txHash: HASH });
    await act(async () => {
      await reloaded.result.current.contractOracle({ oracleDid, amount: '5000' });
    });
    expect(transactSignX).not.toHaveBeenCalled();
    expect(first.reports().map((r) => (r.body as { txHash: string }).txHash)).toEqual([HASH, HASH]);
    expect(reloaded.result.current.pendingPayment).toBeUndefined();
    expect(first.storage.getItem(key)).toBeNull();
  });

  it.each([
    ['payment_mismatch', 422],
    ['payment_failed', 422],
    ['payment_conflict', 409],
  ] as const)(
    'a final %s (%i) clears the pending payment and surfaces, signing nothing again',
    async (code, status) => {
      const { oracle, transactSignX, hook, storage } = setup([code]);
      const oracleDid = oracle.control.oracleDid;
      let failure: unknown;
      await act(async () => {
        failure = await hook.result.current
          .contractOracle({ oracleDid, amount: '5000' })
          .catch((e: unknown) => e);
      });
      expect(failure).toBeInstanceOf(OracleRequestError);
      expect(failure).toMatchObject({ status, code });
      expect((failure as Error).message).toContain(`POST ${REPORT_URL}`);
      expect((failure as Error).message).toContain(`${status} ${code}`);
      await waitFor(() => expect(hook.result.current.error).toBe(failure));
      expect(hook.result.current.pendingPayment).toBeUndefined();
      expect(storage.getItem(`oracles_pending_payment::${wallet.did}::${oracleDid}`)).toBeNull();
      expect(transactSignX).toHaveBeenCalledTimes(1);
    },
  );

  it('gives up on payment_not_found after the time limit with an error naming the step, the URL and the code, and keeps the payment pending', async () => {
    const notFound = Array.from({ length: 100 }, (): PaymentReportAnswer => 'payment_not_found');
    const { oracle, transactSignX, hook, reports } = setup(notFound, {
      reportRetry: { ...fast, withinMs: 60 },
    });
    const oracleDid = oracle.control.oracleDid;
    let failure: unknown;
    await act(async () => {
      failure = await hook.result.current
        .contractOracle({ oracleDid, amount: '5000' })
        .catch((e: unknown) => e);
    });
    expect(failure).toBeInstanceOf(OracleRequestError);
    expect(failure).toMatchObject({ status: 404, code: 'payment_not_found', step: 'POST /credits/payments' });
    const message = (failure as Error).message;
    expect(message).toContain(`POST ${REPORT_URL}`);
    expect(message).toContain('404 payment_not_found');
    expect(message).toContain(HASH);
    expect(message).toMatch(/kept pending/);
    const tries = reports().length;
    expect(tries).toBeGreaterThan(1);
    expect(tries).toBeLessThan(10);
    expect(hook.result.current.pendingPayment).toMatchObject({ txHash: HASH });
    expect(transactSignX).toHaveBeenCalledTimes(1);
  });

  it('discardPendingPayment forgets a pending payment: the next call signs a new transfer', async () => {
    const { oracle, transactSignX, hook } = setup(['network_error']);
    const oracleDid = oracle.control.oracleDid;
    await act(async () => {
      await hook.result.current.contractOracle({ oracleDid, amount: '5000' }).catch(() => undefined);
    });
    expect(hook.result.current.pendingPayment).toMatchObject({ txHash: HASH });
    act(() => hook.result.current.discardPendingPayment(oracleDid));
    expect(hook.result.current.pendingPayment).toBeUndefined();
    await act(async () => {
      await hook.result.current.contractOracle({ oracleDid, amount: '5000' });
    });
    expect(transactSignX).toHaveBeenCalledTimes(2);
  });

  it('two calls at once sign one transfer', async () => {
    const { oracle, transactSignX, hook } = setup([]);
    const oracleDid = oracle.control.oracleDid;
    let both: unknown[] = [];
    await act(async () => {
      both = await Promise.all([
        hook.result.current.contractOracle({ oracleDid, amount: '5000' }),
        hook.result.current.contractOracle({ oracleDid, amount: '5000' }),
      ]);
    });
    expect(transactSignX).toHaveBeenCalledTimes(1);
    expect(both[0]).toEqual(both[1]);
  });
});

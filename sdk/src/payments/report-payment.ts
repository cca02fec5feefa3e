import type { OracleHttp } from '../http/oracle-http.js';
import { OracleRequestError } from '../http/oracle-request-error.js';
import { creditsRoutes } from '../http/routes.js';
import { backoffDelay, sleep, type BackoffOptions } from '../util/backoff.js';
import type { PendingPayment } from './pending-payments.js';

/** How a payment report the chain node cannot see yet is retried: the SDK's backoff, within `withinMs`. */
export interface ReportRetry extends BackoffOptions {
  /** Give up after this long, ms (default 60000): the payment stays pending. */
  withinMs?: number;
}

/** Answers after which the report can never succeed: the pending payment is cleared and the error surfaces. */
const FINAL_CODES = new Set(['payment_mismatch', 'payment_failed', 'payment_conflict']);
const STEP = 'POST /credits/payments';

const isFinal = (e: unknown): boolean =>
  e instanceof OracleRequestError && (e.status === 422 || e.status === 409) && FINAL_CODES.has(e.code ?? '');

const isNotFound = (e: unknown): boolean =>
  e instanceof OracleRequestError && e.status === 404 && e.code === 'payment_not_found';

const trimStop = (s: string): string => s.replace(/\.+$/, '');

/** The error a failed report surfaces: the step, the URL, the status and code, and what became of the payment. */
function reportError(e: unknown, url: string, payment: PendingPayment, outcome: string): Error {
  const prefix = `Reporting payment ${payment.txHash} (POST ${url}) failed`;
  if (!(e instanceof OracleRequestError)) {
    const why = e instanceof Error ? e.message : String(e);
    return new Error(`${prefix}: ${trimStop(why)}. ${outcome}`, { cause: e });
  }
  const what =
    e.status === 0
      ? `could not be reached (${trimStop(e.cause instanceof Error ? e.cause.message : e.message)})`
      : `${e.status} ${e.code ?? 'error'}: ${trimStop(e.message)}`;
  return new OracleRequestError(`${prefix}: ${what}. ${outcome}`, {
    status: e.status,
    ...(e.code !== undefined ? { code: e.code } : {}),
    ...(e.requestId !== undefined ? { requestId: e.requestId } : {}),
    ...(e.retryAfter !== undefined ? { retryAfter: e.retryAfter } : {}),
    step: STEP,
    cause: e,
  });
}

const KEPT =
  'The payment is kept pending: the next contractOracle call reports it again and pays nothing more.';
const CLEARED = 'The pending payment was cleared: the next contractOracle call signs a new transfer.';

/**
 * Reports a signed payment (`POST /credits/payments`). A 404 `payment_not_found` (the block is not in yet) is
 * retried with the SDK's backoff within `retry.withinMs`; `settled` is called when the answer is final (200,
 * 422 `payment_mismatch` / `payment_failed`, 409 `payment_conflict`). Never signs anything: a retry here
 * only reports the same hash again, which the oracle credits once.
 */
export async function reportPayment(
  http: OracleHttp,
  payment: PendingPayment,
  retry: ReportRetry = {},
  settled: () => void,
): Promise<{ balance: number; settledClaims: string[] }> {
  const url = http.url('/credits/payments');
  const withinMs = retry.withinMs ?? 60_000;
  const backoff = { baseMs: retry.baseMs ?? 1000, maxMs: retry.maxMs ?? 10_000, jitter: retry.jitter ?? 0.2 };
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const paid = await http.call(creditsRoutes.pay, {
        body: { txHash: payment.txHash, amount: payment.amount },
      });
      settled();
      return paid;
    } catch (e) {
      if (isFinal(e)) {
        settled();
        throw reportError(e, url, payment, CLEARED);
      }
      if (!isNotFound(e)) throw reportError(e, url, payment, KEPT);
      const wait = backoffDelay(attempt, backoff);
      const spent = Date.now() - started;
      if (spent + wait > withinMs)
        throw reportError(e, url, payment, `Retried for ${Math.round(spent / 100) / 10} s. ${KEPT}`);
      await sleep(wait);
    }
  }
}

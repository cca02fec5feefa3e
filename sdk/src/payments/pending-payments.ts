import type { DelegationStorage } from '../auth/delegation-storage.js';

/**
 * A transfer `useContractOracle` signed whose report the oracle has not confirmed yet. While it exists for a
 * (user, oracle), `contractOracle` reports it again and never signs a new transfer.
 */
export interface PendingPayment {
  /** Hash of the signed transaction. */
  txHash: string;
  /** What it sent, as reported to `POST /credits/payments`. */
  amount: { denom: string; amount: string };
  /** When `transactSignX` returned it, epoch milliseconds. */
  signedAt: number;
  /** The outstanding claim ids it paid for (from `GET /credits`, sorted); empty for a payment in advance. */
  paysFor: string[];
}

const PREFIX = 'oracles_pending_payment::';

/**
 * The storage key of a (user, oracle) pair's pending payment: `oracles_pending_payment::<userDid>::<oracleDid>`.
 * One per pair, whatever it pays for: a payment is never signed while one is pending, so a changed claim list
 * (a report that was credited but whose answer was lost) cannot hide a signed transfer.
 */
const pendingPaymentKey = (userDid: string, oracleDid: string): string => `${PREFIX}${userDid}::${oracleDid}`;

function parse(raw: string | null): PendingPayment | undefined {
  if (raw === null) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<PendingPayment>;
    if (
      typeof v.txHash === 'string' &&
      typeof v.amount?.denom === 'string' &&
      typeof v.amount.amount === 'string' &&
      typeof v.signedAt === 'number'
    )
      return {
        txHash: v.txHash,
        amount: { denom: v.amount.denom, amount: v.amount.amount },
        signedAt: v.signedAt,
        paysFor: Array.isArray(v.paysFor) ? v.paysFor.filter((c) => typeof c === 'string') : [],
      };
  } catch {
    // not ours: read as none
  }
  return undefined;
}

/**
 * The pending payments of a provider, kept in its delegation storage (so they survive a reload) and in memory
 * (so a storage that refuses a write still blocks a second transfer for the provider's life). Readers
 * subscribe (`useSyncExternalStore`); a read returns the same object while the entry is unchanged.
 * Concurrent payments of a pair share one run (`exclusive`).
 */
export class PendingPayments {
  readonly #memory = new Map<string, string>();
  readonly #parsed = new Map<string, { raw: string | null; value: PendingPayment | undefined }>();
  readonly #listeners = new Set<() => void>();
  readonly #running = new Map<string, Promise<unknown>>();

  readonly #storage: DelegationStorage;

  constructor(storage: DelegationStorage) {
    this.#storage = storage;
  }

  /** The pending payment of a pair, or `undefined`. */
  get(userDid: string, oracleDid: string): PendingPayment | undefined {
    const key = pendingPaymentKey(userDid, oracleDid);
    let raw: string | null = null;
    try {
      raw = this.#storage.getItem(key);
    } catch {
      // storage disabled: memory below
    }
    raw ??= this.#memory.get(key) ?? null;
    const cached = this.#parsed.get(key);
    if (cached && cached.raw === raw) return cached.value;
    const value = parse(raw);
    this.#parsed.set(key, { raw, value });
    return value;
  }

  /** Keeps a signed payment before it is reported. */
  set(userDid: string, oracleDid: string, payment: PendingPayment): void {
    const key = pendingPaymentKey(userDid, oracleDid);
    const raw = JSON.stringify(payment);
    this.#memory.set(key, raw);
    try {
      this.#storage.setItem(key, raw);
    } catch {
      // quota or disabled storage: memory keeps it for this provider's life
    }
    this.#notify();
  }

  /** Forgets a pair's pending payment (its report was answered for good). */
  clear(userDid: string, oracleDid: string): void {
    const key = pendingPaymentKey(userDid, oracleDid);
    this.#memory.delete(key);
    try {
      this.#storage.removeItem(key);
    } catch {
      // nothing stored
    }
    this.#notify();
  }

  /** Runs `fn` unless a run of the same pair is under way, in which case its result is shared. */
  exclusive<T>(userDid: string, oracleDid: string, fn: () => Promise<T>): Promise<T> {
    const key = pendingPaymentKey(userDid, oracleDid);
    const running = this.#running.get(key);
    if (running) return running as Promise<T>;
    const run = fn().finally(() => this.#running.delete(key));
    this.#running.set(key, run);
    return run;
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  #notify(): void {
    for (const l of this.#listeners) l();
  }
}

import {
  delegationKey,
  memoryDelegationStorage,
  readStored,
  removeStored,
  writeStored,
  type DelegationStorage,
  type SerializedUcan,
} from './delegation-storage.js';

/**
 * Why a delegation is minted again (spec §5 C step 4): the one kept expired (`expired`), the oracle has none
 * or an expired one (`delegation_missing`, `delegation_expired`), or it refused the tokens as expired
 * (`auth_expired`).
 */
export type ReauthorizationReason = 'expired' | 'delegation_missing' | 'delegation_expired' | 'auth_expired';

/** What the provider's `onReauthorize` is told before `createDelegation` runs again. */
export interface ReauthorizationRequest {
  oracleDid: string;
  userDid: string;
  reason: ReauthorizationReason;
}

/** Asked before a delegation is minted again; `false` declines (the request fails). */
export type ReauthorizeFn = (request: ReauthorizationRequest) => boolean | void | Promise<boolean | void>;

/** Renew this long before expiry, or at half the lifetime for short-lived tokens. */
const RENEW_MARGIN_MS = 5 * 60_000;

type Kind = 'delegation' | 'invocation';

interface Entry {
  token: SerializedUcan;
  mintedAt: number;
}

/** The user declined to re-authorize (the provider's `onReauthorize` answered `false`). */
export class ReauthorizationDeclinedError extends Error {
  override readonly name = 'ReauthorizationDeclinedError';
  constructor(readonly oracleDid: string) {
    super(`Re-authorization for ${oracleDid} was declined`);
  }
}

/**
 * Tokens per (user DID, oracle DID): minted on first use, reused until shortly before expiry, renewed then.
 * Concurrent requests for the same token share one mint. Delegations are also kept in a
 * {@link DelegationStorage} (they outlive a page load, never used past expiry); invocations live in memory.
 * Before a delegation is minted again for a pair that had one, `onReauthorize` may show the app's prompt.
 */
export class TokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, Promise<SerializedUcan>>();
  /** Pairs that have had a delegation: minting for them again is a re-authorization. */
  readonly #authorized = new Set<string>();
  readonly #mintToken: (kind: Kind, oracleDid: string) => Promise<SerializedUcan>;
  readonly #now: () => number;
  readonly #storage: DelegationStorage;
  readonly #reauthorize: ReauthorizeFn | undefined;

  constructor(
    mint: (kind: Kind, oracleDid: string) => Promise<SerializedUcan>,
    now: () => number = Date.now,
    storage: DelegationStorage = memoryDelegationStorage(),
    reauthorize?: ReauthorizeFn,
  ) {
    this.#mintToken = mint;
    this.#now = now;
    this.#storage = storage;
    this.#reauthorize = reauthorize;
  }

  /** The cached token, or a fresh one when there is none or it is about to expire. */
  get(kind: Kind, userDid: string, oracleDid: string): Promise<SerializedUcan> {
    const key = this.#key(kind, userDid, oracleDid);
    const entry = this.#entries.get(key) ?? this.#fromStorage(kind, userDid, oracleDid);
    if (entry && this.#fresh(entry)) return Promise.resolve(entry.token);
    return this.#mint(kind, userDid, oracleDid, entry ? 'expired' : undefined);
  }

  /** Forgets a token and mints a new one (asking `onReauthorize` first for a delegation). */
  renew(
    kind: Kind,
    userDid: string,
    oracleDid: string,
    reason: ReauthorizationReason,
  ): Promise<SerializedUcan> {
    return this.#mint(kind, userDid, oracleDid, reason, true);
  }

  /** Forgets a token (memory and storage), so the next `get` mints a new one. */
  drop(kind: Kind, userDid: string, oracleDid: string): void {
    this.#entries.delete(this.#key(kind, userDid, oracleDid));
    if (kind === 'delegation') removeStored(this.#storage, delegationKey(userDid, oracleDid));
  }

  #mint(
    kind: Kind,
    userDid: string,
    oracleDid: string,
    reason: ReauthorizationReason | undefined,
    replace = false,
  ): Promise<SerializedUcan> {
    const key = this.#key(kind, userDid, oracleDid);
    const running = this.#inflight.get(key);
    if (running) return running;
    const again = kind === 'delegation' && this.#authorized.has(key);
    const minted = (async () => {
      if (again && this.#reauthorize) {
        const ok = await this.#reauthorize({ oracleDid, userDid, reason: reason ?? 'expired' });
        if (ok === false) throw new ReauthorizationDeclinedError(oracleDid);
      }
      // The old token goes only once the user agreed to a new one (a decline keeps it).
      if (replace) this.drop(kind, userDid, oracleDid);
      const token = await this.#mintToken(kind, oracleDid);
      this.#entries.set(key, { token, mintedAt: this.#now() });
      if (kind === 'delegation') {
        this.#authorized.add(key);
        writeStored(this.#storage, delegationKey(userDid, oracleDid), token);
      }
      return token;
    })().finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, minted);
    return minted;
  }

  #fromStorage(kind: Kind, userDid: string, oracleDid: string): Entry | undefined {
    if (kind !== 'delegation') return undefined;
    const token = readStored(this.#storage, delegationKey(userDid, oracleDid));
    if (!token) return undefined;
    const key = this.#key(kind, userDid, oracleDid);
    this.#authorized.add(key);
    // Its mint time is unknown: judged by the 5-minute margin alone.
    const entry = { token, mintedAt: -Infinity };
    if (!this.#fresh(entry)) {
      removeStored(this.#storage, delegationKey(userDid, oracleDid));
      return entry;
    }
    this.#entries.set(key, entry);
    return entry;
  }

  #key(kind: Kind, userDid: string, oracleDid: string): string {
    return `${kind}|${userDid}::${oracleDid}`;
  }

  #fresh(entry: Entry): boolean {
    const lifetime = entry.token.expiresAt - entry.mintedAt;
    const margin = Math.min(RENEW_MARGIN_MS, Math.max(0, lifetime / 2));
    return entry.token.expiresAt - this.#now() > margin;
  }
}

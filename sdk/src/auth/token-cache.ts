/** A serialized capability token (base64 of a UCAN archive) and its expiry in epoch milliseconds. */
export interface SerializedUcan {
  serialized: string;
  expiresAt: number;
}

/** Mints a token for an oracle: the provider's `createDelegation` or `createInvocation`. */
export type TokenMinter = (oracleDid: string) => Promise<SerializedUcan>;

/** Renew this long before expiry, or at half the lifetime for short-lived tokens. */
const RENEW_MARGIN_MS = 5 * 60_000;

interface Entry {
  token: SerializedUcan;
  mintedAt: number;
}

/**
 * Tokens per (user DID, oracle DID): minted on first use, reused until shortly before expiry, renewed then.
 * Concurrent requests for the same token share one mint.
 */
export class TokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, Promise<SerializedUcan>>();

  constructor(
    private readonly mint: (kind: 'delegation' | 'invocation', oracleDid: string) => Promise<SerializedUcan>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached token, or a fresh one when there is none or it is about to expire. */
  get(kind: 'delegation' | 'invocation', userDid: string, oracleDid: string): Promise<SerializedUcan> {
    const key = `${kind}|${userDid}::${oracleDid}`;
    const entry = this.#entries.get(key);
    if (entry && this.#fresh(entry)) return Promise.resolve(entry.token);
    const running = this.#inflight.get(key);
    if (running) return running;
    const minted = this.mint(kind, oracleDid)
      .then((token) => {
        this.#entries.set(key, { token, mintedAt: this.now() });
        return token;
      })
      .finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, minted);
    return minted;
  }

  /** Forgets a token, so the next `get` mints a new one. */
  drop(kind: 'delegation' | 'invocation', userDid: string, oracleDid: string): void {
    this.#entries.delete(`${kind}|${userDid}::${oracleDid}`);
  }

  #fresh(entry: Entry): boolean {
    const lifetime = entry.token.expiresAt - entry.mintedAt;
    const margin = Math.min(RENEW_MARGIN_MS, Math.max(0, lifetime / 2));
    return entry.token.expiresAt - this.now() > margin;
  }
}

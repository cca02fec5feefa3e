/** A serialized capability token (base64 of a UCAN archive) and its expiry in epoch milliseconds. */
export interface SerializedUcan {
  serialized: string;
  expiresAt: number;
}

/**
 * Where delegations are kept across page loads: anything with the three methods of the Web Storage API
 * (`localStorage`, `sessionStorage`, or an app's own, e.g. over IndexedDB kept in memory).
 */
export type DelegationStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const PREFIX = 'oracles_ucan_delegation::';

/** A storage in memory: delegations last as long as the provider (the default outside a browser). */
export function memoryDelegationStorage(): DelegationStorage {
  const items = new Map<string, string>();
  return {
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

/** `localStorage` when the page has a working one (as the reference SDK), otherwise memory. */
export function defaultDelegationStorage(): DelegationStorage {
  try {
    const ls = (globalThis as { localStorage?: Storage }).localStorage;
    if (ls) {
      const probe = `${PREFIX}probe`;
      ls.setItem(probe, '1');
      ls.removeItem(probe);
      return ls;
    }
  } catch {
    // storage disabled (privacy mode, sandboxed frame): memory below
  }
  return memoryDelegationStorage();
}

/** The storage key of a (user, oracle) pair's delegation. */
export const delegationKey = (userDid: string, oracleDid: string): string =>
  `${PREFIX}${userDid}::${oracleDid}`;

/** Reads a stored delegation; a malformed entry is removed and read as none. */
export function readStored(storage: DelegationStorage, key: string): SerializedUcan | undefined {
  let raw: string | null;
  try {
    raw = storage.getItem(key);
  } catch {
    return undefined;
  }
  if (raw === null) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<SerializedUcan>;
    if (typeof v.serialized === 'string' && typeof v.expiresAt === 'number')
      return { serialized: v.serialized, expiresAt: v.expiresAt };
  } catch {
    // fall through
  }
  removeStored(storage, key);
  return undefined;
}

export function writeStored(storage: DelegationStorage, key: string, token: SerializedUcan): void {
  try {
    storage.setItem(key, JSON.stringify({ serialized: token.serialized, expiresAt: token.expiresAt }));
  } catch {
    // quota or disabled storage: the delegation still lives in memory
  }
}

export function removeStored(storage: DelegationStorage, key: string): void {
  try {
    storage.removeItem(key);
  } catch {
    // nothing stored
  }
}

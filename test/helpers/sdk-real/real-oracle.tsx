// The SDK against the real service: the server of server/server.ts started by startTestApp (embedded
// defaults: PGlite, the scripted model, the fixture chain node whose oracle entity advertises this server),
// and a wallet whose token callbacks sign real UCANs with ucanto. Only public exports of the SDK are used.
import {
  OraclesProvider,
  useOracleSessions,
  type IMessage,
  type IOraclesProviderProps,
} from '@open-oracles/oracles-client-sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { Signer } from '@ucanto/interface';
import { ed25519 } from '@ucanto/principal';
import type { ReactNode } from 'react';
import { expect } from 'vitest';
import { ORACLE_CAPABILITIES } from '../../../contracts/oracle.js';
import { FIXTURE_ORACLE_ENTITY_DID } from '../../../server/oracle/config.js';
import { mintToken, type MintedToken } from '../../../server/oracle/auth/mint.js';
import { startTestApp, type TestApp } from '../app.js';

/** The oracle the SDK talks to: the fixture chain's oracle entity, whose IID document points at the server. */
export const ORACLE_DID = FIXTURE_ORACLE_ENTITY_DID;

/**
 * Starts the real server with the chain gateway (config resolution) and the oracle part, a fresh oracle key,
 * and the scripted model without pauses unless `env` says otherwise.
 */
export async function startRealOracle(env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp({
    env: {
      ENABLED_PARTS: 'chain,oracle',
      ORACLE_SIGNING_KEY: ed25519.format(await ed25519.generate()),
      SCRIPTED_MODEL_DELAY_MS: '0',
      ...env,
    },
  });
}

/** One token the wallet minted, as the test reads it back. */
export interface MintRecord {
  kind: 'delegation' | 'invocation';
  audience: string;
  token: MintedToken;
}

/** A user's wallet: a real Ed25519 key and the SDK's token callbacks, signing UCANs with ucanto. */
export interface RealWallet {
  signer: Signer;
  did: string;
  minted: MintRecord[];
  createDelegation: (oracleDid: string) => Promise<MintedToken>;
  createInvocation: (oracleDid: string) => Promise<MintedToken>;
}

/**
 * A new user. `ttlSeconds` is the lifetime of each token (or a function of the mint's index, per kind, to mint
 * a short-lived or an already expired one first).
 */
export async function realWallet(
  options: { ttlSeconds?: (kind: MintRecord['kind'], index: number) => number } = {},
): Promise<RealWallet> {
  const signer = await ed25519.generate();
  const minted: MintRecord[] = [];
  const ttl = options.ttlSeconds ?? (() => 3600);
  const mint = (kind: MintRecord['kind']) => async (oracleDid: string) => {
    const index = minted.filter((m) => m.kind === kind).length;
    const audience = oracleDid as `did:${string}:${string}`;
    const token = await mintToken({
      issuer: signer,
      audience,
      ttlSeconds: ttl(kind, index),
      capabilities: [
        kind === 'delegation'
          ? { can: ORACLE_CAPABILITIES.delegation.can, with: signer.did() }
          : { can: ORACLE_CAPABILITIES.invocation.can, with: audience },
      ],
    });
    minted.push({ kind, audience, token });
    return token;
  };
  return {
    signer,
    did: signer.did(),
    minted,
    createDelegation: mint('delegation'),
    createInvocation: mint('invocation'),
  };
}

/** The provider wired to the real server (`chainRestUrl`: the same server's chain gateway). */
export function providerFor(
  app: TestApp,
  wallet: RealWallet,
  props: Partial<IOraclesProviderProps> = {},
): (p: { children: ReactNode }) => ReactNode {
  return function Wrapper({ children }) {
    return (
      <OraclesProvider
        initialWallet={{
          address: 'ixo1realtestuser',
          did: wallet.did,
          matrix: { accessToken: 'unused', homeServer: 'http://matrix.invalid' },
        }}
        transactSignX={() => Promise.reject(new Error('no transaction expected'))}
        createDelegation={wallet.createDelegation}
        createInvocation={wallet.createInvocation}
        chainRestUrl={app.url}
        {...props}
      >
        {children}
      </OraclesProvider>
    );
  };
}

/** A session of this user, created through useOracleSessions. */
export async function newSession(app: TestApp, wallet: RealWallet, title?: string): Promise<string> {
  const { result, unmount } = renderHook(() => useOracleSessions(ORACLE_DID), {
    wrapper: providerFor(app, wallet),
  });
  await waitFor(() => expect(result.current.isLoading).toBe(false));
  let id = '';
  await act(async () => {
    id = (await result.current.createSession(title)).sessionId;
  });
  unmount();
  return id;
}

/** The text of a message (its string parts). */
export function textOf(m: IMessage | undefined): string {
  if (m === undefined) return '';
  if (typeof m.content === 'string') return m.content;
  return (Array.isArray(m.content) ? m.content : [m.content]).filter((p) => typeof p === 'string').join('');
}

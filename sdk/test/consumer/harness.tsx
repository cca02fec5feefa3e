// The way an app team tests its chat: msw's server with the SDK's mocked oracle, the provider around the
// component under test. Only public exports of the package are used here.
import { OraclesProvider, type IOraclesProviderProps } from '@open-oracles/oracles-client-sdk';
import {
  createOracleHandlers,
  type OracleHandlers,
  type OracleMockOptions,
} from '@open-oracles/oracles-client-sdk/msw';
import { setupServer } from 'msw/node';
import type { ReactNode } from 'react';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';

export const server = setupServer();

/**
 * Call at the top of a test file: msw's server listens during that file's tests. (The files of a worker
 * share this module, `isolate: false` in sdk/vitest.config.ts, so hooks registered when it is first
 * imported would run for the first file only.)
 */
export function withMockServer(): void {
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
}

export const wallet = {
  address: 'ixo1useraddress',
  did: 'did:key:z6MkUser',
  matrix: { accessToken: 'syt_mock', homeServer: 'http://matrix.test' },
};

/** Installs a mocked oracle for this test and returns its handlers (with `.control`). */
export function mockOracle(options: OracleMockOptions = {}): OracleHandlers {
  const oracle = createOracleHandlers({ matrixHomeServer: 'http://matrix.test', ...options });
  server.use(...oracle);
  return oracle;
}

let minted = 0;
/** Token callbacks as an app would write them (here: fake serialized tokens, expiring in an hour). */
export function tokenCallbacks() {
  const createDelegation = vi.fn((oracleDid: string) =>
    Promise.resolve({ serialized: `delegation-${++minted}-${oracleDid}`, expiresAt: Date.now() + 3_600_000 }),
  );
  const createInvocation = vi.fn((oracleDid: string) =>
    Promise.resolve({ serialized: `invocation-${++minted}-${oracleDid}`, expiresAt: Date.now() + 60_000 }),
  );
  return { createDelegation, createInvocation };
}

/** The provider wired to a mocked oracle. */
export function providerFor(
  oracle: OracleHandlers,
  props: Partial<IOraclesProviderProps> = {},
): (p: { children: ReactNode }) => ReactNode {
  const callbacks = tokenCallbacks();
  const transactSignX = vi.fn(() => Promise.resolve({ transactionHash: 'ABCDEF0123456789ABCDEF' }));
  return function Wrapper({ children }) {
    return (
      <OraclesProvider
        initialWallet={wallet}
        transactSignX={transactSignX}
        createDelegation={callbacks.createDelegation}
        createInvocation={callbacks.createInvocation}
        chainRestUrl={oracle.control.chainRestUrl}
        {...props}
      >
        {children}
      </OraclesProvider>
    );
  };
}

/** A session that exists in the mock, with optional history. */
export function session(id = 'ses_1') {
  return {
    sessionId: id,
    title: 'New chat',
    createdAt: '2026-11-01T10:00:00.000Z',
    lastUpdatedAt: '2026-11-01T10:00:00.000Z',
    oracleName: 'Mock oracle',
    oracleDid: 'did:key:z6MkMockOracle',
  };
}

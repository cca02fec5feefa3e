// @vitest-environment node
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as chain from '../src/chain.js';
import * as dev from '../src/dev.js';
import * as root from '../src/index.js';
import * as liveAgent from '../src/live-agent.js';
import * as msw from '../src/msw.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional: boolean }>;
};

describe('the public surface', () => {
  it('pins the export list of every entry point', () => {
    expect(Object.keys(root).sort()).toEqual([
      'DefaultToolCall',
      'ORACLE_QUERY_PREFIX',
      'OracleRequestError',
      'OraclesProvider',
      'ReauthorizationDeclinedError',
      'RunDisconnectedError',
      'defineBrowserTool',
      'getOpenIdToken',
      'isRateLimited',
      'memoryDelegationStorage',
      'oracleKeys',
      'renderMessageContent',
      'useAgAction',
      'useChat',
      'useContractOracle',
      'useGetOpenIdToken',
      'useMemoryEngine',
      'useModels',
      'useOracleSessions',
      'useOraclesConfig',
      'useOraclesContext',
      'useUserPreferences',
    ]);
    expect(Object.keys(liveAgent).sort()).toEqual(['useLiveAgent']);
    expect(Object.keys(msw).sort()).toEqual(['DEFAULT_SCRIPT', 'MockRun', 'createOracleHandlers']);
    expect(Object.keys(dev).sort()).toEqual(['DEV_USER_SEED', 'ORACLE_CAPABILITIES', 'createDevSigner']);
    expect(Object.keys(chain).sort()).toEqual([
      'CHAIN_DEFAULT_PREFIX',
      'CosmosError',
      'chainContract',
      'createChainClient',
    ]);
  });

  it('has no registerBrowserTools (spec C3)', () => {
    expect('registerBrowserTools' in root).toBe(false);
  });

  it('declares the entries with import, require and types; react, zod and TanStack Query as peers, the rest optional', () => {
    expect(pkg.name).toBe('@open-oracles/oracles-client-sdk');
    expect(Object.keys(pkg.exports).filter((k) => k !== './package.json')).toEqual([
      '.',
      './live-agent',
      './msw',
      './chain',
      './dev',
    ]);
    for (const [key, value] of Object.entries(pkg.exports)) {
      if (key === './package.json') continue;
      const v = value as Record<string, Record<string, string>>;
      // ./dev is ESM only: its peers (@ucanto/*) are ESM-only packages that require() cannot load.
      expect(Object.keys(v).sort(), key).toEqual(key === './dev' ? ['import'] : ['import', 'require']);
      expect(v['import']?.['types'], key).toMatch(/\.d\.ts$/);
      expect(v['import']?.['default'], key).toMatch(/\.js$/);
      if (key === './dev') continue;
      expect(v['require']?.['types'], key).toMatch(/\.d\.cts$/);
      expect(v['require']?.['default'], key).toMatch(/\.cjs$/);
    }
    expect(pkg.peerDependencies).toEqual({
      '@tanstack/react-query': expect.stringMatching(/^\^5/),
      '@ucanto/core': expect.any(String),
      '@ucanto/principal': expect.any(String),
      'livekit-client': expect.any(String),
      msw: expect.stringMatching(/^\^2/),
      react: '>=18',
      // zod-to-json-schema (browser tools and actions) needs 3.25.28.
      zod: '^3.25.28',
    });
    // Only the entries that need them load the optional peers: `.` and `./chain` install without them.
    expect(pkg.peerDependenciesMeta).toEqual({
      '@ucanto/core': { optional: true },
      '@ucanto/principal': { optional: true },
      'livekit-client': { optional: true },
      msw: { optional: true },
    });
  });
});

import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const sdkSource = (file: string): string => fileURLToPath(new URL(`./sdk/src/${file}`, import.meta.url));

// `npm test` runs the runtime tests; `npm run test:types` runs the type tests (`*.test-d.ts`, compiled by
// tsc, which `npm run typecheck` also covers); CI runs both. `npm run test:timed` prints how long the
// suite takes and writes it into docs/testing.md.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Many tests wait on sockets and child processes: one worker per core, and at least two (vitest's
    // default leaves a core idle, a single worker on a 2-core machine).
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        extends: true,
        test: {
          name: 'repo',
          include: ['test/**/*.test.ts'],
          // sdk/test/**/*.test-d.ts ride on this project's tsc run (the root tsconfig includes sdk/).
          typecheck: {
            include: ['test/**/*.test-d.ts', 'sdk/test/**/*.test-d.ts'],
            tsconfig: './tsconfig.json',
          },
          setupFiles: ['test/setup.ts'],
          // The files of one worker run one after another in one process and one module graph: each file does
          // not pay again for Node, the imports and the embedded database (about 40 % of the suite's CPU time).
          // Tests keep no global state between files: every app, database schema and Redis prefix is a test's
          // own, and test/setup.ts restores real timers. A suite that needs isolation (a browser environment,
          // global mocks) gets a project of its own with `isolate: true`.
          isolate: false,
          globalSetup: ['test/global-setup.ts'],
        },
      },
      // The client SDK (its own jsdom project): sdk/vitest.config.ts.
      'sdk/vitest.config.ts',
      // The SDK against the real server (startTestApp in the test's process): React renders in jsdom, the
      // package name resolved to the SDK's sources as in sdk/vitest.config.ts. No MSW.
      {
        extends: true,
        resolve: {
          alias: [
            { find: /^@open-oracles\/oracles-client-sdk$/, replacement: sdkSource('index.ts') },
            {
              find: /^@open-oracles\/oracles-client-sdk\/(msw|chain|live-agent|dev)$/,
              replacement: sdkSource('$1.ts'),
            },
          ],
        },
        test: {
          name: 'sdk-real',
          // As in `repo`: the files of a worker share one process and module graph (the server and the SDK
          // load once per worker, not per file); test/sdk-real/setup.ts runs again for each file.
          isolate: false,
          include: ['test/sdk-real/**/*.test.tsx'],
          environment: 'jsdom',
          environmentOptions: { jsdom: { pretendToBeVisual: true, url: 'http://localhost/' } },
          setupFiles: ['test/setup.ts', 'test/sdk-real/setup.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
      // Type tests (`*.test-d.ts`, compiled by tsc): `npm run test:types`, not part of `npm test`.
      {
        extends: true,
        test: {
          name: 'types',
          include: [],
          typecheck: {
            enabled: true,
            only: true,
            include: ['test/**/*.test-d.ts', 'sdk/test/**/*.test-d.ts'],
            tsconfig: './tsconfig.json',
          },
        },
      },
    ],
  },
});

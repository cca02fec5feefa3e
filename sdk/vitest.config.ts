import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

const src = (file: string): string => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

// The SDK's tests run in jsdom. The consumer tests import the package by its public name; here the name
// resolves to the sources (the packed tarball is proven by `npm run sdk:proof`).
export default defineProject({
  resolve: {
    alias: [
      { find: /^@open-oracles\/oracles-client-sdk$/, replacement: src('index.ts') },
      { find: /^@open-oracles\/oracles-client-sdk\/(msw|chain|live-agent|dev)$/, replacement: src('$1.ts') },
    ],
  },
  test: {
    name: 'sdk',
    root: fileURLToPath(new URL('.', import.meta.url)),
    environment: 'jsdom',
    environmentOptions: { jsdom: { pretendToBeVisual: true, url: 'http://localhost/' } },
    include: ['test/**/*.test.{ts,tsx}'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 10_000,
    // The files of a worker run one after another in one process (jsdom and React loaded once, not per
    // file: about a third of this project's time). Nothing global may outlive a file: test/setup.ts cleans
    // up React trees, and each consumer file starts and stops msw's server (harness.tsx withMockServer).
    isolate: false,
  },
});

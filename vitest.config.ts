import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'repo',
          include: ['test/**/*.test.ts'],
          // sdk/test/**/*.test-d.ts ride on this project's tsc run (the root tsconfig includes sdk/).
          typecheck: {
            enabled: true,
            include: ['test/**/*.test-d.ts', 'sdk/test/**/*.test-d.ts'],
            tsconfig: './tsconfig.json',
          },
          globalSetup: ['test/global-setup.ts'],
        },
      },
      // The client SDK (its own jsdom project): sdk/vitest.config.ts.
      'sdk/vitest.config.ts',
    ],
  },
});

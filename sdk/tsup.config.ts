import { defineConfig } from 'tsup';

// One build of the five entry points, ESM + CJS + declarations. The contracts (../contracts) are bundled in:
// they are not published on their own. Dependencies and peer dependencies stay external.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'live-agent': 'src/live-agent.ts',
    msw: 'src/msw.ts',
    chain: 'src/chain.ts',
    dev: 'src/dev.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  tsconfig: 'tsconfig.build.json',
  clean: true,
  sourcemap: false,
  splitting: true,
  treeshake: true,
  target: 'es2022',
  outDir: 'dist',
});

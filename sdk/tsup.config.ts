import { defineConfig, type Options } from 'tsup';

// The entry points, ESM + CJS + declarations. The contracts (../contracts) are bundled in: they are not
// published on their own. Dependencies and peer dependencies stay external. `./dev` is ESM only: its peers
// (@ucanto/core, @ucanto/principal) are ESM-only packages that `require()` cannot load. `npm run build`
// empties dist/ first (the two builds write side by side).
const common: Options = {
  dts: true,
  tsconfig: 'tsconfig.build.json',
  clean: false,
  sourcemap: false,
  splitting: true,
  treeshake: true,
  target: 'es2022',
  outDir: 'dist',
};

export default defineConfig([
  {
    ...common,
    entry: {
      index: 'src/index.ts',
      'live-agent': 'src/live-agent.ts',
      msw: 'src/msw.ts',
      chain: 'src/chain.ts',
    },
    format: ['esm', 'cjs'],
  },
  { ...common, entry: { dev: 'src/dev.ts' }, format: ['esm'] },
]);

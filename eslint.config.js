// ESLint flat config: type-aware typescript-eslint rules plus the import boundaries of the code map
// (README "Code map", ../shared/design/ARCHITECTURE.md "Layering rules"). Each folder lists the project
// folders it must not import; a new folder gets its line here and in the README.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importBoundaries } from './scripts/lint/import-boundaries.js';

/** The project's top-level source folders, as an import path names them. */
const FOLDERS = ['lib', 'contracts', 'generated', 'server', 'sdk', 'demo', 'scripts', 'test', 'bench'];

/**
 * `from` (a folder, minus `except` sub-folders) must not import the folders in `forbidden`; with
 * `packages: false`, it must not import any npm package either (only node: built-ins).
 */
const boundary = (from, forbidden, { except = [], packages = true } = {}) => ({
  files: [`${from}/**/*.ts`, `${from}/**/*.tsx`],
  ignores: except.map((dir) => `${dir}/**`),
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            // Relative paths only: a package subpath such as `react-dom/server` is not the repo's server/.
            regex: `^\\.{1,2}/(?:.*/)?(?:${forbidden.join('|')})(?:/|$)`,
            message: `${from}/${except.length ? ` (outside ${except.map((dir) => `${dir}/`).join(', ')})` : ''} must not import ${forbidden.map((dir) => `${dir}/`).join(', ')} (README "Code map").`,
          },
          ...(packages
            ? []
            : [
                {
                  regex: '^(?!\\.{1,2}/|node:)',
                  message: `${from}/ is dependency-free: only relative imports inside it and node: built-ins (README "Code map").`,
                },
              ]),
        ],
      },
    ],
  },
});

const others = (...allowed) => FOLDERS.filter((dir) => !allowed.includes(dir));

/** The parts of the server; the platform is the rest of server/. */
const PARTS = ['server/ussd', 'server/chain', 'server/oracle'];
const PARTS_APART =
  'parts share code only through the platform (server/ outside the parts; README "Code map").';

/**
 * Boundaries inside server/, by resolved path (scripts/lint/import-boundaries.js): the parts never import each
 * other; the platform imports no part, except the files that compose them; inside the oracle, the agent runtime
 * does not import its HTTP routes (they use it).
 */
const SERVER_BOUNDARIES = [
  ...PARTS.map((part) => ({
    from: part,
    forbidden: PARTS.filter((other) => other !== part),
    because: PARTS_APART,
  })),
  {
    from: 'server',
    name: 'the platform (server/ outside the parts)',
    // The composition roots: they put the parts together (config.ts composes the parts' schemas).
    except: [...PARTS, 'server/main.ts', 'server/server.ts', 'server/app.ts', 'server/config.ts'],
    forbidden: PARTS,
    because:
      'it serves every part and knows none; only the composition roots (main.ts, server.ts, app.ts, config.ts) import parts (README "Code map").',
  },
  {
    from: 'server/config.ts',
    forbidden: PARTS,
    allow: [...PARTS.map((part) => `${part}/config.ts`), 'server/oracle/config-sections.ts'],
    // The oracle's list adds its plugins' sections to its own (server/oracle/config-sections.ts).
    because: "the platform's schema composes each part's own schema (its config.ts) and nothing else of it.",
  },
  {
    from: 'server/oracle/runtime',
    forbidden: ['server/oracle/http'],
    because:
      'the agent runtime runs turns whatever carries them; the HTTP routes use it, never the reverse (README "Code map").',
  },
];

export default tseslint.config(
  {
    ignores: [
      'generated/',
      '.build/',
      'node_modules/',
      'data/',
      'coverage/',
      'sdk/dist/',
      'sdk/scripts/consumer-app/',
      'sdk/test/consumer/.generated/',
      'demo/dist/',
      'demo/public/',
      'reports/',
      '.stryker-tmp/',
      // tsup's bundled config, written beside tsup.config.ts while the SDK builds (CI lints meanwhile).
      '**/*.config.bundled_*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-namespace': 'off',
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  // lib/: pure modules (USSD screen grammar, compiled menu-tree types) that import nothing.
  boundary('lib', others('lib'), { packages: false }),
  // server/ and sdk/ implement and call the contracts; never each other.
  boundary('server', others('lib', 'contracts', 'generated', 'server')),
  boundary('sdk', others('lib', 'contracts', 'generated', 'sdk')),
  // demo/: the demo page uses the SDK (and its contracts), never the server.
  boundary('demo', others('lib', 'contracts', 'generated', 'sdk', 'demo')),
  // scripts/ outside tools/: the generators, which read the sources and never run the server.
  boundary('scripts', others('lib', 'contracts', 'scripts'), {
    except: ['scripts/tools', 'scripts/config-docs'],
  }),
  // scripts/config-docs/: the configuration reference's generator; its sources are the server's config schemas.
  boundary('scripts/config-docs', others('lib', 'contracts', 'server', 'scripts')),
  // scripts/tools/: operator and developer tools, which run server code.
  boundary('scripts/tools', others('lib', 'contracts', 'generated', 'server', 'scripts')),
  // bench/: benchmark scripts; they may borrow test doubles, never the SDK.
  boundary('bench', ['sdk']),
  {
    files: ['server/**/*.ts'],
    plugins: { project: { rules: { 'import-boundaries': importBoundaries } } },
    rules: { 'project/import-boundaries': ['error', ...SERVER_BOUNDARIES] },
  },
  // contracts/ holds declarations only: it imports zod, ts-rest's contract builder and its own files, and no
  // runtime client code (ts-rest's clients live in sdk/, e.g. sdk/src/chain-client.ts).
  {
    files: ['contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!(zod|@ts-rest/core|\\./[^/]+)$)',
              message:
                'contracts/ imports only zod, @ts-rest/core and its own files (see ../shared/design/ARCHITECTURE.md, layering rules).',
            },
          ],
          paths: [
            {
              name: '@ts-rest/core',
              importNames: ['initClient', 'tsRestFetchApi', 'initQueryClient', 'getCompleteUrl', 'fetchApi'],
              message: 'contracts/ holds declarations only; runtime client code belongs in sdk/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'sdk/test/**/*.{ts,tsx}', 'sdk/bench/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);

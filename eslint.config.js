// ESLint flat config: type-aware typescript-eslint rules plus the import boundaries of the code map
// (README "Code map", ../shared/design/ARCHITECTURE.md "Layering rules"). Each folder lists the project
// folders it must not import; a new folder gets its line here and in the README.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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

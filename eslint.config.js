// ESLint flat config: type-aware typescript-eslint rules plus the import boundary of the architecture:
// server/ and sdk/ may import contracts/ and generated/, never each other.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const boundary = (from, forbidden) => ({
  files: [`${from}/**/*.ts`, `${from}/**/*.tsx`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            // Relative paths only: a package subpath such as `react-dom/server` is not the repo's server/.
            regex: `^\\.{1,2}/(?:.*/)?(?:${forbidden.join('|')})(?:/|$)`,
            message: `${from}/ must not import ${forbidden.join(' or ')}/ (see ../shared/design/ARCHITECTURE.md, layering rules).`,
          },
        ],
      },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      'generated/',
      'node_modules/',
      'data/',
      'coverage/',
      'sdk/dist/',
      'sdk/scripts/consumer-app/',
      'demo/dist/',
      'demo/public/',
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
  boundary('server', ['sdk']),
  boundary('sdk', ['server']),
  boundary('demo', ['server']),
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

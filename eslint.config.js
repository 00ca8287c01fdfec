import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * One `no-restricted-imports` rule per SDK folder: `layers` maps a folder's files to the src/ folders they may not
 * import (`!folder/module` makes an exception).
 */
function sdkLayers(layers) {
  return Object.entries(layers).map(([files, forbidden]) => ({
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: forbidden.map((folder) => (folder.startsWith('!') ? `!**/${folder.slice(1)}` : `**/${folder}/**`)),
              message: 'An upward import in the SDK (eslint.config.js sdkLayers).',
            },
          ],
        },
      ],
    },
  }));
}

export default tseslint.config(
  // examples/ are separate apps, each checked by its own toolchain when the e2e suite builds it (Vite and Next.js
  // type-check, CRA lints with CI=true); their build output (.next/, build/) is not ours to lint.
  {
    ignores: [
      'examples/**',
      '**/dist/**',
      '**/node_modules/**',
      'coverage/**',
      'test-results/**',
      'playwright-report/**',
      '.svc-data/**',
      '.tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    // Tests poke at untyped wire data; `any` there cannot leak into a public API.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // The browser SDK's layers (docs/architecture.md): nothing imports upward. The kernel (src/core) knows no integration
  // and no service; the pipeline knows neither replay nor the SDK; only the entries import the composition root.
  ...sdkLayers({
    'src/core/**': [
      'sdk',
      'signals',
      'tracing',
      'replay',
      'session',
      'otel',
      'cdn',
      'react',
      'pipeline',
      '!pipeline/items',
    ],
    'src/pipeline/**': ['sdk', 'signals', 'tracing', 'replay', 'session', 'otel', 'cdn', 'react'],
    'src/{config,session,replay,signals,tracing,otel}/**': ['sdk', 'cdn', 'react'],
  }),
  {
    // Functions short enough to read at once (issue 30 item 3): a long closure is split into named units. Migrations
    // are one schema step each, read top to bottom; the console's React pages are left to their own review.
    files: [
      'server/src/**/*.ts',
      'operator/src/**/*.ts',
      'bundler-plugin/src/**/*.ts',
      'playwright/src/**/*.ts',
      'src/**/*.ts',
    ],
    ignores: ['server/src/db/migrations/**', 'server/console/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
);

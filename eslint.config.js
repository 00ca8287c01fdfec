import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
);

import { defineConfig } from 'tsup';

// The fixture (`.`) and the reporter (`./reporter`, loaded by Playwright by its module name), as ES modules and
// CommonJS (a CommonJS playwright.config), with their type declarations. @playwright/test and @svc/browser stay
// external: they are the user's. `shims` gives the CommonJS build an import.meta.url (inject finds @svc/browser by it).
export default defineConfig({
  entry: { index: 'src/index.ts', reporter: 'src/reporter/reporter.ts' },
  format: ['esm', 'cjs'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  dts: true,
  sourcemap: false,
  splitting: true,
  shims: true,
});

import { defineConfig, devices } from '@playwright/test';
import { browserLaunchOptions } from './test/support/browser';

const CI = Boolean(process.env.CI);

/**
 * End-to-end suites in real Chromium. Each spec starts the reference server itself (from TypeScript, through
 * test/support/server.ts) and serves its page from a second local origin, so the page is cross-origin to ingest.
 * Chromium: Playwright's own build when installed, else Debian's /usr/bin/chromium (see test/support/browser.ts).
 */
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  fullyParallel: false,
  forbidOnly: CI,
  retries: 0,
  // Two cores: one browser per core at most.
  workers: 2,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: CI ? [['list'], ['line']] : [['list']],
  outputDir: 'test-results/e2e',
  use: {
    trace: 'retain-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: { ...devices['Desktop Chrome'], launchOptions: browserLaunchOptions() },
    },
  ],
});

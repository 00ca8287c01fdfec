import { defineConfig, devices } from '@playwright/test';
import { browserLaunchOptions } from './test/support/browser';

const CI = Boolean(process.env.CI);

/**
 * End-to-end suites in real Chromium, against the reference server as users run it: `svc-server start` from the build
 * (server/dist/cli.js, built by the global setup when stale) on a SQLite file, hence with its ingest writer thread
 * (test/support/svc-server.ts). One server per worker, a fresh project per test (test/e2e/fixtures.ts); specs needing
 * other settings start their own. Pages are served from a second local origin, so they are cross-origin to ingest.
 * Chromium: Playwright's own build when installed, else Debian's /usr/bin/chromium (see test/support/browser.ts).
 */
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './test/support/build-server-e2e.ts',
  fullyParallel: false,
  forbidOnly: CI,
  retries: 0,
  // Two cores: one browser per core at most.
  workers: 2,
  // A safety net, not a wait: the longest console tests take 15 to 25 s on a busy 2-core machine.
  timeout: 60_000,
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

import { defineConfig, devices } from '@playwright/test';
import type { SvcTestOptions } from '@svc/playwright';

/**
 * The shop's own end-to-end suite, observed by svc: the `@svc/playwright` fixture hands every page its test, flushes
 * the SDK after each test and checks for errors; its reporter sends the run to the server. Set SVC_URL and
 * SVC_CONTROL_KEY (the reporter's and the fixture's key), and BASE_URL to the app (`npm run preview` serves the build
 * on http://localhost:4173). CHROMIUM_PATH runs a Chromium of the system instead of Playwright's own.
 */
export default defineConfig<SvcTestOptions>({
  testDir: 'e2e',
  // A test that fails once and passes on its retry is flaky, not failed.
  retries: 1,
  workers: 1,
  timeout: 20_000,
  expect: { timeout: 2_000 },
  reporter: [['list'], ['@svc/playwright/reporter']],
  use: { baseURL: process.env.BASE_URL ?? 'http://localhost:4173' },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        // Playwright's own Chromium (`npx playwright install chromium`), or the one CHROMIUM_PATH names.
        launchOptions: process.env.CHROMIUM_PATH ? { executablePath: process.env.CHROMIUM_PATH, args: ['--no-sandbox', '--disable-gpu'] } : {},
      },
    },
  ],
});

import { defineConfig, type ReporterDescription } from '@playwright/test';
import type { SvcTestOptions } from '@svc/playwright';
import { browserLaunchOptions } from '../../../test/support/browser';

/**
 * bench:playwright's suite (bench/playwright/fixture.ts runs it as a nested Playwright): the same 40 trivial tests with
 * Playwright's plain `test` (project `plain`) and with @svc/playwright's (project `svc`, with its reporter). PAGE_URL
 * serves the page with the SDK's script tag; SVC_URL and SVC_CONTROL_KEY come from the bench, and so do RESULTS_FILE
 * (Playwright's JSON report) and BENCH_MODE (`svc` adds the reporter).
 */
const reporter: ReporterDescription[] = [['json', { outputFile: process.env.RESULTS_FILE }]];
if (process.env.BENCH_MODE === 'svc') reporter.push(['@svc/playwright/reporter', { backoffMs: 100, retries: 2 }]);

export default defineConfig<SvcTestOptions>({
  testDir: '.',
  retries: 0,
  workers: 1,
  timeout: 20_000,
  outputDir: process.env.OUTPUT_DIR,
  reporter,
  use: { baseURL: process.env.PAGE_URL, launchOptions: browserLaunchOptions(), trace: 'off', screenshot: 'off', video: 'off', svc: { flushTimeoutMs: 2_000 } },
  projects: [
    { name: 'plain', testMatch: 'plain.spec.ts' },
    { name: 'svc', testMatch: 'svc.spec.ts' },
  ],
});

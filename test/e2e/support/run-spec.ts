/**
 * Runs a Playwright spec the server generated (a session export, an issue's reproduction test) the way its user would:
 * `npx playwright test` in a child process, against the app at `origin` (SVC_REPLAY_BASE_URL), with this machine's
 * Chromium. The spec is written under test-results/, inside the repository, so it resolves `@playwright/test` from its
 * node_modules; its output is attached to the calling test.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { browserLaunchOptions } from '../../support/browser';
import { ROOT } from '../../support/build-sdk';

export interface SpecRun {
  /** The exit status of `playwright test`: 0 when the spec passed. */
  status: number | null;
  output: string;
}

/** Writes `spec` as `test-results/<folder>/<fileName>` with a one-worker config, runs it, and attaches its output. */
export async function runGeneratedSpec(folder: string, fileName: string, spec: string, origin: string): Promise<SpecRun> {
  const dir = join(ROOT, 'test-results', folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, fileName), spec);
  const config = { testDir: '.', outputDir: 'results', timeout: 60_000, retries: 0, workers: 1, reporter: [['list']], use: { launchOptions: browserLaunchOptions() } };
  writeFileSync(join(dir, 'playwright.config.mjs'), `export default ${JSON.stringify(config)};\n`);
  await test.info().attach(`generated ${fileName}`, { body: spec, contentType: 'text/plain' });
  // Asynchronous: the reference server answering the replayed app's telemetry may run in this process.
  const run = await new Promise<SpecRun>((resolve) => {
    const child = spawn('npx', ['playwright', 'test', '--config', join(dir, 'playwright.config.mjs')], {
      cwd: ROOT,
      env: { ...process.env, SVC_REPLAY_BASE_URL: origin, CI: '' },
      timeout: 120_000,
    });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    child.stderr.on('data', (data: Buffer) => (output += data.toString()));
    child.on('close', (status) => resolve({ status, output }));
  });
  await test.info().attach(`run of ${folder}/${fileName}`, { body: run.output, contentType: 'text/plain' });
  return run;
}

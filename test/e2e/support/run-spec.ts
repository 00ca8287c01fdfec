/**
 * Runs a Playwright spec the server generated (a session export, an issue's reproduction test) the way its user would:
 * `npx playwright test` in a child process, against the app at `origin` (SVC_REPLAY_BASE_URL), with this machine's
 * Chromium. The spec is written under test-results/, inside the repository, so it resolves `@playwright/test` and
 * `@svc/playwright` (the workspace link to playwright/dist: see ensurePackageBuilt) from its node_modules; its output
 * is attached to the calling test. With `svc`, the run is reported by `@svc/playwright/reporter` as a CI job reports it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { browserLaunchOptions } from '../../support/browser';
import { ROOT } from '../../support/build-sdk';
import { childEnv } from '../../support/child-env';

export interface SpecRun {
  /** The exit status of `playwright test`: 0 when the spec passed. */
  status: number | null;
  output: string;
}

/** Where and as what the run is reported: the svc server, and the variables of the CI job it runs as. */
export interface SvcReport {
  url: string;
  controlKey: string;
  /** The CI service's variables the reporter reads (playwright/src/ci.ts): commit, branch, build id. */
  ci: Record<string, string>;
}

/** Variables of CI services (this machine's own CI among them) that would tell the reporter another job's facts. */
const CI_VARIABLE = /^(CI_|GITHUB_|GITLAB_|CIRCLE|BUILDKITE|JENKINS_|BUILD_|GIT_COMMIT$|GIT_BRANCH$|BRANCH_NAME$)/;

/** The child's variables: no svc or CI variables but those given, so the outer run's own never leak into it. */
function specEnv(origin: string, svc: SvcReport | undefined): NodeJS.ProcessEnv {
  const env = childEnv({ SVC_REPLAY_BASE_URL: origin, CI: '' });
  if (!svc) return env;
  for (const key of Object.keys(env)) if (CI_VARIABLE.test(key)) delete env[key];
  return { ...env, ...svc.ci, SVC_URL: svc.url, SVC_CONTROL_KEY: svc.controlKey };
}

/**
 * Writes `spec` as `test-results/<folder>/<fileName>` with a one-worker config, runs it, and attaches its output; with
 * `svc`, through `@svc/playwright/reporter` too.
 */
export async function runGeneratedSpec(
  folder: string,
  fileName: string,
  spec: string,
  origin: string,
  svc?: SvcReport,
): Promise<SpecRun> {
  const dir = join(ROOT, 'test-results', folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, fileName), spec);
  const config = {
    testDir: '.',
    outputDir: 'results',
    timeout: 60_000,
    retries: 0,
    workers: 1,
    reporter: [['list'], ...(svc ? [['@svc/playwright/reporter']] : [])],
    use: { launchOptions: browserLaunchOptions() },
  };
  writeFileSync(join(dir, 'playwright.config.mjs'), `export default ${JSON.stringify(config)};\n`);
  await test.info().attach(`generated ${fileName}`, { body: spec, contentType: 'text/plain' });
  // Asynchronous: the reference server answering the replayed app's telemetry may run in this process.
  const run = await new Promise<SpecRun>((resolve) => {
    const child = spawn('npx', ['playwright', 'test', '--config', join(dir, 'playwright.config.mjs')], {
      cwd: ROOT,
      env: specEnv(origin, svc),
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

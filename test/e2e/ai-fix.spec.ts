import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { createTwoFilesPatch } from 'diff';
import {
  EXAMPLES,
  copyExample,
  formatTimings,
  prepareExample,
  viteReactIn,
  type RunningApp,
  type SdkSettings,
  type Timed,
} from '../support/examples';
import { startFakeGithub, type FakeGithub, type FakePull } from '../support/fake-github';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import type { IssueDetail, IssueSummary } from '../support/issues';
import { ensurePackageBuilt } from '../support/playwright-package';
import { controlGet, type TestServer } from '../support/svc-server';
import { signIn } from './console/support';
import { startIngest } from './examples/scenario';
import { runGeneratedSpec } from './support/run-spec';

/**
 * Issue 18's proof, from a bug to its fix: the Vite example's "Show loyalty points" button (a seeded bug: it reads the
 * points of a 500 answer) is recorded in Chromium with the SDK; the issue is analysed by the production `openai`
 * client against a local server speaking the chat-completions wire format, whose scripted answer proposes the fix; the
 * pull request is opened by the production octokit against a local server speaking GitHub's REST wire format. Its
 * files are the patched source and the reproduction test, which then runs with Playwright against the app: it fails on
 * the buggy build and passes on a build of the patched source. Both builds are copies of the example (copyExample).
 * Issue 28's loop: each run of the reproduction test goes through `@svc/playwright/reporter` as GitHub Actions would
 * run it (on the default branch at the release, on the pull request's branch at its head), and the issue lists both.
 */

const LOYALTY_ERROR = "Cannot read properties of undefined (reading 'total')";
const APP_SOURCE = 'src/App.tsx';
const BUGGY_LINE = 'setPoints(loyalty.points.total);';
const FIXED_LINE = 'setPoints(loyalty.points?.total ?? 0);';
/** The example's files the repository holds, as the source map names them. */
const REPOSITORY_FILES = [
  APP_SOURCE,
  'src/coupons.ts',
  'src/main.tsx',
  'index.html',
  'package.json',
  'vite.config.ts',
  'echo-api.ts',
  'loyalty-api.ts',
  'tsconfig.json',
];

interface Analysis {
  state: 'queued' | 'running' | 'done' | 'failed';
  mode: 'model' | 'heuristic';
  result: { root_cause: string; diff: string | null; diff_applies: boolean } | null;
}
interface PullRequest {
  number: number;
  url: string;
  branch: string;
  commit_sha: string;
  created: boolean;
}

let model: FakeOpenAi;
let github: FakeGithub;
let ingest: TestServer;
let buggy: { dir: string; remove(): void };
let patched: { dir: string; remove(): void } | undefined;
const timings: Timed[] = [];

test.beforeAll(async () => {
  // A cold install of the example, on two shared cores.
  test.setTimeout(600_000);
  // The reproduction test imports @svc/playwright, and its runs load the reporter: both from playwright/dist.
  ensurePackageBuilt();
  model = await startFakeOpenAi();
  ingest = await startIngest({
    'ai-base-url': model.baseUrl,
    'ai-model': 'fix-model',
    'ai-api-key': 'sk-test-not-a-secret',
  });
  timings.push(...(await prepareExample(EXAMPLES['vite-react'])));
  buggy = copyExample(EXAMPLES['vite-react']);
  github = await startFakeGithub({
    files: Object.fromEntries(REPOSITORY_FILES.map((file) => [file, readFileSync(join(buggy.dir, file), 'utf8')])),
  });
});

test.afterAll(async () => {
  console.log(formatTimings('vite-react AI fix', timings));
  buggy?.remove();
  patched?.remove();
  await github?.close();
  await model?.close();
  await ingest?.close();
});

async function control<T>(method: 'POST' | 'PUT', path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${ingest.url}/control-plane${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ingest.controlKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Builds the example in `dir` as `release` (uploading its source maps) and serves the production build. */
async function buildAndServe(dir: string, release: string): Promise<RunningApp> {
  const example = viteReactIn(dir);
  const settings: SdkSettings = { ingestUrl: ingest.url, apiKey: ingest.ingestKey, env: 'production', release };
  timings.push(await example.build(settings, { serverUrl: ingest.url, controlKey: ingest.controlKey }));
  return example.start('production', settings);
}

/** Clicks the loyalty button and waits for the page's uncaught error, then has the SDK send the replay it holds. */
async function hitTheBug(page: Page, origin: string): Promise<string> {
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}`));
  await page.goto(origin);
  await expect(page.getByTestId('session')).toHaveText(/\S/);
  const sessionId = (await page.getByTestId('session').textContent())!.trim();
  await page.getByRole('button', { name: 'Show loyalty points' }).click();
  await expect
    .poll(() => pageErrors, { message: 'the loyalty error reached the page' })
    .toContain(`TypeError: ${LOYALTY_ERROR}`);
  await page.evaluate(async () => {
    const slot = (globalThis as Record<symbol, { sdk?: { flushReplay(): Promise<void> } } | undefined>)[
      Symbol.for('svc.browser.sdk')
    ];
    await slot?.sdk?.flushReplay();
  });
  return sessionId;
}

/** Waits until the detector made the error an issue, and its session's replay and recipes hold the click and the 500. */
async function waitForIssue(sessionId: string): Promise<IssueDetail> {
  let issue: IssueSummary | undefined;
  await expect
    .poll(
      async () => {
        issue = (await controlGet<{ data: IssueSummary[] }>(ingest, '/issues')).body.data.find(
          (i) => i.message === LOYALTY_ERROR,
        );
        if (!issue) return 'no issue yet';
        const replay = await controlGet<{ events: Array<{ type: number; data: { source?: number; type?: number } }> }>(
          ingest,
          `/sessions/${sessionId}/replay?limit=200`,
        );
        if (!replay.body.events.some((e) => e.type === 3 && e.data.source === 2 && e.data.type === 2))
          return 'no click in the replay yet';
        const recipes = await controlGet<{ data: Array<{ url: string; status: number }> }>(
          ingest,
          `/sessions/${sessionId}/recipes`,
        );
        return recipes.body.data.some((r) => r.url.endsWith('/api/loyalty') && r.status === 500)
          ? 'ready'
          : 'no recipe of /api/loyalty yet';
      },
      { message: 'the issue, and the session’s replay and recipes', timeout: 45_000, intervals: [500, 1000] },
    )
    .toBe('ready');
  return (await controlGet<IssueDetail>(ingest, `/issues/${issue!.id}`)).body;
}

/** The variables GitHub Actions sets in workflow run `runId` (first attempt) of a push to `branch` at `commit`. */
function githubPush(branch: string, commit: string, runId: string): Record<string, string> {
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: `${github.owner}/${github.repo}`,
    GITHUB_EVENT_NAME: 'push',
    GITHUB_REF: `refs/heads/${branch}`,
    GITHUB_REF_NAME: branch,
    GITHUB_SHA: commit,
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_ATTEMPT: '1',
  };
}

/** A workflow run id, unique to this spec's run; the reporter's run id is `<it>-<attempt>`. */
const workflowRun = () => String(1_000_000_000 + Math.floor(Math.random() * 1_000_000_000));

/** Runs the reproduction test against `origin`, reported to the spec's server as the CI job `ci` describes. */
const runReproduction = (name: string, spec: string, origin: string, ci: Record<string, string>) =>
  runGeneratedSpec(`ai-fix/${name}`, 'repro.spec.ts', spec, origin, {
    url: ingest.url,
    controlKey: ingest.controlKey,
    ci,
  });

test('a recorded bug gets an analysis, a pull request with the fix and its reproduction test, which fails before the fix and passes after, both runs listed on the issue', async ({
  page,
}) => {
  test.setTimeout(600_000);
  const release = github.branch(github.defaultBranch)!;
  const buggySource = readFileSync(join(buggy.dir, APP_SOURCE), 'utf8');
  expect(buggySource, 'the seeded bug').toContain(BUGGY_LINE);
  const fixedSource = buggySource.replace(BUGGY_LINE, FIXED_LINE);
  let issue: IssueDetail;
  let files: Record<string, string> = {};
  let reproduction = '';
  let pull: FakePull;
  let buggyApp: RunningApp | undefined;
  const buggyRun = workflowRun();
  const fixedRun = workflowRun();

  try {
    await test.step('the repository is connected, and the build of its head commit records the bug in Chromium', async () => {
      const connected = await control('PUT', `/apps/${ingest.appName}/repository`, {
        owner: github.owner,
        repo: github.repo,
        api_url: github.url,
        token: 'ghp_e2eTokenNotASecret0123456789abcdef',
      });
      expect(connected.status, JSON.stringify(connected.body)).toBe(200);
      buggyApp = await buildAndServe(buggy.dir, release);
      const sessionId = await hitTheBug(page, buggyApp.origin);
      issue = await waitForIssue(sessionId);
      expect(issue).toMatchObject({ type: 'TypeError', message: LOYALTY_ERROR, last_seen: { release } });
      expect(issue.stack.frames[0]?.original?.file, JSON.stringify(issue.stack)).toBe(APP_SOURCE);
    });

    await test.step('the model, scripted, proposes the null check; the server checks that it applies', async () => {
      const diff = createTwoFilesPatch(`a/${APP_SOURCE}`, `b/${APP_SOURCE}`, buggySource, fixedSource);
      const line = buggySource.split('\n').findIndex((l) => l.includes(BUGGY_LINE)) + 1;
      model.script({
        content: JSON.stringify({
          root_cause:
            'The loyalty button reads points.total from the answer of /api/loyalty, which has no points when it fails (500).',
          confidence: 0.9,
          locations: [{ file: APP_SOURCE, line }],
          diff,
          explanation: 'Show 0 points when the answer has none.',
        }),
      });
      const asked = await control<Analysis>('POST', `/issues/${issue.id}/analysis`);
      expect(asked.status, JSON.stringify(asked.body)).toBe(202);
      let analysis: Analysis | undefined;
      await expect
        .poll(
          async () => (analysis = (await controlGet<Analysis>(ingest, `/issues/${issue.id}/analysis`)).body).state,
          { message: 'the analysis finished', timeout: 30_000 },
        )
        .toBe('done');
      expect(analysis, JSON.stringify(analysis)).toMatchObject({ mode: 'model', result: { diff_applies: true } });
      expect(model.requests, 'one request to the model').toHaveLength(1);
    });

    await test.step('the pull request carries the patched source and the reproduction test, off the default branch', async () => {
      const opened = await control<PullRequest>('POST', `/issues/${issue.id}/pull-request`);
      expect(opened.status, JSON.stringify(opened.body)).toBe(201);
      expect(github.pulls).toHaveLength(1);
      pull = github.pulls[0]!;
      expect(pull).toMatchObject({
        number: opened.body.number,
        head: `svc/fix-${issue.id}`,
        base: github.defaultBranch,
        state: 'open',
      });
      expect(pull.body).toContain(issue.id);
      expect(github.branch(github.defaultBranch), 'the default branch is untouched').toBe(release);
      files = github.files(pull.head);
      expect(files[APP_SOURCE], 'the patched source').toBe(fixedSource);
      reproduction = files[`tests/svc/repro-${issue.id}.spec.ts`] ?? '';
      expect(reproduction, `the reproduction test among ${Object.keys(files).join(', ')}`).toContain(
        `issue ${issue.id}`,
      );
      expect(reproduction).toContain("getByRole('button', { name: 'Show loyalty points', exact: true }).click();");
    });

    await test.step('the reproduction test fails on the buggy build, on the issue’s error, run as CI runs the default branch', async () => {
      const run = await runReproduction(
        `${issue.id}-buggy`,
        reproduction,
        buggyApp!.origin,
        githubPush(github.defaultBranch, release, buggyRun),
      );
      expect(run.status, run.output.slice(-4000)).not.toBe(0);
      expect(run.output).toContain(`TypeError: ${LOYALTY_ERROR}`);
      expect(run.output).toContain('1 failed');
    });
  } finally {
    await buggyApp?.stop();
  }

  await test.step('with the pull request’s source, rebuilt, it passes, run as CI runs the pull request’s branch', async () => {
    patched = copyExample(EXAMPLES['vite-react']);
    writeFileSync(join(patched.dir, APP_SOURCE), files[APP_SOURCE]!);
    const fixedApp = await buildAndServe(patched.dir, `${release.slice(0, 12)}-fixed`);
    try {
      const run = await runReproduction(
        `${issue.id}-fixed`,
        reproduction,
        fixedApp.origin,
        githubPush(pull.head, pull.headSha, fixedRun),
      );
      expect(run.status, run.output.slice(-4000)).toBe(0);
      expect(run.output).toContain('1 passed');
    } finally {
      await fixedApp.stop();
    }
  });

  await test.step('the issue lists both runs: failed on the release, passed on the fix branch at its commit', async () => {
    const fixed = { run_id: `${fixedRun}-1`, branch: pull.head, commit: pull.headSha, status: 'passed' };
    const buggy = { run_id: `${buggyRun}-1`, branch: github.defaultBranch, commit: release, status: 'failed' };
    const detail = await controlGet<IssueDetail>(ingest, `/issues/${issue.id}`);
    expect(detail.status).toBe(200);
    // Newest first. No wait: the reporter delivered each run before its `playwright test` exited.
    expect(detail.body.reproductions).toEqual([
      { ...fixed, at: expect.any(String) },
      { ...buggy, at: expect.any(String) },
    ]);
    for (const [{ run_id, branch, commit, status }, workflow] of [
      [fixed, fixedRun],
      [buggy, buggyRun],
    ] as const) {
      const run = await controlGet<unknown>(ingest, `/test-runs/${encodeURIComponent(run_id)}`);
      expect(run.body, `run ${run_id}`).toMatchObject({
        run_id,
        status,
        branch,
        commit,
        ci: {
          provider: 'github',
          job_url: `https://github.com/${github.owner}/${github.repo}/actions/runs/${workflow}`,
        },
      });
    }
  });

  await test.step('the console’s issue page shows both, each linked to its run', async () => {
    await signIn(page, ingest, { path: `/issue/${issue.id}` });
    const section = page.getByRole('region', { name: 'Reproduction test' });
    const lines: Array<[text: string, runId: string]> = [
      [`reproduction test passed on branch ${pull.head} at ${pull.headSha.slice(0, 7)}`, `${fixedRun}-1`],
      [`reproduction test failed on ${release.slice(0, 7)}`, `${buggyRun}-1`],
    ];
    await expect(section.getByRole('link')).toHaveText(lines.map(([text]) => text));
    for (const [text, runId] of lines)
      await expect(section.getByRole('link', { name: text })).toHaveAttribute('href', `/test-run/${runId}`);
  });
});

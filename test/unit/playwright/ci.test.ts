import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ciFromEnv } from '../../../playwright/src/ci';
import { ensureRunId, runIdFromEnv } from '../../../playwright/src/run-id';

/** Each provider's variables as its docs list them, and what the package reads from them. */
const PROVIDERS = [
  {
    name: 'GitHub Actions (pull request)',
    env: {
      GITHUB_ACTIONS: 'true',
      GITHUB_SHA: 'a1b2c3',
      GITHUB_HEAD_REF: 'fix/cart',
      GITHUB_REF_NAME: '42/merge',
      GITHUB_SERVER_URL: 'https://github.example.com',
      GITHUB_REPOSITORY: 'shop/web',
      GITHUB_RUN_ID: '9876543210',
      GITHUB_RUN_ATTEMPT: '2',
    },
    ci: {
      provider: 'github',
      commit: 'a1b2c3',
      branch: 'fix/cart',
      jobUrl: 'https://github.example.com/shop/web/actions/runs/9876543210',
      buildId: '9876543210-2',
    },
    runId: '9876543210-2',
  },
  {
    name: 'GitHub Actions (push: no head ref, empty as GitHub sets it)',
    env: {
      GITHUB_ACTIONS: 'true',
      GITHUB_SHA: 'a1b2c3',
      GITHUB_HEAD_REF: '',
      GITHUB_REF_NAME: 'main',
      GITHUB_REPOSITORY: 'shop/web',
      GITHUB_RUN_ID: '7',
    },
    ci: {
      provider: 'github',
      commit: 'a1b2c3',
      branch: 'main',
      jobUrl: 'https://github.com/shop/web/actions/runs/7',
      buildId: '7-1',
    },
    runId: '7-1',
  },
  {
    name: 'GitLab CI',
    env: {
      GITLAB_CI: 'true',
      CI_COMMIT_SHA: 'd4e5',
      CI_COMMIT_REF_NAME: 'main',
      CI_JOB_URL: 'https://gitlab.example.com/shop/-/jobs/55',
      CI_PIPELINE_ID: '1234',
    },
    ci: {
      provider: 'gitlab',
      commit: 'd4e5',
      branch: 'main',
      jobUrl: 'https://gitlab.example.com/shop/-/jobs/55',
      buildId: '1234',
    },
    runId: '1234',
  },
  {
    name: 'CircleCI',
    env: {
      CIRCLECI: 'true',
      CIRCLE_SHA1: 'f6',
      CIRCLE_BRANCH: 'dev',
      CIRCLE_BUILD_URL: 'https://circleci.com/gh/shop/web/77',
      CIRCLE_WORKFLOW_ID: 'wf-uuid-1',
    },
    ci: {
      provider: 'circleci',
      commit: 'f6',
      branch: 'dev',
      jobUrl: 'https://circleci.com/gh/shop/web/77',
      buildId: 'wf-uuid-1',
    },
    runId: 'wf-uuid-1',
  },
  {
    name: 'Buildkite',
    env: {
      BUILDKITE: 'true',
      BUILDKITE_COMMIT: '0a',
      BUILDKITE_BRANCH: 'release',
      BUILDKITE_BUILD_URL: 'https://buildkite.com/shop/web/builds/3',
      BUILDKITE_BUILD_ID: 'bk-uuid',
    },
    ci: {
      provider: 'buildkite',
      commit: '0a',
      branch: 'release',
      jobUrl: 'https://buildkite.com/shop/web/builds/3',
      buildId: 'bk-uuid',
    },
    runId: 'bk-uuid',
  },
  {
    name: 'Jenkins (multibranch: BRANCH_NAME)',
    env: {
      JENKINS_URL: 'https://ci.example.com/',
      GIT_COMMIT: '1b',
      BRANCH_NAME: 'main',
      GIT_BRANCH: 'origin/main',
      BUILD_URL: 'https://ci.example.com/job/web/8/',
      BUILD_TAG: 'jenkins-web-8',
    },
    ci: {
      provider: 'jenkins',
      commit: '1b',
      branch: 'main',
      jobUrl: 'https://ci.example.com/job/web/8/',
      buildId: 'jenkins-web-8',
    },
    runId: 'jenkins-web-8',
  },
  {
    name: 'Jenkins (freestyle: GIT_BRANCH; a tag with spaces becomes a valid run id)',
    env: {
      JENKINS_URL: 'https://ci.example.com/',
      GIT_COMMIT: '1b',
      GIT_BRANCH: 'origin/main',
      BUILD_TAG: 'jenkins-My Folder/web-8',
    },
    ci: { provider: 'jenkins', commit: '1b', branch: 'origin/main', buildId: 'jenkins-My Folder/web-8' },
    runId: 'jenkins-My-Folder-web-8',
  },
];

describe('CI variables', () => {
  for (const p of PROVIDERS) {
    it(`reads ${p.name}`, () => {
      expect(ciFromEnv(p.env)).toEqual(p.ci);
      expect(runIdFromEnv(p.env)).toBe(p.runId);
    });
  }

  it("GitHub pull_request: the pull request's head commit from the event payload, not the merge commit GITHUB_SHA names", () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-gh-event-'));
    try {
      const event = join(dir, 'event.json');
      writeFileSync(event, JSON.stringify({ pull_request: { head: { sha: 'head1234' } } }));
      const env = {
        GITHUB_ACTIONS: 'true',
        GITHUB_SHA: 'merge999',
        GITHUB_HEAD_REF: 'svc/fix-7',
        GITHUB_EVENT_PATH: event,
      };
      expect(ciFromEnv({ ...env, GITHUB_EVENT_NAME: 'pull_request' }).commit).toBe('head1234');
      expect(ciFromEnv({ ...env, GITHUB_EVENT_NAME: 'push' }).commit).toBe('merge999');
      writeFileSync(event, '{ not json');
      expect(ciFromEnv({ ...env, GITHUB_EVENT_NAME: 'pull_request' }).commit).toBe('merge999');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds no provider (and no run id) outside CI; SVC_RUN_ID wins over any build id', () => {
    expect(ciFromEnv({ CI: 'true', GIT_COMMIT: 'x' })).toEqual({});
    expect(runIdFromEnv({})).toBeUndefined();
    expect(runIdFromEnv({ SVC_RUN_ID: 'nightly-12', GITLAB_CI: 'true', CI_PIPELINE_ID: '1' })).toBe('nightly-12');
  });

  it('cuts a run id to the 128 characters the server accepts', () => {
    expect(runIdFromEnv({ SVC_RUN_ID: 'x'.repeat(300) })).toHaveLength(128);
  });
});

describe('run id', () => {
  it('is made once, as a UUID put into the env the workers inherit, when neither SVC_RUN_ID nor a CI build gives one', () => {
    const env: NodeJS.ProcessEnv = {};
    const id = ensureRunId(env);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(env.SVC_RUN_ID).toBe(id);
    expect(ensureRunId(env)).toBe(id);
  });

  it("is the CI build's id when there is one, also put into the env", () => {
    const env: NodeJS.ProcessEnv = { GITLAB_CI: 'true', CI_PIPELINE_ID: '1234' };
    expect(ensureRunId(env)).toBe('1234');
    expect(env.SVC_RUN_ID).toBe('1234');
  });
});

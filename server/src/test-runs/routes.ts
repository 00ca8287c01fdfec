import { createRoute } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, jsonBody, readControlJson, needs } from '../http/openapi';
import { readSortedCursor, sortedPage } from '../shared/keyset';
import { flakyTests } from './flaky';
import { runJson } from './json';
import { historyJson, MAX_RUN_TESTS, runTests, testCase, testHistory } from './reads';
import {
  FinishBody,
  FlakyQuery,
  FlakySchema,
  HistoryQuery,
  HistorySchema,
  PutRunBody,
  ResultsBody,
  RunDetailSchema,
  RunListSchema,
  runParams,
  RunSchema,
  RunsQuery,
  StoredSchema,
  TEST_RUN_LIMITS,
  testKeyParams,
} from './schemas';
import { finishRun, getRun, listRuns, putRun, RUNS_SORT, storeResults } from './store';

const control = { tags: ['test runs'] };
const STARTED = '2026-01-01T10:00:00.000Z';

const putRoute = createRoute({
  ...needs('releases.write'),
  ...control,
  method: 'put',
  path: '/test-runs/{run_id}',
  summary: 'Create or update a test run (idempotent; every shard PUTs the same run)',
  description: 'The earliest `started_at` wins; each field given replaces the stored one, fields left out keep theirs.',
  middleware: [readControlJson],
  request: {
    params: runParams,
    body: jsonBody(PutRunBody, {
      started_at: STARTED,
      commit: '4f2a9c0',
      branch: 'main',
      ci: { provider: 'github', job_url: 'https://github.com/o/r/actions/runs/1' },
      shard: { current: 1, total: 2 },
    }),
  },
  responses: {
    200: jsonAnswer('Updated', RunSchema),
    201: jsonAnswer('Created', RunSchema),
    ...errors(400, 401, 403, 413, 415),
  },
});

const resultsRoute = createRoute({
  ...needs('releases.write'),
  ...control,
  method: 'post',
  path: '/test-runs/{run_id}/results',
  summary: `Store test results (1 to ${TEST_RUN_LIMITS.resultsPerRequest} attempts); makes the run when it is unknown`,
  description:
    'Idempotent: an attempt is stored once per (run, test key, retry), where the test key is the first 16 hex digits of sha256(file, title path and ' +
    'project, one per line); a re-sent one counts as a duplicate and changes nothing. An annotation `{type: "svc-issue", description: <issue id>}` links ' +
    "the attempt to that issue. The run's counts move in the same transaction. A request over a limit is refused whole with a 400 naming the field.",
  middleware: [readControlJson],
  request: {
    params: runParams,
    body: jsonBody(ResultsBody, {
      results: [
        {
          test_id: 'a1b2c3-d4e5',
          file: 'tests/checkout.spec.ts',
          line: 12,
          title_path: ['checkout', 'pays by card'],
          project: 'chromium',
          retry: 0,
          status: 'failed',
          expected_status: 'passed',
          duration_ms: 1520,
          started_at: STARTED,
          error: {
            message: 'expect(locator).toBeVisible() failed',
            location: { file: 'tests/checkout.spec.ts', line: 20, column: 5 },
          },
        },
      ],
    }),
  },
  responses: { 200: jsonAnswer('Stored', StoredSchema), ...errors(400, 401, 403, 413, 415) },
});

const finishRoute = createRoute({
  ...needs('releases.write'),
  ...control,
  method: 'post',
  path: '/test-runs/{run_id}/finish',
  summary: 'Finish a test run, or one shard of it',
  description:
    "A sharded run is finished once every shard has: its status is the worst shard's (interrupted, timedout, failed, passed), its duration the longest.",
  middleware: [readControlJson],
  request: { params: runParams, body: jsonBody(FinishBody, { status: 'failed', duration_ms: 61_000 }) },
  responses: { 200: jsonAnswer('The run', RunSchema), ...errors(400, 401, 403, 404, 413, 415) },
});

const listRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/test-runs',
  summary: 'Test runs, newest first (by start, then run id)',
  request: { query: RunsQuery },
  responses: { 200: jsonAnswer('A page', RunListSchema), ...errors(400, 401, 403) },
});

const getRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/test-runs/{run_id}',
  summary: 'A test run with its tests, failed first, their attempts and the sessions each attempt recorded',
  description: `At most ${MAX_RUN_TESTS} tests.`,
  request: { params: runParams },
  responses: { 200: jsonAnswer('The run', RunDetailSchema), ...errors(400, 401, 403, 404) },
});

// Before /tests/{test_key}: "flaky" is not a test key.
const flakyRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/tests/flaky',
  summary: 'Flaky tests over the newest N runs, highest flip rate first',
  description:
    'A test is flaky when it passed on retry in one of the runs, or passed in one and failed in another at the same commit.',
  request: { query: FlakyQuery },
  responses: { 200: jsonAnswer('The flaky tests', FlakySchema), ...errors(400, 401, 403) },
});

const historyRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/tests/{test_key}',
  summary: 'A test and its results over runs, newest run first',
  request: { params: testKeyParams, query: HistoryQuery },
  responses: { 200: jsonAnswer('The history', HistorySchema), ...errors(400, 401, 403, 404) },
});

/** `/control-plane/test-runs` and `/control-plane/tests`: Playwright runs as @svc/playwright's reporter sends them. */
export function testRunRoutes(services: Services) {
  const store = { db: services.db, dialect: services.dialect, clock: services.clock };
  return createRouter()
    .openapi(putRoute, async (c) => {
      const { run, created } = await putRun(
        store,
        c.get('caller').projectId,
        c.req.valid('param').run_id,
        c.req.valid('json'),
      );
      return created ? c.json(runJson(run), 201) : c.json(runJson(run), 200);
    })
    .openapi(resultsRoute, async (c) => {
      const { results } = c.req.valid('json');
      return c.json(await storeResults(store, c.get('caller').projectId, c.req.valid('param').run_id, results), 200);
    })
    .openapi(finishRoute, async (c) => {
      const { run_id: runId } = c.req.valid('param');
      const run = await finishRun(store, c.get('caller').projectId, runId, c.req.valid('json'));
      return c.json(runJson(run), 200);
    })
    .openapi(listRoute, async (c) => {
      const { limit, cursor, ...filter } = c.req.valid('query');
      const rows = await listRuns(
        services.db,
        c.get('caller').projectId,
        filter,
        readSortedCursor(cursor, RUNS_SORT),
        limit + 1,
      );
      const { data, next_cursor } = sortedPage(rows, limit, RUNS_SORT, runJson, (r) => ({
        t: r.started_ms,
        k: r.run_id,
      }));
      return c.json({ data, next_cursor }, 200);
    })
    .openapi(getRoute, async (c) => {
      const { run_id: runId } = c.req.valid('param');
      const { projectId } = c.get('caller');
      const run = await getRun(services.db, projectId, runId);
      return c.json({ ...runJson(run), tests: await runTests(services.db, projectId, runId) }, 200);
    })
    .openapi(flakyRoute, async (c) => {
      return c.json(
        { data: await flakyTests(services.db, services.dialect, c.get('caller').projectId, c.req.valid('query')) },
        200,
      );
    })
    .openapi(historyRoute, async (c) => {
      const { test_key: key } = c.req.valid('param');
      const { limit, cursor } = c.req.valid('query');
      const { projectId } = c.get('caller');
      const test = await testCase(services.db, projectId, key);
      const rows = await testHistory(services.db, projectId, key, readSortedCursor(cursor, RUNS_SORT), limit + 1);
      const { data, next_cursor } = sortedPage(rows, limit, RUNS_SORT, historyJson, (r) => ({
        t: r.run_started_ms,
        k: r.run_id,
      }));
      return c.json({ test, data, next_cursor }, 200);
    });
}

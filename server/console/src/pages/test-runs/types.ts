import type { InferResponseType } from 'hono/client';
import type { testRunsClient } from '../../api/typed';

/**
 * The answers of `/control-plane/test-runs` and `/control-plane/tests` the test pages read, as the server's schemas
 * declare them, through the typed client.
 */

export type RunList = InferResponseType<(typeof testRunsClient)['test-runs']['$get'], 200>;
export type Run = RunList['data'][number];
export type RunDetail = InferResponseType<(typeof testRunsClient)['test-runs'][':run_id']['$get'], 200>;
export type RunTest = RunDetail['tests'][number];
export type Attempt = RunTest['attempts'][number];
export type TestError = NonNullable<RunTest['error']>;
export type TestHistory = InferResponseType<(typeof testRunsClient)['tests'][':test_key']['$get'], 200>;
export type HistoryItem = TestHistory['data'][number];
export type FlakyList = InferResponseType<(typeof testRunsClient)['tests']['flaky']['$get'], 200>;
export type FlakyTest = FlakyList['data'][number];

export type RunStatus = Run['status'];
export type Outcome = HistoryItem['outcome'];
export type AttemptStatus = Attempt['status'];

/** The status filter's choices, checked against the server's list. */
export const RUN_STATUS_CHOICES = [
  'running',
  'passed',
  'failed',
  'interrupted',
  'timedout',
] as const satisfies readonly RunStatus[];

import type { z } from 'zod';
import type {
  FlakySchema,
  HistorySchema,
  OUTCOMES,
  RUN_STATUSES,
  RunDetailSchema,
  RunListSchema,
  TEST_STATUSES,
} from '../../../../src/test-runs/schemas';

/**
 * The answers of `/control-plane/test-runs` and `/control-plane/tests` the test pages read: the server's schemas
 * (server/src/test-runs/schemas.ts), imported as types only, so a renamed field breaks this build.
 */

export type RunStatus = (typeof RUN_STATUSES)[number];
export type Outcome = (typeof OUTCOMES)[number];
export type AttemptStatus = (typeof TEST_STATUSES)[number];

/** The status filter's choices, checked against the server's list. */
export const RUN_STATUS_CHOICES = [
  'running',
  'passed',
  'failed',
  'interrupted',
  'timedout',
] as const satisfies readonly RunStatus[];

export type RunList = z.output<typeof RunListSchema>;
export type Run = RunList['data'][number];
export type RunDetail = z.output<typeof RunDetailSchema>;
export type RunTest = RunDetail['tests'][number];
export type Attempt = RunTest['attempts'][number];
export type TestError = NonNullable<RunTest['error']>;
export type TestHistory = z.output<typeof HistorySchema>;
export type HistoryItem = TestHistory['data'][number];
export type FlakyList = z.output<typeof FlakySchema>;
export type FlakyTest = FlakyList['data'][number];

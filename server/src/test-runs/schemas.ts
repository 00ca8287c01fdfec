import { z } from '@hono/zod-openapi';
import { cursorQuery, intParam, limitQuery, pageOf, Time, TimeOrNull, rangeQuery } from '../http/schemas';
import { MAX_TIME_MS } from '../shared/time';

/** Bounds of what a request may carry (docs/api.md, "Test runs"); beyond them it is a 400 naming the field, nothing stored. */
export const TEST_RUN_LIMITS = {
  resultsPerRequest: 500,
  titleChars: 1024,
  fileChars: 1024,
  titlePathItems: 32,
  messageChars: 4 * 1024,
  stackChars: 16 * 1024,
  annotations: 50,
  annotationDescriptionChars: 4 * 1024,
  tags: 50,
  attachments: 100,
  nameChars: 256,
  urlChars: 2048,
  maxRetry: 100,
} as const;
const L = TEST_RUN_LIMITS;

export const TEST_STATUSES = ['passed', 'failed', 'timedOut', 'skipped', 'interrupted'] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];
export const FINISHED_RUN_STATUSES = ['passed', 'failed', 'interrupted', 'timedout'] as const;
export type FinishedRunStatus = (typeof FINISHED_RUN_STATUSES)[number];
export const RUN_STATUSES = ['running', ...FINISHED_RUN_STATUSES] as const;
export const OUTCOMES = ['expected', 'unexpected', 'flaky', 'skipped'] as const;
export type Outcome = (typeof OUTCOMES)[number];

const RUN_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const TEST_KEY = /^[0-9a-f]{16}$/;

export const runParams = z.object({
  run_id: z.string().regex(RUN_ID, { error: 'run_id must be 1 to 128 letters, digits, ".", "_", ":" or "-"' }).openapi({
    description: 'The run id the reporter chose (SVC_RUN_ID, the CI build, or a UUID)',
    example: '9876543210-1',
  }),
});
export const testKeyParams = z.object({
  test_key: z.string().regex(TEST_KEY, { error: 'test_key must be 16 lowercase hex digits' }).openapi({
    description: 'First 16 hex digits of sha256(file + "\\n" + title_path.join("\\n") + "\\n" + project)',
    example: '3f2a9c0d41b7e865',
  }),
});

/** An ISO 8601 date-time with an offset (`Z` or `+hh:mm`), read as epoch ms. */
const isoTime = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-01-01T00:00:00.000Z' })
  .transform((raw) => Date.parse(raw))
  .openapi({ type: 'string', format: 'date-time', example: '2026-01-01T00:00:00.000Z' });
const name = (max: number = L.nameChars) => z.string().trim().min(1).max(max);
const durationMs = z
  .number()
  .min(0)
  .max(MAX_TIME_MS)
  .transform(Math.round)
  .openapi({ type: 'number', description: 'Milliseconds' });
const shard = z
  .strictObject({ current: z.number().int().min(1).max(1000), total: z.number().int().min(1).max(1000) })
  .refine((s) => s.current <= s.total, { error: 'shard.current must be at most shard.total', path: ['current'] })
  .openapi({ description: "Playwright's shard of this process (config.shard)" });

export const PutRunBody = z.strictObject({
  started_at: isoTime,
  commit: name(128).optional(),
  branch: name().optional(),
  ci: z
    .strictObject({ provider: name(64).optional(), job_url: name(L.urlChars).optional(), build_id: name().optional() })
    .optional(),
  shard: shard.optional(),
  title: name(L.titleChars).optional(),
});
export type PutRun = z.output<typeof PutRunBody>;

const ErrorInput = z.strictObject({
  message: z.string().max(L.messageChars),
  stack: z.string().max(L.stackChars).optional(),
  location: z
    .strictObject({
      file: name(L.fileChars),
      line: z.number().int().min(0).max(10_000_000),
      column: z.number().int().min(0).max(10_000_000),
    })
    .optional(),
});

export const ResultInput = z.strictObject({
  test_id: name(),
  file: name(L.fileChars),
  line: z.number().int().min(0).max(10_000_000),
  title_path: z.array(z.string().max(L.titleChars)).min(1).max(L.titlePathItems),
  // Playwright's project name; '' when the config has no projects.
  project: z.string().max(L.nameChars),
  retry: z.number().int().min(0).max(L.maxRetry),
  status: z.enum(TEST_STATUSES),
  expected_status: z.enum(TEST_STATUSES),
  duration_ms: durationMs,
  started_at: isoTime,
  error: ErrorInput.optional(),
  // Items as Playwright gives them, bounded: an odd (even empty) name does not cost the whole batch.
  annotations: z
    .array(
      z.strictObject({
        type: z.string().max(L.nameChars),
        description: z.string().max(L.annotationDescriptionChars).optional(),
      }),
    )
    .max(L.annotations)
    .default([]),
  tags: z.array(z.string().max(L.nameChars)).max(L.tags).default([]),
  attachments: z.array(z.string().max(L.fileChars)).max(L.attachments).default([]),
});
export type ResultIn = z.output<typeof ResultInput>;

export const ResultsBody = z.strictObject({ results: z.array(ResultInput).min(1).max(L.resultsPerRequest) });

export const FinishBody = z.strictObject({
  status: z.enum(FINISHED_RUN_STATUSES),
  duration_ms: durationMs,
  shard: shard.optional(),
});
export type Finish = z.output<typeof FinishBody>;

export const RunsQuery = z.strictObject({
  branch: name().optional().openapi({ description: 'Only runs of this branch' }),
  commit: name(128).optional().openapi({ description: 'Only runs of this commit' }),
  status: z.enum(RUN_STATUSES).optional(),
  from: rangeQuery.from.openapi({ description: 'Runs started at or after: epoch ms or ISO 8601' }),
  to: rangeQuery.to.openapi({ description: 'Runs started before: epoch ms or ISO 8601' }),
  limit: limitQuery(50, 200),
  cursor: cursorQuery,
});
export type RunsFilter = Omit<z.output<typeof RunsQuery>, 'limit' | 'cursor'>;

export const HistoryQuery = z.strictObject({ limit: limitQuery(50, 200), cursor: cursorQuery });

export const FlakyQuery = z.strictObject({
  runs: intParam(1, 500)
    .default(50)
    .openapi({ description: 'How many of the newest runs (of the branch, when given) to look at' }),
  branch: name().optional().openapi({ description: 'Only runs of this branch' }),
  limit: limitQuery(100, 500),
});

const Counts = z.object({
  passed: z.number().int(),
  failed: z.number().int(),
  flaky: z.number().int(),
  skipped: z.number().int(),
  total: z.number().int(),
});

export const RunSchema = z
  .object({
    run_id: z.string(),
    status: z.enum(RUN_STATUSES),
    title: z.string().nullable(),
    started_at: Time,
    finished_at: TimeOrNull,
    duration_ms: z.number().int().nullable(),
    commit: z.string().nullable(),
    branch: z.string().nullable(),
    ci: z.object({ provider: z.string().nullable(), job_url: z.string().nullable(), build_id: z.string().nullable() }),
    shard_total: z.number().int().nullable(),
    counts: Counts.openapi({
      description:
        'Tests by outcome: passed (expected), failed (unexpected), flaky (failed, then passed on retry), skipped',
    }),
  })
  .openapi('TestRun');

const ErrorSchema = z
  .object({
    message: z.string(),
    stack: z.string().optional(),
    location: z.object({ file: z.string(), line: z.number().int(), column: z.number().int() }).optional(),
  })
  .nullable();

const AttemptSchema = z.object({
  retry: z.number().int(),
  status: z.enum(TEST_STATUSES),
  duration_ms: z.number().int(),
  started_at: Time,
  error: ErrorSchema,
  annotations: z.array(z.object({ type: z.string(), description: z.string().optional() })),
  tags: z.array(z.string()),
  attachments: z.array(z.string()),
  sessions: z
    .array(z.string())
    .openapi({ description: 'Sessions recorded during this attempt (test.run.id, test.id and test.retry)' }),
});

const TestFields = {
  test_key: z.string(),
  test_id: z.string(),
  title: z.string(),
  title_path: z.array(z.string()),
  file: z.string(),
  line: z.number().int(),
  project: z.string(),
};

export const RunDetailSchema = RunSchema.extend({
  tests: z
    .array(
      z.object({
        ...TestFields,
        outcome: z.enum(OUTCOMES),
        status: z
          .enum(TEST_STATUSES)
          .openapi({ description: 'Status of the final attempt (the highest retry stored)' }),
        retries: z.number().int(),
        duration_ms: z.number().int().openapi({ description: 'Sum of the attempts' }),
        error: ErrorSchema.openapi({
          description: 'Error of the highest retry that had one (a flaky test keeps the error it recovered from)',
        }),
        attempts: z.array(AttemptSchema),
      }),
    )
    .openapi({ description: 'Failed first, then flaky, passed and skipped; by title within each' }),
}).openapi('TestRunDetail');

export const HistorySchema = z
  .object({
    test: z.object({ ...TestFields, first_seen: Time, last_seen: Time }),
    data: z.array(
      z.object({
        run_id: z.string(),
        started_at: Time.openapi({ description: "The run's start" }),
        commit: z.string().nullable(),
        branch: z.string().nullable(),
        outcome: z.enum(OUTCOMES),
        status: z.enum(TEST_STATUSES),
        retries: z.number().int(),
        duration_ms: z.number().int(),
        error: ErrorSchema,
      }),
    ),
    next_cursor: z.string().nullable(),
  })
  .openapi('TestHistory');

export const FlakySchema = z
  .object({
    data: z.array(
      z.object({
        test_key: z.string(),
        title: z.string(),
        file: z.string(),
        project: z.string(),
        runs: z.number().int().openapi({ description: 'Runs in the window in which the test ran (not skipped)' }),
        flaky_runs: z.number().int().openapi({ description: 'Runs in which it failed, then passed on retry' }),
        flips: z
          .number()
          .int()
          .openapi({ description: 'Flaky runs plus changes between passed and failed from one run to the next' }),
        flip_rate: z.number().openapi({ description: 'flips / runs' }),
        last_flips: z
          .array(z.object({ run_id: z.string(), commit: z.string().nullable(), at: Time, outcome: z.enum(OUTCOMES) }))
          .openapi({ description: 'The newest flips first, at most 10' }),
      }),
    ),
  })
  .openapi('FlakyTests');

export const RunListSchema = pageOf(RunSchema);
export const StoredSchema = z.object({
  stored: z.number().int().openapi({ description: 'Attempts stored by this request' }),
  duplicates: z
    .number()
    .int()
    .openapi({ description: 'Attempts already stored (a re-sent result), left as they were' }),
});

import { z } from '@hono/zod-openapi';
import { assigneeQuery, assignmentFields } from '../assignment/schemas';
import { cursorQuery, limitQuery, Time, TimeOrNull, rangeQuery, userIdQuery } from '../http/schemas';
import { ISSUE_STATUSES } from '../incidents/detect/tables';
import { BREAKDOWN_DISTINCT_CAP, BREAKDOWN_TOP } from './store/breakdown';
import { ISSUE_SORTS, SEEN_IN } from './store/list';
import { SETTABLE_STATUSES } from './store/status';
import { TREND_PERIODS } from './store/trends';

/** Requests and answers of `/control-plane/issues` (docs/issues.md). */

/** Longest `q`, `env` and `release` accepted: longer cannot match anything stored worth finding. */
const MAX_TEXT = 200;
const text = (description: string) => z.string().max(MAX_TEXT).optional().openapi({ description });
const seen = z.object({ at: Time, release: z.string().nullable() });
const counted = { events: z.number().int(), sessions: z.number().int() };
const SeenInSchema = z
  .object({
    production: z.object(counted).openapi({ description: 'Errors and sessions of every environment but `test`' }),
    tests: z
      .object({ ...counted, run_count: z.number().int().openapi({ description: 'Test runs it was seen in' }) })
      .openapi({ description: 'Errors and sessions of test runs (env `test`)' }),
  })
  .openapi({ description: 'Where the issue was seen; `events` and `sessions` are the production figures' });

export const IssueSchema = z
  .object({
    id: z.string().openapi({ description: 'The fingerprint: 16 hex characters' }),
    status: z.enum(ISSUE_STATUSES),
    type: z.string(),
    message: z.string().openapi({ description: "One occurrence's message, personal and secret data masked" }),
    app: z.string(),
    env: z.string(),
    events: z
      .number()
      .int()
      .openapi({ description: 'Errors ever counted in production (test runs are in `seen_in.tests`)' }),
    sessions: z.number().int().openapi({ description: 'Distinct production sessions ever affected' }),
    first_seen: seen,
    last_seen: seen,
    top_frame: z.string().nullable(),
    status_changed_at: TimeOrNull,
    status_by: z.string().nullable(),
    in_next_release: z.boolean(),
    resolved_release: z.string().nullable(),
    incident_id: z.string().nullable(),
    seen_in: SeenInSchema,
    caught_in_tests: z.boolean().openapi({ description: 'Its first error came from a test run' }),
    ...assignmentFields,
  })
  .openapi('Issue');

const TrendSchema = z
  .object({
    period: z.enum(Object.keys(TREND_PERIODS) as [keyof typeof TREND_PERIODS]),
    start: Time.openapi({ description: 'Start of the first bucket; the last bucket holds the current hour' }),
    bucket_ms: z.number().int().openapi({ description: 'Length of a bucket: an hour (24h) or a day (14d)' }),
    counts: z
      .array(z.number().int())
      .openapi({ description: 'Production errors per bucket, oldest first (24 hours or 14 days)' }),
  })
  .openapi('IssueTrend');

export const IssueListItemSchema = IssueSchema.extend({
  trend: TrendSchema.openapi({ description: 'Errors over the period `trend` asks for' }),
}).openapi('IssueListItem');

const FacetSchema = z.object({
  top: z
    .array(
      z.object({
        value: z.string().nullable().openapi({ description: 'null: errors that did not say' }),
        count: z.number().int(),
      }),
    )
    .openapi({ description: `The ${BREAKDOWN_TOP} largest values` }),
  distinct: z
    .number()
    .int()
    .openapi({
      description: `Distinct known values (for \`user\`: the users affected), at most ${BREAKDOWN_DISTINCT_CAP}`,
    }),
  distinct_capped: z.boolean().openapi({ description: 'More distinct values exist than `distinct`' }),
  total: z
    .number()
    .int()
    .openapi({ description: "Errors counted under those values: a value's share is count / total" }),
});

const BreakdownSchema = z
  .object({ browser: FacetSchema, os: FacetSchema, release: FacetSchema, route: FacetSchema, user: FacetSchema })
  .openapi('IssueBreakdown', {
    description:
      'Production errors by browser and major version, operating system, release, route pattern of the page and user (`user.id`); values unseen for the retention period are dropped',
  });

export const Frame = z.object({
  function: z.string(),
  url: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  in_app: z.boolean(),
  debug_id: z.string().nullable(),
  original: z
    .object({
      file: z.string(),
      line: z.number().int(),
      column: z.number().int(),
      function: z.string().nullable(),
      context: z.object({ start_line: z.number().int(), lines: z.array(z.string()) }).nullable(),
    })
    .nullable(),
});

export const MissingMapsSchema = z
  .object({
    files: z
      .array(z.object({ url: z.string(), debug_id: z.string().nullable() }))
      .openapi({ description: "The app's scripts of the stack that no uploaded map covers, in stack order" }),
    release: z
      .string()
      .nullable()
      .openapi({ description: "The error's release (`service.version`), which maps without a debug ID are found by" }),
    upload_command: z.string().openapi({
      description:
        "The CLI line that uploads their maps, run on the build's output folder (the one served at the site's root)",
      example:
        'npx svc-server sourcemaps upload path/to/build --release 7.1 --url https://svc.example.com --control-key <control key>',
    }),
  })
  .nullable()
  .openapi({ description: 'Null when every in-app frame has its map (docs/source-maps.md, "When a map is missing")' });

export const IssueDetailSchema = IssueSchema.extend({
  seen_in: SeenInSchema.extend({
    tests: SeenInSchema.shape.tests.extend({
      runs: z.array(z.string()).openapi({ description: 'Ids of the newest runs it was seen in, at most 20' }),
      tests: z
        .array(z.object({ test_id: z.string(), title: z.string().nullable() }))
        .openapi({ description: 'The tests it was seen in, most recent first, at most 20' }),
    }),
  }),
  reproductions: z
    .array(
      z.object({
        run_id: z.string(),
        branch: z.string().nullable(),
        commit: z.string().nullable(),
        status: z.string().openapi({ enum: ['passed', 'failed', 'timedOut', 'skipped', 'interrupted'] }),
        at: Time.openapi({ description: 'When the attempt started' }),
      }),
    )
    .openapi({
      description:
        "Test attempts annotated `svc-issue` with this issue's id (the AI fix's reproduction test), newest first, at most 20",
    }),
  stack: z.object({ raw: z.string().nullable(), frames: z.array(Frame), missing_maps: MissingMapsSchema }),
  merged_from: z.array(z.object({ id: z.string(), at: Time })).openapi({
    description:
      'Issues merged into this one once a map placed their frame (their ids answer as this issue), newest first',
  }),
  last_event: z.object({ at: Time, release: z.string().nullable(), session_id: z.string().nullable() }).nullable(),
  counts: z
    .array(z.object({ start: Time, count: z.number().int() }))
    .openapi({ description: 'Errors per hour (hours with errors), the 14 days up to the last one' }),
  releases: z.array(z.object({ release: z.string(), events: z.number().int(), first_seen: Time, last_seen: Time })),
  sessions_sample: z
    .array(
      z.object({
        session_id: z.string(),
        user_id: z
          .string()
          .nullable()
          .openapi({ description: "The session's latest user (`user.id`); null when none was named" }),
        first_seen: Time.openapi({ description: "The issue's first error in the session" }),
        last_seen: Time.openapi({ description: "The issue's last error in the session" }),
        replay_url: z.string().nullable(),
      }),
    )
    .openapi({ description: 'The 10 most recently affected sessions; `sessions` is how many there were in all' }),
  trend: z
    .object({ hours: TrendSchema, days: TrendSchema })
    .openapi({ description: 'Errors per hour over the last 24 hours and per day over the last 14 days' }),
  breakdown: BreakdownSchema,
  breadcrumbs: z.array(
    z.object({
      at: Time,
      kind: z.string().openapi({ enum: ['click', 'navigation', 'console', 'request', 'log', 'error'] }),
      message: z.string(),
      data: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
}).openapi('IssueDetail');

export const IssuesQuery = z.strictObject({
  app: rangeQuery.app,
  env: text('Environment; `test` lists the issues seen in test runs (as `seen_in=tests`)'),
  seen_in: z
    .enum(SEEN_IN)
    .optional()
    .openapi({ description: 'Issues seen in production (the default, unless `env=test`), in test runs, or anywhere' }),
  release: text('Issues seen in this release'),
  status: z.enum(ISSUE_STATUSES).optional(),
  q: text('Text in the type or message, case-insensitive'),
  from: rangeQuery.from.openapi({ description: 'Last seen at or after: epoch ms or ISO 8601' }),
  to: rangeQuery.to.openapi({ description: 'Last seen before: epoch ms or ISO 8601' }),
  user_id: userIdQuery.openapi({
    description: 'Issues that affected a session whose latest user (`user.id`) is this one',
  }),
  assignee: assigneeQuery,
  sort: z
    .enum(Object.keys(ISSUE_SORTS) as [keyof typeof ISSUE_SORTS])
    .default('last_seen')
    .openapi({ description: 'Order' }),
  trend: z
    .enum(Object.keys(TREND_PERIODS) as [keyof typeof TREND_PERIODS])
    .default('24h')
    .openapi({
      description: "Each issue's `trend`: errors per hour over the last 24 hours, or per day over the last 14 days",
    }),
  limit: limitQuery(50, 200),
  cursor: cursorQuery,
});

const statusFields = {
  status: z.enum(SETTABLE_STATUSES),
  in_next_release: z
    .boolean()
    .default(false)
    .openapi({ description: 'With `resolved` only: errors of the release current now do not regress it' }),
};
const nextReleaseWhenResolved: [
  (b: { status: string; in_next_release: boolean }) => boolean,
  { message: string; path: string[] },
] = [
  (b) => !b.in_next_release || b.status === 'resolved',
  { message: 'in_next_release applies only to status resolved', path: ['in_next_release'] },
];

export const StatusChange = z.strictObject(statusFields).refine(...nextReleaseWhenResolved);

/** Most issues one bulk change names. */
export const MAX_BULK_ISSUES = 100;

export const BulkStatusChange = z
  .strictObject({
    ids: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(MAX_BULK_ISSUES)
      .refine((ids) => new Set(ids).size === ids.length, { message: 'ids must not repeat an issue' })
      .openapi({ description: `The issues to change, 1 to ${MAX_BULK_ISSUES}` }),
    ...statusFields,
  })
  .refine(...nextReleaseWhenResolved);

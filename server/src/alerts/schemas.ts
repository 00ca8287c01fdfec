import { z } from '@hono/zod-openapi';
import { Time, timeBound } from '../http/schemas';
import { LOG_SEVERITIES } from './query/log-severity';
import {
  AGGREGATES,
  COMPARE_TO,
  CONDITION_OPS,
  FILTER_SIGNALS,
  FOR_SECONDS_MAX,
  isVital,
  NO_DATA,
  RULE_SEVERITIES,
  RULE_STATES,
  SIGNALS,
  WINDOW_SECONDS,
  type Signal,
} from './rule';
import { VITAL_NAMES } from '../vitals/summary';

/** The alert rules' request and answer schemas (docs/alerts.md); each field is checked, and so is how they fit together. */

/** Most values one list filter may name, and most attribute filters: a rule is a query, not a data set. */
const MAX_LIST = 50;
const MAX_ATTRIBUTES = 10;

const list = z.array(z.string().trim().min(1).max(200)).min(1).max(MAX_LIST);
const word = (max: number) => z.string().trim().min(1).max(max);

const Filter = z.strictObject({
  app: list.optional().openapi({ description: 'App names or aliases; any of them' }),
  env: list.optional().openapi({ description: 'Environments (`deployment.environment.name`); any of them' }),
  release: list.optional().openapi({ description: 'Releases (`service.version`); any of them' }),
  route: word(500)
    .optional()
    .openapi({ description: 'Page or endpoint path; `*` matches any run of characters', example: '/checkout*' }),
  name: word(500).optional().openapi({ description: 'Span name (spans) or event name (logs), exactly' }),
  service: word(200).optional().openapi({ description: "The records' `service.name`" }),
  severity: z
    .array(z.enum(LOG_SEVERITIES))
    .min(1)
    .optional()
    .openapi({ description: 'Log severities (logs); any of them' }),
  text: word(500).optional().openapi({ description: 'Log body contains this text (logs), case-insensitively' }),
  issue_id: word(200).optional().openapi({ description: 'One issue (issues, `events`)' }),
  attributes: z
    .record(
      z.string().regex(/^[\w.:-]{1,200}$/, { message: 'keys must be 1 to 200 letters, digits, _, ., : or -' }),
      z.string().max(500),
    )
    .refine((a) => Object.keys(a).length <= MAX_ATTRIBUTES, { message: `must have at most ${MAX_ATTRIBUTES} keys` })
    .optional()
    .openapi({ description: 'Record attributes that must equal these values, as text' }),
});

const Query = z.strictObject({
  aggregate: z.string().openapi({
    description: Object.entries(AGGREGATES)
      .map(([signal, aggregates]) => `${signal}: ${aggregates.join(', ')}`)
      .join('; '),
    example: 'p75',
  }),
  metric: word(255)
    .optional()
    .openapi({ description: `vitals: ${VITAL_NAMES.join(', ')}; metrics: the metric's name`, example: 'LCP' }),
  filter: Filter.optional(),
});

const op = z.enum(CONDITION_OPS);
const Condition = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('threshold'), op, value: z.number() }),
  z.strictObject({
    type: z.literal('change'),
    op,
    percent: z.number().positive().max(1_000_000),
    compare_to: z.enum(COMPARE_TO),
  }),
]);

const Recovery = z.strictObject({ value: z.number() }).openapi({
  description:
    'Threshold rules: resolved once the value is back across this one (default: the condition no longer holds)',
});

/**
 * A rule's own fields, each as creation and edits check it. The shortest window is the server's
 * (`--alert-min-window-seconds`, for tests; WINDOW_SECONDS.min otherwise).
 */
const fieldsOf = (minWindowSeconds: number) => {
  const fields = {
    name: word(200),
    signal: z.enum(SIGNALS),
    query: Query,
    window_seconds: z.number().int().min(minWindowSeconds).max(WINDOW_SECONDS.max),
    condition: Condition,
    recovery: Recovery.nullable(),
    for_seconds: z.number().int().min(0).max(FOR_SECONDS_MAX),
    severity: z.enum(RULE_SEVERITIES),
    no_data: z.enum(NO_DATA),
    enabled: z.boolean(),
  };
  /** Creation: what may be left out gets its default. */
  const creationFields = {
    ...fields,
    window_seconds: fields.window_seconds.default(WINDOW_SECONDS.fallback),
    recovery: fields.recovery.default(null),
    for_seconds: fields.for_seconds.default(0),
    severity: fields.severity.default('high'),
    no_data: fields.no_data.default('quiet'),
    enabled: fields.enabled.default(true),
  };
  return { fields, creationFields };
};

type Issue = { path: Array<string | number>; message: string };

/** How a rule's fields must fit together: its aggregate, metric and filters belong to its signal; recovery to a threshold. */
export function ruleProblems(rule: {
  signal: Signal;
  query: z.infer<typeof Query>;
  condition: z.infer<typeof Condition>;
  recovery: { value: number } | null;
}): Issue[] {
  const { signal, query, condition, recovery } = rule;
  const issues: Issue[] = [];
  const allowed: readonly string[] = AGGREGATES[signal];
  if (!allowed.includes(query.aggregate))
    issues.push({
      path: ['query', 'aggregate'],
      message: `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')} for ${signal} rules`,
    });
  if (signal === 'vitals' && !isVital(query.metric))
    issues.push({ path: ['query', 'metric'], message: `must name the vital: one of ${VITAL_NAMES.join(', ')}` });
  else if (signal === 'metrics' && query.metric === undefined)
    issues.push({ path: ['query', 'metric'], message: "is required: the metric's name" });
  else if (signal !== 'vitals' && signal !== 'metrics' && query.metric !== undefined)
    issues.push({ path: ['query', 'metric'], message: 'is only for vitals and metrics rules' });
  for (const key of Object.keys(query.filter ?? {}) as Array<keyof typeof FILTER_SIGNALS>) {
    const signals: readonly Signal[] = FILTER_SIGNALS[key];
    if (!signals.includes(signal))
      issues.push({ path: ['query', 'filter', key], message: `applies only to ${signals.join(', ')} rules` });
  }
  if (recovery !== null && condition.type !== 'threshold')
    issues.push({ path: ['recovery'], message: 'is only for threshold conditions' });
  else if (recovery !== null && condition.type === 'threshold') {
    const wrongSide = condition.op === 'above' ? recovery.value > condition.value : recovery.value < condition.value;
    if (wrongSide)
      issues.push({
        path: ['recovery', 'value'],
        message: `must be ${condition.op === 'above' ? 'at most' : 'at least'} the threshold (${condition.value})`,
      });
  }
  return issues;
}

/** Adds {@link ruleProblems} to a schema's checks, each naming its field. */
const checked = <T extends z.ZodType<Parameters<typeof ruleProblems>[0]>>(schema: T) =>
  schema.superRefine((rule, ctx) => {
    for (const issue of ruleProblems(rule)) ctx.addIssue({ code: 'custom', input: rule, ...issue });
  });

const EXAMPLE = {
  name: 'Checkout LCP',
  signal: 'vitals' as const,
  query: { aggregate: 'p75', metric: 'LCP', filter: { app: ['shop'], route: '/checkout*' } },
  window_seconds: 300,
  condition: { type: 'threshold' as const, op: 'above' as const, value: 4000 },
  for_seconds: 300,
  severity: 'high' as const,
};

/** The request bodies of the rules' routes, with the server's shortest window (`fieldsOf`). */
export function ruleBodies(minWindowSeconds: number = WINDOW_SECONDS.min) {
  const { fields, creationFields } = fieldsOf(minWindowSeconds);
  return {
    CreateRuleBody: checked(z.strictObject(creationFields)),
    /** An edit: each field given replaces the stored one; the whole rule is checked again once merged (alerts/routes.ts). */
    EditRuleBody: z.strictObject(fields).partial(),
    /** The merged rule of an edit, checked as a creation is. */
    MergedRule: checked(z.strictObject(fields)),
    /** The preview: a rule's fields (its name may be left out) and the range to draw, by default the last 7 days. */
    PreviewBody: checked(
      z.strictObject({
        ...creationFields,
        name: creationFields.name.optional(),
        from: timeBound('Start of the range: epoch ms or ISO 8601; default: 7 days before `to`'),
        to: timeBound('End of the range: epoch ms or ISO 8601; default: now'),
      }),
    ),
  };
}
export type RuleBodies = ReturnType<typeof ruleBodies>;

export const CREATE_EXAMPLE = EXAMPLE;
export const PREVIEW_EXAMPLE = { ...EXAMPLE, from: '2026-01-01T00:00:00.000Z', to: '2026-01-08T00:00:00.000Z' };

export const AlertRuleSchema = z
  .object({
    id: z.string().openapi({ example: 'ar_0123456789abcdef0123' }),
    name: z.string(),
    signal: z.enum(SIGNALS),
    query: Query,
    window_seconds: z.number().int(),
    condition: Condition,
    recovery: Recovery.nullable(),
    for_seconds: z.number().int(),
    severity: z.enum(RULE_SEVERITIES),
    no_data: z.enum(NO_DATA),
    enabled: z.boolean(),
    state: z.enum(RULE_STATES),
    last_value: z.number().nullable(),
    last_evaluated_at: Time.nullable(),
    incident_id: z.string().nullable(),
    created_at: Time,
    updated_at: Time,
  })
  .openapi('AlertRule');

export const PreviewSchema = z
  .object({
    step_seconds: z.number().int(),
    points: z.array(
      z.object({
        t: Time.openapi({ description: 'End of the window the value is of' }),
        value: z.number().nullable(),
        baseline: z.number().nullable().optional(),
      }),
    ),
    threshold: z.number().nullable().openapi({ description: 'The threshold; null for a change condition' }),
    firings: z.array(z.object({ start: Time, end: Time.nullable() })),
  })
  .openapi('AlertPreview');

import { createRoute, z } from '@hono/zod-openapi';
import { actorLabel, type Services } from '../http/env';
import { badRequest } from '../http/errors';
import { createRouter, errors, jsonAnswer, jsonBody, needs, readControlJson } from '../http/openapi';
import { LIMIT_SIGNALS, MAX_LIMIT, UNIT_TEXT, type LimitSignal } from './signals';
import {
  changeProblem,
  changeProjectLimits,
  effectiveLimits,
  projectLimits,
  type LimitsChange,
  type ProjectLimits,
} from './store';
import { readUsage, UsageSchema } from './usage-report';

const tags = ['limits'];

const Values = z.object({ rate: z.number().int(), burst: z.number().int(), daily: z.number().int() });

const SignalLimitsSchema = z.object({
  signal: z.enum(LIMIT_SIGNALS),
  unit: z.string().openapi({ description: 'What one unit is: spans, log records, replay bytes…' }),
  rate: z.number().int().openapi({ description: 'Units a second per ingest key (token bucket refill); 0: no limit' }),
  burst: z.number().int().openapi({ description: 'Units the bucket holds: the most one key sends at once' }),
  daily: z.number().int().openapi({ description: 'Units per project per UTC day; 0: no quota' }),
  own: Values.partial().openapi({ description: "The values the project set; the others are the server's" }),
  server: Values.openapi({ description: 'The server defaults (SVC_LIMIT_<SIGNAL>)' }),
});

const LimitsSchema = z.object({ project_id: z.string(), signals: z.array(SignalLimitsSchema) }).openapi('Limits', {
  example: {
    project_id: 'prj_default',
    signals: [
      {
        signal: 'spans',
        unit: 'spans',
        rate: 2000,
        burst: 20000,
        daily: 5000000,
        own: { rate: 2000, burst: 20000, daily: 5000000 },
        server: { rate: 10000, burst: 100000, daily: 100000000 },
      },
    ],
  },
});

const value = z
  .number()
  .int()
  .min(0)
  .max(MAX_LIMIT)
  .nullable()
  .optional()
  .openapi({ description: 'The value (0: no limit); null: back to the server default' });
const SignalChange = z.strictObject({ rate: value, burst: value, daily: value });
const ChangeSchema = z.strictObject(
  Object.fromEntries(LIMIT_SIGNALS.map((s) => [s, SignalChange.optional()])) as Record<
    LimitSignal,
    z.ZodOptional<typeof SignalChange>
  >,
);

const readRoute = createRoute({
  ...needs('project.view'),
  tags,
  method: 'get',
  path: '/limits',
  summary: "The ingest limits of the caller's project",
  description:
    "Per signal: the rate and burst of each ingest key's token bucket and the project's daily quota, the project's " +
    'own values and the server defaults (docs/governance.md, "Limits").',
  responses: { 200: jsonAnswer('Each signal', LimitsSchema), ...errors(401, 403) },
});

const changeRoute = createRoute({
  ...needs('project.configure'),
  tags,
  middleware: [readControlJson],
  method: 'put',
  path: '/limits',
  summary: "Set or reset the project's ingest limits",
  description:
    'Each value named is set (0 turns that limit off), or with null goes back to the server default; the others keep ' +
    'their setting. A bucket must hold the rate and the largest request ingest takes (400 naming the field). Applies on this process at once and on the others within 5 s. One audit entry, with the values before and after.',
  request: { body: jsonBody(ChangeSchema, { spans: { rate: 2000, burst: 20000 }, replay_bytes: { daily: null } }) },
  responses: { 200: jsonAnswer('Each signal, after the change', LimitsSchema), ...errors(400, 401, 403, 413, 415) },
});

const usageRoute = createRoute({
  ...needs('project.view'),
  tags,
  method: 'get',
  path: '/usage',
  summary: "The caller's project's ingest usage per signal and day",
  description:
    'Units accepted and throttled (refused by a limit) and requests refused for anything else, per signal and UTC ' +
    "day, with today's use of each daily quota, the month so far and its projection to the month's end, and spikes " +
    'being throttled (docs/governance.md, "Usage").',
  request: {
    query: z.strictObject({
      days: z.coerce.number().int().min(1).max(92).default(31).openapi({ description: 'Days shown, today included' }),
    }),
  },
  responses: { 200: jsonAnswer('Usage', UsageSchema), ...errors(400, 401, 403) },
});

/** The project's own values of the signals a change names, for the audit entry. */
const ownOf = (own: ProjectLimits, change: LimitsChange) =>
  Object.fromEntries(Object.keys(change).map((s) => [s, own[s as LimitSignal] ?? {}]));

/** `/control-plane/limits` and `/control-plane/usage` (docs/governance.md). */
export function limitsRoutes(services: Services) {
  const { db, limits } = services;
  const answer = (projectId: string, own: ProjectLimits) => {
    const effective = effectiveLimits(limits.defaults, own);
    return {
      project_id: projectId,
      signals: LIMIT_SIGNALS.map((signal) => ({
        signal,
        unit: UNIT_TEXT[signal],
        ...effective[signal],
        own: own[signal] ?? {},
        server: limits.defaults[signal],
      })),
    };
  };
  return createRouter()
    .openapi(readRoute, async (c) => {
      const { projectId } = c.get('caller');
      return c.json(answer(projectId, await projectLimits(db, projectId)), 200);
    })
    .openapi(changeRoute, async (c) => {
      const { projectId, actor } = c.get('caller');
      const change = c.req.valid('json');
      const before = await projectLimits(db, projectId);
      const refused = changeProblem(limits.defaults, before, change, services.bodyLimit);
      if (refused) {
        const field = `${refused.signal}.burst`;
        throw badRequest(`${field}: ${refused.problem}`, { field });
      }
      await changeProjectLimits(db, services.clock, projectId, change, actorLabel(actor));
      limits.limits.forget(projectId);
      const own = await projectLimits(db, projectId);
      c.set('audit', {
        before: ownOf(before, change),
        after: ownOf(own, change),
        target: { type: 'project', id: projectId },
      });
      return c.json(answer(projectId, own), 200);
    })
    .openapi(usageRoute, async (c) => {
      const { projectId } = c.get('caller');
      await limits.usage.flush();
      const own = effectiveLimits(limits.defaults, await projectLimits(db, projectId));
      return c.json(await readUsage(db, projectId, own, services.clock.now(), c.req.valid('query').days), 200);
    });
}

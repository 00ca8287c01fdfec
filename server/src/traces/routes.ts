import { createRoute } from '@hono/zod-openapi';
import { appIdFilter } from '../apps/filter';
import type { Services } from '../http/env';
import { createRouter, errors, needs } from '../http/openapi';
import { pageOf } from '../http/schemas';
import { traceDetail } from './detail';
import { TRACE_SUMMARY_EXAMPLE, TraceSchema, traceParams, tracesQuery, TraceSummarySchema } from './schemas';
import { DEFAULT_TRACE_WINDOW_MS, searchPage, traceSearchOf } from './search';
import { MAX_TRACE_SPANS } from './store';

const traces = { tags: ['query'], method: 'get' as const };

const tracesRoute = createRoute({
  ...needs('project.view'),
  ...traces,
  path: '/',
  summary:
    'Traces: one item per trace, newest first unless `sort` and `order` say otherwise, with its root span, duration, span and error counts and services',
  description:
    "Confined to the key's project. A trace's figures are those of its spans in the window [from, to); without `from` the window is the last " +
    `${DEFAULT_TRACE_WINDOW_MS / 3_600_000} hours, unless \`trace_id\` or \`session_id\` is given. Ordered by start (newest first) unless \`sort\` and \`order\` say otherwise, then trace id; ` +
    'filters on spans (`app`, `service`, `name`, `session_id`) keep a trace when any of its spans matches. Unknown query parameters are rejected.',
  request: { query: tracesQuery },
  responses: {
    200: {
      description: 'A page',
      content: {
        'application/json': {
          schema: pageOf(TraceSummarySchema),
          example: { data: [TRACE_SUMMARY_EXAMPLE], next_cursor: null },
        },
      },
    },
    ...errors(400, 401, 403),
  },
});

const traceRoute = createRoute({
  ...needs('project.view'),
  ...traces,
  path: '/{trace_id}',
  summary: 'Every span of one trace, by start time, for its waterfall',
  description: `Spans as the span listing returns them (with attributes, events and links), at most ${MAX_TRACE_SPANS}; 404 when the project has none of this trace.`,
  request: { params: traceParams },
  responses: {
    200: {
      description: 'The trace',
      content: {
        'application/json': {
          schema: TraceSchema,
          example: {
            trace_id: TRACE_SUMMARY_EXAMPLE.trace_id,
            label: 'click on Add to cart',
            error_count: 0,
            spans: [],
            truncated: false,
          },
        },
      },
    },
    ...errors(400, 401, 403, 404),
  },
});

/** Trace search and trace detail, confined to the key's project; mounted at /traces behind the control plane's key check. */
export function traceRoutes(services: Services) {
  return createRouter()
    .openapi(tracesRoute, async (c) => {
      const p = c.req.valid('query');
      const { projectId } = c.get('caller');
      const appId = await appIdFilter(services.db, projectId, p.app);
      return c.json(await searchPage(services, traceSearchOf(p, projectId, appId, services.clock.now())), 200);
    })
    .openapi(traceRoute, async (c) => {
      const { trace_id: traceId } = c.req.valid('param');
      return c.json(await traceDetail(services.db, c.get('caller').projectId, traceId), 200);
    });
}

import { z } from '@hono/zod-openapi';
import { REPLAY_LIMITS } from '../../../wire/replay';
import { errors } from '../http/openapi';
import { RecipeStepSchema } from '../records/schemas';

/**
 * What the ingest endpoints take, for the document. Their bodies are read by ingest's own streaming readers (limits,
 * gzip, protobuf; bench:ingest measures them), which check every field these schemas name.
 */

const INGEST_SECURITY: Record<string, string[]>[] = [{ ingestKey: [] }, { ingestKeyQuery: [] }];
const INGEST_ERRORS = errors(400, 401, 403, 413, 415, 422);

const chunkFields = {
  serviceName: z.string().max(128).openapi({ description: 'App name or alias, as `service.name` on OTLP resources' }),
  sessionId: z.string().max(REPLAY_LIMITS.maxIdLength),
  replayId: z.string().max(REPLAY_LIMITS.maxIdLength),
  seq: z.number().int().min(0),
  startTs: z.number().int().openapi({ description: 'epoch ms of the first event' }),
  endTs: z.number().int().openapi({ description: 'epoch ms of the last event, >= startTs' }),
  eventCount: z.number().int().min(1).max(REPLAY_LIMITS.maxChunkEvents),
};

export const ReplayChunkSchema = z
  .union([
    z.object({
      ...chunkFields,
      events: z.array(z.unknown()).openapi({ description: 'The rrweb events, inline (what the SDK sends)' }),
      ids: z
        .literal('delta')
        .optional()
        .openapi({ description: 'Node ids delta-encoded (wire/replay.ts undoIdDeltas)' }),
    }),
    z.object({
      ...chunkFields,
      encoding: z.enum(['gzip', 'json']),
      data: z.string().openapi({
        description: `gzip: base64 of gzip(JSON array of rrweb events); json: the JSON array as text. At most ${REPLAY_LIMITS.maxChunkBytes} bytes decoded (older SDKs).`,
      }),
    }),
  ])
  .openapi('ReplayChunk');

export const RecipeBatchSchema = z
  .object({
    serviceName: z.string(),
    sessionId: z.string(),
    replayId: z.string(),
    steps: z.array(RecipeStepSchema).min(1).max(REPLAY_LIMITS.maxRecipeSteps),
  })
  .openapi('RecipeBatch');

const resource = {
  attributes: [
    { key: 'service.name', value: { stringValue: 'web-app' } },
    { key: 'session.id', value: { stringValue: 'a1b2c3d4' } },
  ],
};
const OTLP_EXAMPLES = {
  traces: {
    resourceSpans: [
      {
        resource,
        scopeSpans: [
          {
            spans: [
              {
                traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
                spanId: '00f067aa0ba902b7',
                name: 'GET /api/cart',
                kind: 3,
                startTimeUnixNano: '1767225600000000000',
                endTimeUnixNano: '1767225600120000000',
              },
            ],
          },
        ],
      },
    ],
  },
  logs: {
    resourceLogs: [
      {
        resource,
        scopeLogs: [
          {
            logRecords: [
              { timeUnixNano: '1767225600000000000', severityNumber: 9, body: { stringValue: 'cart loaded' } },
            ],
          },
        ],
      },
    ],
  },
  metrics: {
    resourceMetrics: [
      {
        resource,
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'web_vitals.lcp',
                unit: 'ms',
                gauge: { dataPoints: [{ timeUnixNano: '1767225600000000000', asDouble: 1840 }] },
              },
            ],
          },
        ],
      },
    ],
  },
};

const OTLP_MESSAGES = {
  traces: 'ExportTraceServiceRequest',
  logs: 'ExportLogsServiceRequest',
  metrics: 'ExportMetricsServiceRequest',
} as const;
const OTLP_ROOTS = { traces: 'resourceSpans', logs: 'resourceLogs', metrics: 'resourceMetrics' } as const;

/** `POST /otlp/v1/<signal>`. */
export const otlpRoute = (signal: keyof typeof OTLP_MESSAGES, path: string) => ({
  method: 'post' as const,
  path,
  tags: ['ingest'],
  summary: `OTLP/HTTP ${signal} export (${OTLP_MESSAGES[signal]})`,
  description:
    'OTLP/HTTP with JSON (`application/json`, or `text/plain` from sendBeacon) or protobuf (`application/x-protobuf`). ' +
    '`Content-Encoding: gzip` or `deflate` accepted. The whole payload is validated and stored in one transaction, or ' +
    'rejected whole. Aliases in `service.name` are stored as the canonical app name.',
  security: INGEST_SECURITY,
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({ [OTLP_ROOTS[signal]]: z.array(z.record(z.string(), z.unknown())) })
            .openapi({ description: `OTLP/JSON ${OTLP_MESSAGES[signal]}` }),
          example: OTLP_EXAMPLES[signal],
        },
        'application/x-protobuf': { schema: z.string().openapi({ format: 'binary' }) },
      },
    },
  },
  responses: {
    200: {
      description:
        'Accepted: an OTLP Export*ServiceResponse with an empty partialSuccess (protobuf-encoded for protobuf requests)',
      content: {
        'application/json': { schema: z.object({ partialSuccess: z.object({}) }) },
        'application/x-protobuf': { schema: z.string().openapi({ format: 'binary' }) },
      },
    },
    ...INGEST_ERRORS,
  },
});

const ids = { serviceName: 'web-app', sessionId: 'a1b2c3d4', replayId: 'r-5e6f' };
export const REPLAY_CHUNK_EXAMPLE = {
  ...ids,
  seq: 0,
  startTs: 1767225600000,
  endTs: 1767225600001,
  eventCount: 2,
  events: [
    { type: 4, timestamp: 1767225600000, data: { href: 'https://shop.example.com/', width: 1280, height: 720 } },
    {
      type: 2,
      timestamp: 1767225600001,
      data: { node: { type: 0, id: 1, childNodes: [] }, initialOffset: { top: 0, left: 0 } },
    },
  ],
};
export const RECIPES_EXAMPLE = {
  ...ids,
  steps: [
    {
      ts: 1767225600100,
      method: 'GET',
      url: 'https://shop.example.com/api/cart',
      requestHeaders: {},
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: '{"items":[]}',
      durationMs: 42,
    },
  ],
};

/** `POST /ingest/replay/chunk` and `/recipes`. */
export const replayRoute = (path: string, summary: string, schema: z.ZodType, example: unknown) => ({
  method: 'post' as const,
  path,
  tags: ['ingest'],
  summary,
  security: INGEST_SECURITY,
  request: {
    body: { required: true, content: { 'application/json': { schema, example }, 'text/plain': { schema, example } } },
  },
  responses: {
    200: {
      description: 'Stored. `duplicates` counts chunks already stored under the same replayId and seq (a retry).',
      content: {
        'application/json': { schema: z.object({ accepted: z.number().int(), duplicates: z.number().int() }) },
      },
    },
    ...INGEST_ERRORS,
  },
});

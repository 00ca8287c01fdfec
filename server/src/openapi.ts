import { REPLAY_LIMITS } from '../../wire/replay';
import { MAX_ECHO_DELAY_MS } from './demo/echo';
import { ISSUE_PATHS } from './openapi-issues';
import { LANDING_PATHS } from './landing/openapi';
import { REPLAY_MODES, SESSION_FACT_LIMITS } from './otlp/session-facts';
import { MAX_ATTRIBUTE_FILTERS } from './query/session-filters';

/**
 * The OpenAPI 3.1 description served at `GET /openapi.json`. A test compares it with the routes the app registers, so
 * an endpoint cannot be added without being described here.
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }]));
const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request: the message names the field',
  401: 'Missing or unknown key',
  403: 'Key revoked, expired or of the wrong scope',
  404: 'No such endpoint, file or session',
  409: 'Conflicts with what exists (e.g. a name already taken); nothing changed',
  413: 'Body larger than SVC_BODY_LIMIT (after decompression)',
  415: 'Unsupported Content-Type or Content-Encoding',
  422: 'service.name is neither an app name nor an alias of the key\'s project; nothing stored',
};

const otlpPost = (signal: 'traces' | 'logs' | 'metrics', message: string) => ({
  post: {
    tags: ['ingest'],
    summary: `OTLP/HTTP ${signal} export (${message})`,
    description:
      'OTLP/HTTP with JSON (`application/json`, or `text/plain` from sendBeacon) or protobuf (`application/x-protobuf`). ' +
      '`Content-Encoding: gzip` or `deflate` accepted. The whole payload is validated and stored in one transaction, or ' +
      'rejected whole. Aliases in `service.name` are stored as the canonical app name.',
    security: [{ ingestKey: [] }, { ingestKeyQuery: [] }],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { type: 'object', description: `OTLP/JSON ${message}` } },
        'application/x-protobuf': { schema: { type: 'string', format: 'binary' } },
      },
    },
    responses: {
      '200': {
        description: 'Accepted: an OTLP Export*ServiceResponse with an empty partialSuccess (protobuf-encoded for protobuf requests)',
        content: { 'application/json': { schema: { type: 'object', properties: { partialSuccess: { type: 'object' } } } } },
      },
      ...errors(400, 401, 403, 413, 415, 422),
    },
  },
});

const listParams = (filters: string[], maxLimit: number, defaultLimit: number) => [
  { name: 'app', in: 'query', schema: { type: 'string' }, description: 'App name or alias' },
  ...filters.map((name) => ({ name, in: 'query', schema: { type: 'string' } })),
  { name: 'from', in: 'query', schema: { type: 'string' }, description: 'Inclusive lower time bound: epoch ms or ISO 8601' },
  { name: 'to', in: 'query', schema: { type: 'string' }, description: 'Exclusive upper time bound: epoch ms or ISO 8601' },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: maxLimit, default: defaultLimit } },
  { name: 'cursor', in: 'query', schema: { type: 'string' }, description: '`next_cursor` of the previous page' },
];

const page = (item: Schema) => ({
  type: 'object',
  required: ['data', 'next_cursor'],
  properties: { data: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'] } },
});

const userIdParam = {
  name: 'user_id',
  in: 'query',
  schema: { type: 'string', minLength: 1, maxLength: SESSION_FACT_LIMITS.maxUserChars },
  description: 'Only sessions (for records: the records of sessions) whose latest user, the SDK\'s setUser id, is this one',
};
/** `attr.<key>=<value>`: OpenAPI cannot name a parameter by pattern, so it is described once under this name. */
const attributeParam = {
  name: 'attr.<key>',
  in: 'query',
  schema: { type: 'string', minLength: 1, maxLength: SESSION_FACT_LIMITS.maxValueChars },
  description:
    `Sessions whose custom attribute \`<key>\` (setAttributes; \`session.attributes.<key>\` on the wire) equals the value exactly, as text: ` +
    `\`attr.tier=3\` matches 3 and "3", \`attr.beta=true\` matches true. Repeatable with other keys, at most ${MAX_ATTRIBUTE_FILTERS}; ` +
    `keys are 1 to ${SESSION_FACT_LIMITS.maxKeyChars} letters, digits, \`_\`, \`.\`, \`:\` or \`-\`.`,
};

const listGet = (summary: string, filters: string[], item: string, maxLimit = 1000, defaultLimit = 100, extra: Schema[] = [userIdParam]) => ({
  get: {
    tags: ['query'],
    summary,
    description: 'Newest first, confined to the key\'s project. Unknown query parameters are rejected.',
    security: [{ controlKey: [] }],
    parameters: [...listParams(filters, maxLimit, defaultLimit), ...extra],
    responses: { '200': { description: 'A page', content: { 'application/json': { schema: page(ref(item)) } } }, ...errors(400, 401, 403) },
  },
});

const sessionIdParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Session id (the SDK\'s sessionId)' };
const pageParams = (maxLimit: number, defaultLimit: number, unit: string) => [
  sessionIdParam,
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: maxLimit, default: defaultLimit }, description: unit },
  { name: 'cursor', in: 'query', schema: { type: 'string' }, description: '`next_cursor` of the previous page' },
];
const sessionGet = (summary: string, description: string, parameters: Schema[], schema: Schema) => ({
  get: {
    tags: ['query'],
    summary,
    description: `${description} Confined to the key's project: another project's session is a 404. Unknown query parameters are rejected.`,
    security: [{ controlKey: [] }],
    parameters,
    responses: { '200': { description: 'OK', content: { 'application/json': { schema } } }, ...errors(400, 401, 403, 404) },
  },
});
const time = { type: 'string', format: 'date-time' };

/** One session: detail, replay events, recipes and the Playwright export (docs/query-api.md, docs/replay-export.md). */
const SESSION_PATHS = {
  '/control-plane/sessions/{id}': sessionGet('A session with its replays', 'Replays ordered by start.', [sessionIdParam], {
    allOf: [
      ref('Session'),
      {
        type: 'object',
        properties: {
          replays: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                replay_id: { type: 'string' },
                start_time: time,
                end_time: time,
                chunk_count: { type: 'integer' },
                event_count: { type: 'integer' },
                first_url: { type: ['string', 'null'], description: 'href of the replay\'s rrweb Meta event: the page it recorded' },
              },
            },
          },
        },
      },
    ],
  }),
  '/control-plane/sessions/{id}/replay': sessionGet(
    'The session\'s rrweb events in playback order, decompressed',
    'Pages by chunks: replays by the start time of their first chunk, then seq; a chunk stored twice counts once. A page ends early once its chunks hold about 4 MB as stored. `gaps` (the whole session\'s, on every page) lists the seqs missing below each replay\'s highest.',
    pageParams(200, 50, 'Chunks per page'),
    {
      type: 'object',
      required: ['session_id', 'events', 'chunks', 'gaps', 'next_cursor'],
      properties: {
        session_id: { type: 'string' },
        events: { type: 'array', items: { type: 'object' } },
        chunks: {
          type: 'array',
          items: { type: 'object', properties: { replay_id: { type: 'string' }, seq: { type: 'integer' }, start_time: time, end_time: time, event_count: { type: 'integer' } } },
        },
        gaps: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              replay_id: { type: 'string' },
              missing_seq: { type: 'array', items: { type: 'integer' }, maxItems: 1000, description: 'The first 1000 missing seqs' },
              missing_count: { type: 'integer' },
            },
          },
        },
        next_cursor: { type: ['string', 'null'] },
      },
    },
  ),
  '/control-plane/sessions/{id}/recipes': sessionGet('The session\'s recipe steps', 'Oldest first.', pageParams(1000, 200, 'Steps per page'), page(ref('RecipeRecord'))),
  '/control-plane/sessions/{id}/playwright': {
    get: {
      tags: ['query'],
      summary: 'The session as a runnable Playwright spec (TypeScript)',
      description: 'Replays the navigation, clicks and inputs and serves the recorded recipes with page.route (docs/replay-export.md). 404 also when the session recorded no page load.',
      security: [{ controlKey: [] }],
      parameters: [
        sessionIdParam,
        { name: 'base_url', in: 'query', schema: { type: 'string', format: 'uri' }, description: 'Origin the test runs against by default (else the recorded one); SVC_REPLAY_BASE_URL overrides it at run time' },
      ],
      responses: {
        '200': { description: 'session-<id>.spec.ts, as an attachment', content: { 'text/plain': { schema: { type: 'string' } } } },
        ...errors(400, 401, 403, 404),
      },
    },
  },
};

/** How much was sampled (server/src/query/sampling.ts). */
const SAMPLING_PATH = {
  get: {
    tags: ['query'],
    summary: 'Sessions received per replay mode and the sessions estimated before sampling',
    description:
      'From the session records of the key\'s project: each session counts once however often its batches were retried. A session stands for 1 / its `svc.sample_rate` ' +
      'sessions before sampling (1 when it sent none). `from` and `to` select sessions whose activity overlaps the window, as in the session listing. Unknown query parameters are rejected.',
    security: [{ controlKey: [] }],
    parameters: listParams([], 500, 50).filter((p) => ['app', 'from', 'to'].includes(p.name)),
    responses: {
      '200': {
        description: 'The figures',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['sessions_received', 'sessions_estimated', 'sampled_share', 'replay_modes', 'replays_kept_on_error'],
              properties: {
                sessions_received: { type: 'integer' },
                sessions_estimated: { type: 'integer', description: 'Sum of 1 / sample_rate over the received sessions, rounded' },
                sampled_share: { type: ['number', 'null'], description: 'received / estimated, 4 decimals; null without sessions' },
                replay_modes: {
                  type: 'object',
                  description: 'Received sessions by svc.replay.mode; unknown: sessions that did not send one',
                  properties: Object.fromEntries([...REPLAY_MODES, 'unknown'].map((m) => [m, { type: 'integer' }])),
                },
                replays_kept_on_error: { type: 'integer', description: 'Sessions in on_error mode that sent a replay (an error happened)' },
              },
            },
          },
        },
      },
      ...errors(400, 401, 403),
    },
  },
};

const replayPost = (summary: string, schema: string) => ({
  post: {
    tags: ['ingest'],
    summary,
    security: [{ ingestKey: [] }, { ingestKeyQuery: [] }],
    requestBody: { required: true, content: { 'application/json': { schema: ref(schema) }, 'text/plain': { schema: ref(schema) } } },
    responses: {
      '200': {
        description: 'Stored. `duplicates` counts chunks already stored under the same replayId and seq (a retry).',
        content: { 'application/json': { schema: { type: 'object', properties: { accepted: { type: 'integer' }, duplicates: { type: 'integer' } } } } },
      },
      ...errors(400, 401, 403, 413, 415, 422),
    },
  },
});

const demoEcho = (method: 'get' | 'post') => ({
  tags: ['demo'],
  summary: `Echo the request (${method.toUpperCase()}): method, path, query and every header received`,
  description: 'Same-origin target of the demo page\'s requests, to show the `traceparent` and session headers the SDK adds.',
  parameters: [
    { name: 'status', in: 'query', schema: { type: 'integer', minimum: 200, maximum: 599, default: 200 }, description: 'Answer with this status (not 204, 205 or 304)' },
    { name: 'delay', in: 'query', schema: { type: 'integer', minimum: 0, maximum: MAX_ECHO_DELAY_MS, default: 0 }, description: 'Answer after this many ms' },
  ],
  ...(method === 'post' ? { requestBody: { content: { '*/*': { schema: {} } } } } : {}),
  responses: {
    default: {
      description: 'The echo, with the status asked for (`bodyBytes` for POST)',
      content: { 'application/json': { schema: { type: 'object', properties: { method: {}, path: {}, query: {}, headers: {}, bodyBytes: {} } } } },
    },
    ...errors(400, 413, 415),
  },
});

/** `GET <page without its slash>`, answered with a redirect to the page. */
const redirectTo = (tag: string, page: string) => ({ get: { tags: [tag], summary: `Redirects to ${page}`, responses: { '302': { description: `To ${page}` } } } });

/** Present only when the server runs with `--demo-sdk` (SVC_DEMO_SDK); no key needed. */
const DEMO_PATHS = {
  '/demo': redirectTo('demo', '/demo/'),
  '/demo/': {
    get: {
      tags: ['demo'],
      summary: 'The SDK demo page (HTML)',
      parameters: [{ name: 'api_key', in: 'query', schema: { type: 'string' }, description: 'Ingest key to use instead of the one the server knows' }],
      responses: { '200': { description: 'HTML', content: { 'text/html': {} } } },
    },
  },
  '/demo/svc.min.js': { get: { tags: ['demo'], summary: 'The SDK script-tag bundle the page loads', responses: { '200': { description: 'JavaScript' }, ...errors(404) } } },
  '/demo/svc.min.js.map': { get: { tags: ['demo'], summary: 'Its source map', responses: { '200': { description: 'Source map' }, ...errors(404) } } },
  '/demo/svc-recorder.min.js': { get: { tags: ['demo'], summary: 'The session recorder svc.min.js loads when replay starts (beside --demo-sdk)', responses: { '200': { description: 'JavaScript' }, ...errors(404) } } },
  '/demo/svc-recorder.min.js.map': { get: { tags: ['demo'], summary: 'Its source map', responses: { '200': { description: 'Source map' }, ...errors(404) } } },
  '/demo/api/echo': { get: demoEcho('get'), post: demoEcho('post') },
};

/** The replay viewer page (docs/viewer.md): served without a key; the page sends the control key to the API itself. */
const VIEWER_PATHS = {
  '/viewer': redirectTo('viewer', '/viewer/'),
  '/viewer/': {
    get: {
      tags: ['viewer'],
      summary: 'The session replay viewer page (HTML); open /viewer/#key=<control key>&session=<session id>',
      responses: { '200': { description: 'HTML, with a Content-Security-Policy header', content: { 'text/html': {} } } },
    },
  },
  '/viewer/assets/{file}': {
    get: {
      tags: ['viewer'],
      summary: 'A script or stylesheet of the viewer page (rrweb-player included); names carry a content hash and are cached for good',
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'JavaScript or CSS' }, ...errors(404) },
    },
  },
};

const common = { id: { type: 'integer' }, app: { type: 'string' }, session_id: { type: ['string', 'null'] }, received_at: { type: 'string', format: 'date-time' } };
const attrs = { type: 'object', additionalProperties: true };

/** The document for a server at `serverUrl`; the demo routes are described only when that server serves them. */
export function openApiDocument(serverUrl: string, options: { demo?: boolean } = {}): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc reference server',
      version: '0.1.0',
      description: 'Telemetry ingest (OTLP/HTTP, session replay) and the control-plane query API. Every error is `{"error": {"code", "message", "details"?}}`.',
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
    paths: {
      ...LANDING_PATHS,
      '/healthz': { get: { tags: ['service'], summary: 'Liveness and database reachability', responses: { '200': { description: 'ok' } } } },
      '/openapi.json': { get: { tags: ['service'], summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1' } } } },
      '/otlp/v1/traces': otlpPost('traces', 'ExportTraceServiceRequest'),
      '/otlp/v1/logs': otlpPost('logs', 'ExportLogsServiceRequest'),
      '/otlp/v1/metrics': otlpPost('metrics', 'ExportMetricsServiceRequest'),
      '/ingest/replay/chunk': replayPost('Store one session replay chunk', 'ReplayChunk'),
      '/ingest/replay/recipes': replayPost('Store request recipe steps', 'RecipeBatch'),
      '/control-plane/apps': {
        get: {
          tags: ['query'],
          summary: 'Apps of the key\'s project with their aliases',
          security: [{ controlKey: [] }],
          responses: { '200': { description: 'Apps', content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'array', items: ref('App') } } } } } }, ...errors(401, 403) },
        },
      },
      '/control-plane/sessions': listGet('Sessions with counts per signal, their time range, user, attributes and sampling', [], 'Session', 500, 50, [userIdParam, attributeParam]),
      '/control-plane/sessions/sampling': SAMPLING_PATH,
      '/control-plane/spans': listGet('Spans', ['session_id', 'trace_id', 'name'], 'Span'),
      '/control-plane/logs': listGet('Log records', ['session_id', 'trace_id'], 'LogRecord'),
      '/control-plane/metrics': listGet('Metric data points', ['session_id', 'name'], 'MetricPoint'),
      '/control-plane/replay/chunks': listGet('Replay chunks with their decoded events', ['session_id'], 'ReplayChunkRecord', 100, 20),
      '/control-plane/recipes': listGet('Recipe steps', ['session_id', 'trace_id'], 'RecipeRecord'),
      ...SESSION_PATHS,
      ...ISSUE_PATHS,
      ...(options.demo ? DEMO_PATHS : {}),
      ...VIEWER_PATHS,
    },
    components: {
      securitySchemes: {
        ingestKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Ingest-scope key' },
        ingestKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'Ingest-scope key, for sendBeacon' },
        controlKey: { type: 'http', scheme: 'bearer', description: 'Control-scope key' },
        adminKey: { type: 'http', scheme: 'bearer', description: 'Admin-scope key: tenant-wide, for project management (svc-server keys create --scope admin)' },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_TEXT).map(([code, description]) => [
          `Error${code}`,
          { description, content: { 'application/json': { schema: ref('Error') } } },
        ]),
      ),
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
            },
          },
        },
        App: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, aliases: { type: 'array', items: { type: 'string' } } } },
        ReplayChunk: {
          type: 'object',
          required: ['serviceName', 'sessionId', 'replayId', 'seq', 'startTs', 'endTs', 'eventCount', 'encoding', 'data'],
          properties: {
            serviceName: { type: 'string', maxLength: 128 },
            sessionId: { type: 'string', maxLength: REPLAY_LIMITS.maxIdLength },
            replayId: { type: 'string', maxLength: REPLAY_LIMITS.maxIdLength },
            seq: { type: 'integer', minimum: 0 },
            startTs: { type: 'integer', description: 'epoch ms of the first event' },
            endTs: { type: 'integer', description: 'epoch ms of the last event, >= startTs' },
            eventCount: { type: 'integer', minimum: 1 },
            encoding: { enum: ['gzip', 'json'] },
            data: {
              type: 'string',
              description: `gzip: base64 of gzip(JSON array of rrweb events); json: the JSON array as text. At most ${REPLAY_LIMITS.maxChunkBytes} bytes decoded.`,
            },
          },
        },
        RecipeStep: {
          type: 'object',
          required: ['ts', 'method', 'url', 'status', 'durationMs'],
          properties: {
            ts: { type: 'integer' },
            method: { type: 'string' },
            url: { type: 'string', format: 'uri' },
            requestHeaders: { type: 'object', additionalProperties: { type: 'string' } },
            requestBody: { type: ['string', 'null'], maxLength: REPLAY_LIMITS.maxRecipeBodyChars },
            requestBodyTruncated: { type: 'boolean' },
            status: { type: 'integer', minimum: 0, maximum: 599, description: '0: no response (network error)' },
            responseHeaders: { type: 'object', additionalProperties: { type: 'string' } },
            responseBody: { type: ['string', 'null'], maxLength: REPLAY_LIMITS.maxRecipeBodyChars },
            responseBodyTruncated: { type: 'boolean' },
            durationMs: { type: 'number', minimum: 0 },
            traceparent: { type: ['string', 'null'] },
            error: { type: ['string', 'null'] },
          },
        },
        RecipeBatch: {
          type: 'object',
          required: ['serviceName', 'sessionId', 'replayId', 'steps'],
          properties: {
            serviceName: { type: 'string' },
            sessionId: { type: 'string' },
            replayId: { type: 'string' },
            steps: { type: 'array', minItems: 1, maxItems: REPLAY_LIMITS.maxRecipeSteps, items: ref('RecipeStep') },
          },
        },
        Session: {
          type: 'object',
          properties: {
            session_id: { type: 'string' },
            app: { type: 'string' },
            first_seen: { type: 'string', format: 'date-time' },
            last_seen: { type: 'string', format: 'date-time' },
            counts: {
              type: 'object',
              properties: Object.fromEntries(['spans', 'logs', 'metric_points', 'replay_chunks', 'recipes'].map((k) => [k, { type: 'integer' }])),
            },
            user: {
              type: ['object', 'null'],
              description: 'The latest user the records named (user.id; user.email and user.name when the app sends them); null when none did',
              required: ['id'],
              properties: { id: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' } },
            },
            attributes: {
              type: 'object',
              description: `The latest custom attributes (session.attributes.*): at most ${SESSION_FACT_LIMITS.maxAttributes}; {} when none`,
              additionalProperties: { type: ['string', 'number', 'boolean'] },
            },
            replay_mode: { type: ['string', 'null'], enum: [...REPLAY_MODES, null], description: 'svc.replay.mode of the session; null when not sent' },
            sample_rate: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 1, description: 'svc.sample_rate of the session; null when not sent' },
          },
        },
        Span: {
          type: 'object',
          properties: {
            ...common,
            trace_id: { type: 'string' },
            span_id: { type: 'string' },
            parent_span_id: { type: ['string', 'null'] },
            name: { type: 'string' },
            kind: { type: 'integer' },
            start_time_unix_nano: { type: 'string' },
            end_time_unix_nano: { type: 'string' },
            time: { type: 'string', format: 'date-time' },
            duration_ms: { type: 'number' },
            status: { type: 'object', properties: { code: { type: 'integer' }, message: { type: ['string', 'null'] } } },
            attributes: attrs,
            events: { type: 'array' },
            links: { type: 'array' },
            resource: { type: 'object' },
            scope: { type: 'object' },
          },
        },
        LogRecord: {
          type: 'object',
          properties: {
            ...common,
            time_unix_nano: { type: 'string' },
            observed_time_unix_nano: { type: 'string' },
            time: { type: 'string', format: 'date-time' },
            severity_number: { type: 'integer' },
            severity_text: { type: ['string', 'null'] },
            body: {},
            event_name: { type: ['string', 'null'] },
            trace_id: { type: ['string', 'null'] },
            span_id: { type: ['string', 'null'] },
            attributes: attrs,
            resource: { type: 'object' },
            scope: { type: 'object' },
          },
        },
        MetricPoint: {
          type: 'object',
          properties: {
            ...common,
            name: { type: 'string' },
            description: { type: ['string', 'null'] },
            unit: { type: ['string', 'null'] },
            type: { enum: ['gauge', 'sum', 'histogram', 'exponential_histogram', 'summary'] },
            time_unix_nano: { type: 'string' },
            start_time_unix_nano: { type: ['string', 'null'] },
            time: { type: 'string', format: 'date-time' },
            value: { type: ['number', 'null'], description: 'Number points: the value; distributions: the sum' },
            data: { type: 'object', description: 'Full point: value, or count/sum/buckets/quantiles, temporality' },
            attributes: attrs,
            resource: { type: 'object' },
            scope: { type: 'object' },
          },
        },
        ReplayChunkRecord: {
          type: 'object',
          properties: {
            ...common,
            replay_id: { type: 'string' },
            seq: { type: 'integer' },
            start_time: { type: 'string', format: 'date-time' },
            end_time: { type: 'string', format: 'date-time' },
            event_count: { type: 'integer' },
            encoding: { enum: ['gzip', 'json'] },
            events: { type: 'array', items: { type: 'object' } },
          },
        },
        RecipeRecord: {
          allOf: [ref('RecipeStep'), { type: 'object', properties: { ...common, replay_id: { type: 'string' }, trace_id: { type: ['string', 'null'] } } }],
        },
      },
    },
  };
}

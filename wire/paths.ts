/**
 * Ingest paths, relative to the ingest base URL. The SDK posts to them and the reference server serves them, so both
 * import them from here.
 */
export const INGEST_PATHS = {
  traces: '/otlp/v1/traces',
  logs: '/otlp/v1/logs',
  metrics: '/otlp/v1/metrics',
  replayChunk: '/ingest/replay/chunk',
  replayRecipes: '/ingest/replay/recipes',
} as const;

/** Header carrying an ingest key. Beacon requests, which cannot set headers, use the `api_key` query parameter. */
export const API_KEY_HEADER = 'x-api-key';
export const API_KEY_QUERY_PARAM = 'api_key';

/** What each refusal reason means and what fixes it, for people (docs/ingest.md, "Ingest health"). */
export const REFUSAL_TEXT: Record<string, string> = {
  key_missing: 'No ingest key sent: set the SDK’s apiKey (X-API-Key header)',
  key_unknown: 'The key is not one of this server’s: check the key the app was built with',
  key_revoked: 'The key was revoked: build the app with a working ingest key',
  key_expired: 'The key expired: build the app with a working ingest key',
  key_wrong_scope: 'Not an ingest key: a control or read key was sent where the ingest key belongs',
  unknown_service: 'The app name (serviceName) is neither an app nor an alias of this project',
  origin_not_allowed: 'The page’s origin is not in SVC_CORS_ORIGINS',
  limit_exceeded: 'The request holds more than an ingest limit allows',
  payload_too_large: 'The body is over the server’s SVC_BODY_LIMIT',
  unsupported_media_type: 'A Content-Type ingest does not take',
  unsupported_encoding: 'A Content-Encoding ingest does not take',
  invalid_request: 'The body is not valid OTLP or replay data',
  not_found: 'No ingest endpoint at this path: check the ingest URL',
};

/** The SDK's drop reasons (docs/sdk-pipeline.md). */
export const DROP_TEXT: Record<string, string> = {
  queue_full: 'The queue was full (maxQueueSize): the oldest records went',
  refused: 'The server refused them (see the refusals above)',
  outbox_full: 'The offline outbox was full: its oldest requests went',
  persist_failed: 'They could not be kept for the next page load',
};

export { startWebhookServer, DEFAULT_MAX_BODY_BYTES, type WebhookServer, type WebhookServerOptions } from './server.js';
export { admit, DEFAULT_LOOKUP_DEADLINE_MS, type AdmissionContext } from './handler.js';

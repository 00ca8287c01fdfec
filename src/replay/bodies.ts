/**
 * What recipe steps need to record bodies and redact values, loaded on demand (load-bodies.ts): reading, redacting
 * and capping bodies is only needed once a request is recorded, so bundlers keep it out of the initial chunk.
 */
export { later, recordBodyValue, recordStreamBody, recordXhrResponse } from './body-read';
export { redactValues } from './body-redact';

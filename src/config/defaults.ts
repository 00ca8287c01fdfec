import type { ConfigDefaults } from './types';

/**
 * Defaults of SPEC 2.9 "Configuration options". Frozen because resolved configs share the nested objects of this
 * value when the user leaves a whole section out.
 */
export const DEFAULT_CONFIG: ConfigDefaults = Object.freeze({
  debug: false,
  flushIntervalMs: 2000,
  maxQueueSize: 1000,
  requestTimeoutMs: 5000,
  validateSemanticMetrics: false,
  instrumentGlobalFetch: true,
  ingestUrl: '',
  sampleRate: 1,
  sendUserPii: false,
  ignoreErrors: Object.freeze([]),
  denyUrls: Object.freeze([]),
  allowUrls: Object.freeze([]),
  issuesFrom: Object.freeze([]),
  persistence: true,
  replay: Object.freeze({
    enabled: true,
    flushIntervalMs: 5000,
    maxChunkBytes: 480_000,
    captureNetworkRecipes: true,
    sessionStorageKey: 'svc_session_id',
    blockClass: 'ob-block',
    maskTextClass: 'ob-mask',
    maskAllInputs: true,
    sampling: Object.freeze({
      mousemove: true,
      scroll: 150,
      input: 'last',
    }),
    sampleRate: 1,
    onErrorSampleRate: 0,
    networkBodies: 'redacted',
    networkBodyUrls: Object.freeze([]),
  }),
  vitals: Object.freeze({
    enabled: true,
    reportAllChanges: false,
  }),
  propagation: Object.freeze({
    enabled: true,
    headerName: 'traceparent',
    sessionHeaderName: 'x-svc-session-id',
    origins: Object.freeze([]),
  }),
});

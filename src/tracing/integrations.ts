import type { Integration, IntegrationCore } from '../core/integration';
import { patchMethod } from '../core/patch';
import { traceDocumentLoad } from './document-load';
import { traceInteractions } from './interactions';
import { tracedFetchFor, tracingFor } from './tracing-for';
import { traceXhr } from './xhr-network';

/**
 * The tracer of each kind of automatic span, under the scope name of the OpenTelemetry instrumentation whose spans
 * it reproduces, so that queries on the scope name find them as before.
 */
const tracer = (core: IntegrationCore, name: string) =>
  tracingFor(core).tracer(`@opentelemetry/instrumentation-${name}`);

/** Global `fetch` replaced by `instrumentFetch()`'s traced fetch, with `instrumentGlobalFetch: true` (fetch.ts). */
export const fetchIntegration = (): Integration => ({
  name: 'fetch',
  setup(core) {
    const traced = tracedFetchFor(core);
    if (traced !== undefined && core.config.instrumentGlobalFetch)
      patchMethod(core.teardown, globalThis, 'fetch', () => traced);
  },
});

/** A span per `XMLHttpRequest`, with its log, replay event and recipe step (xhr-network.ts). */
export const xhrIntegration = (): Integration => ({
  name: 'xhr',
  setup: (core) => traceXhr(core, tracer(core, 'xml-http-request')),
});

/** The page load's `documentLoad`, `documentFetch` and `resourceFetch` spans (document-load.ts). */
export const documentLoadIntegration = (): Integration => ({
  name: 'documentLoad',
  setup: (core) => traceDocumentLoad(core, tracer(core, 'document-load')),
});

/** A span per click or submit, the parent of what its handlers do (interactions.ts). */
export const interactionsIntegration = (): Integration => ({
  name: 'interactions',
  setup(core) {
    traceInteractions(core, tracer(core, 'user-interaction'), tracingFor(core).contextManager);
  },
});

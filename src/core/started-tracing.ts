import type { SpanContext } from '@opentelemetry/api';
import type { Teardown } from './core';
import type { Tracing } from './integration';

/**
 * The SDK's tracing once an integration started it (tracing/tracing-for.ts), as the parts that must not import its
 * code reach it: the logs (the active span) and `instrumentFetch()`. An app whose integrations do not trace bundles
 * none of it.
 */
export interface StartedTracing {
  readonly tracing: Tracing;
  /** `instrumentFetch()`'s traced fetch; undefined where the browser has no fetch. */
  readonly tracedFetch: typeof fetch | undefined;
  /** The active span's context, if any: its ids put a log record into the trace. */
  activeSpan(): SpanContext | undefined;
}

/**
 * The tracing each instance started, if one of its integrations did; keyed by the instance's teardown list: one per
 * running SDK, and the same in every core object of that instance.
 */
export const startedTracings = new WeakMap<Teardown, StartedTracing>();

import { INGEST_PATHS } from '../../wire/paths';
import { captureOriginals } from '../core/originals';
import type { DebugLog } from '../core/core';
import { SYSTEM_CLOCK, type PipelineClock } from './clock';
import type { TelemetryItem } from './items';
import { createKeepaliveBudget } from './keepalive-budget';
import type { Signal } from './otlp-json';
import type { Persistence } from './persist';
import { createBoundedQueue, type BoundedQueue } from './queue';
import type { Chunk } from './split';
import type { Transport } from './transport';
import type { PipelineOptions } from './types';
import type { UnloadRoute } from './unload';

export const SIGNALS: readonly Signal[] = ['logs', 'traces', 'metrics'];
export const SIGNAL_OF = { log: 'logs', span: 'traces', metric: 'metrics' } as const;

/** One request's records and body, and its signal. */
export interface SignalChunk {
  readonly signal_: Signal;
  readonly chunk_: Chunk<TelemetryItem>;
}

/**
 * What the pipeline's units share (docs/sdk-pipeline.md): the queue, the transport and the counters of one pipeline.
 * Names end in `_`, so the build gives them one- or two-letter names (docs/sdk-build.md, "Internal property names").
 */
export interface PipelineState {
  readonly options_: PipelineOptions;
  readonly debug_: DebugLog;
  readonly clock_: PipelineClock;
  readonly queue_: BoundedQueue<TelemetryItem>;
  /** Undefined when apiKey, serviceName or fetch is missing: nothing is sent. */
  readonly transport_: Transport | undefined;
  readonly route_: UnloadRoute | undefined;
  /** The resource attributes of every request. */
  readonly service_: Record<string, string>;
  /** Where misconfiguration warnings go, even without `debug`. */
  readonly console_: Pick<Console, 'warn'>;
  /** The outbox (`persistence` option), once created. */
  persistence_?: Persistence;
  /** Set by shutdown. This flag and the two below start absent, not false: a smaller initial state in the bundle. */
  stopped_?: boolean;
  /** Consecutive failed flushes, for the backoff; and no sending before `pausedUntil_` (except at unload/shutdown). */
  failures_: number;
  pausedUntil_: number;
  /** Signals refused for good (401, 403, 422): nothing more of them is sent from this page. */
  readonly stoppedSignals_: Set<Signal>;
  /** Records lost per reason (`queue_full` is the queue's own count), the counts the server has had, the queue's last warned. */
  readonly lost_: Record<string, number>;
  readonly lostSent_: Record<string, number>;
  droppedWarned_: number;
  readonly startMs_: number;
  lastSessionId_: string;
  /** The drop reports currently being sent: they are not queue records and never go back on the queue. */
  readonly reports_: WeakSet<TelemetryItem>;
  /** Local-storage key of records a page-leave flush kept (see Persistence.keep), until they are done with. */
  readonly keptKeys_: WeakMap<TelemetryItem, string>;
  /** Requests of flushes on the wire: a page that leaves before their answer keeps them too. */
  readonly sending_: Set<SignalChunk>;
  /** This page put requests in the outbox: drain it after the next delivery. */
  drainDue_?: boolean;
  /** Unload left records behind for lack of budget: send them once a keepalive request frees some. */
  drainWhenBudgetFrees_?: boolean;
  /** Requests answered so far, outside the unload path: with a 2xx, and otherwise (refused, failed, timed out). */
  readonly answers_: [sent: number, failed: number];
}

/** `service.name` (the pinned app id when given), version and environment, then the caller's extra attributes. */
function serviceAttributes(options: PipelineOptions): Record<string, string> {
  const { config } = options;
  const attributes: Record<string, string> = { 'service.name': config.appId || config.serviceName || '' };
  if (config.serviceVersion) attributes['service.version'] = config.serviceVersion;
  if (config.env) attributes['deployment.environment'] = config.env;
  for (const [key, value] of Object.entries(options.resource)) {
    if (!(key in attributes) && key !== 'session.id') attributes[key] = value;
  }
  return attributes;
}

export function createPipelineState(options: PipelineOptions): PipelineState {
  const { config } = options;
  const clock = options.clock || SYSTEM_CLOCK;
  const transport: Transport | undefined =
    config.apiKey && config.serviceName && options.fetch
      ? {
          fetch: options.fetch,
          apiKey: config.apiKey,
          timeoutMs_: config.requestTimeoutMs,
          budget_: createKeepaliveBudget(),
          clock,
        }
      : undefined;
  if (!transport) options.debug.warn('apiKey, serviceName or fetch missing: telemetry will not be sent');
  return {
    options_: options,
    debug_: options.debug,
    clock_: clock,
    queue_: createBoundedQueue<TelemetryItem>(config.maxQueueSize),
    transport_: transport,
    route_: transport && { transport, sendBeacon: options.sendBeacon },
    service_: serviceAttributes(options),
    console_: options.console || captureOriginals().console,
    failures_: 0,
    pausedUntil_: 0,
    stoppedSignals_: new Set(),
    lost_: {},
    lostSent_: {},
    droppedWarned_: 0,
    startMs_: clock.now(),
    lastSessionId_: '',
    reports_: new WeakSet(),
    keptKeys_: new WeakMap(),
    sending_: new Set(),
    answers_: [0, 0],
  };
}

export const urlOf = (state: PipelineState, signal: Signal): string => state.options_.ingestUrl(INGEST_PATHS[signal]);

import type { Integration, IntegrationsOption } from '../core/integration';
import { startOtel, type OtelOptions } from './start';

/** The SDK's own tracing integrations: the official instrumentations do their work when `otel` is on. */
export const OWN_TRACING = ['fetch', 'xhr', 'documentLoad', 'interactions'] as const;

/**
 * The official OpenTelemetry instrumentations on the SDK's tracer provider (start.ts). Listed with the SDK's own
 * `fetch`, `xhr`, `documentLoad` and `interactions` integrations, it replaces them, with a debug warning: each
 * request, page load and click is traced once. {@link withOtel} builds the list without them.
 */
export function otelIntegration(options: OtelOptions): Integration {
  return { name: 'otel', replaces: OWN_TRACING, setup: (core) => startOtel(core, options) };
}

/**
 * The `integrations` option for an app that traces with the official instrumentations: the default integrations
 * without the SDK's own tracing, then {@link otelIntegration} with `options`.
 */
export function withOtel(options: OtelOptions): IntegrationsOption {
  const replaced: readonly string[] = OWN_TRACING;
  return (defaults) => [...defaults.filter((entry) => !replaced.includes(entry.name)), otelIntegration(options)];
}

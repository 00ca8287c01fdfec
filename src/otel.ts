/**
 * `@svc/browser/otel`: the official OpenTelemetry instrumentations (`@opentelemetry/instrumentation-fetch`,
 * `-xml-http-request`, `-document-load`, `-user-interaction`), `@opentelemetry/context-zone` and, if asked,
 * `@opentelemetry/exporter-trace-otlp-http`, through the SDK, in place of its own fetch, XHR, document-load and
 * interaction tracing (docs/sdk.md "OpenTelemetry instrumentations"). This entry imports none of those packages: the
 * app installs and constructs the ones it uses (optional peer dependencies) and hands them over. Importing it has no
 * side effects.
 */
export { otelIntegration, withOtel } from './otel/integration';
export type { OtelOptions } from './otel/start';
export type { OtelInstrumentation } from './otel/instrumentations';
export type { Integration, IntegrationsOption } from './core/integration';

/**
 * Variant "sentry": `@sentry/browser` with tracing (`browserTracingIntegration`, every transaction sampled) and
 * session replay (`replayIntegration` with its defaults, every session recorded), its other options at their defaults.
 */
import * as Sentry from '@sentry/browser';
import { sentryDsn, startApp } from './app';

Sentry.init({
  dsn: sentryDsn(),
  integrations: [Sentry.browserTracingIntegration(), Sentry.replayIntegration()],
  tracesSampleRate: 1,
  replaysSessionSampleRate: 1,
});
startApp();

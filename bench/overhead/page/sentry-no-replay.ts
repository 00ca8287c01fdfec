/** Variant "sentry-no-replay": `@sentry/browser` with tracing, every transaction sampled, no replay (issue 3's comparison). */
import * as Sentry from '@sentry/browser';
import { sentryDsn, startApp } from './app';

Sentry.init({ dsn: sentryDsn(), integrations: [Sentry.browserTracingIntegration()], tracesSampleRate: 1 });
startApp();

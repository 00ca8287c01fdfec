/**
 * Variant "sentry": `@sentry/browser` with tracing (`browserTracingIntegration`, every transaction sampled) and its
 * other defaults, no replay. The DSN's project id is the run number, so envelopes arrive at the bench sink as
 * `/api/<run>/envelope/`.
 */
import * as Sentry from '@sentry/browser';
import { benchParams, startApp } from './app';

const { run, sink } = benchParams();
const dsn = new URL(sink);
dsn.username = 'bench';
dsn.pathname = `/${run}`;
Sentry.init({ dsn: dsn.href, integrations: [Sentry.browserTracingIntegration()], tracesSampleRate: 1 });
startApp();

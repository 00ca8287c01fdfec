/**
 * Variant "svc": `@svc/browser` with every signal at its default, replay off (the replay issue adds a variant with it
 * on). Telemetry goes to the bench sink under `/r/<run>`, so the sink can tell runs apart.
 */
import { initBrowserSDK } from '@svc/browser';
import { benchParams, startApp } from './app';

const { run, sink } = benchParams();
initBrowserSDK({ apiKey: 'bench-key', serviceName: 'web-app', ingestUrl: `${sink}/r/${run}`, replay: { enabled: false } });
startApp();

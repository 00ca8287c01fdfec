/**
 * Variant "svc": `@svc/browser` with every option at its default, session replay included (rrweb loaded on demand
 * from its own chunk once the SDK has started).
 */
import { initBrowserSDK } from '@svc/browser';
import { startApp, svcIngestUrl } from './app';

initBrowserSDK({ apiKey: 'bench-key', serviceName: 'web-app', ingestUrl: svcIngestUrl() });
startApp();

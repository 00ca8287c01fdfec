/** Variant "svc-no-replay": `@svc/browser` with every signal at its default but replay off (issue 3's comparison). */
import { initBrowserSDK } from '@svc/browser';
import { startApp, svcIngestUrl } from './app';

initBrowserSDK({ apiKey: 'bench-key', serviceName: 'web-app', ingestUrl: svcIngestUrl(), replay: { enabled: false } });
startApp();

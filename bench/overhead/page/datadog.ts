/**
 * Variant "datadog": Datadog RUM (`@datadog/browser-rum`) and logs (`@datadog/browser-logs`), everything sampled at
 * 100 %: sessions, session replay (recorder chunk loaded on demand, compression in its deflate worker), traces on
 * same-origin fetches, console output of every level and errors forwarded as logs; user interactions, resources and
 * long tasks tracked (their defaults). Privacy at its default (`mask-user-input`, svc's level: inputs masked, text
 * recorded). Everything goes to the bench's sink through the `proxy` option.
 */
import { datadogLogs } from '@datadog/browser-logs';
import { datadogRum } from '@datadog/browser-rum';
import { datadogProxy, startApp } from './app';

const proxy = datadogProxy();
const common = {
  clientToken: 'pubbench',
  site: 'datadoghq.com',
  service: 'web-app',
  proxy,
  sessionSampleRate: 100,
} as const;

datadogRum.init({
  ...common,
  applicationId: '00000000-0000-0000-0000-000000000000',
  sessionReplaySampleRate: 100,
  traceSampleRate: 100,
  allowedTracingUrls: [location.origin],
  trackUserInteractions: true,
  trackResources: true,
  trackLongTasks: true,
});
datadogLogs.init({ ...common, forwardErrorsToLogs: true, forwardConsoleLogs: 'all' });
startApp();

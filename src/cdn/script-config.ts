import type { BrowserSDKConfig } from '../config/types';

/**
 * Options from the `data-` attributes of the SDK's own `<script>` tag, for the zero-config script-tag setup:
 * `data-api-key` (required: without it nothing starts), `data-service-name` (default `web-app`), `data-app-id`,
 * `data-env`, `data-service-version`, `data-ingest-url`, `data-debug` (present or `"true"`), and
 * `data-replay="false"` to turn session replay off. `data-recorder-src` is read separately ({@link readRecorderSrc}).
 */
export function readScriptConfig(script: HTMLOrSVGScriptElement | null | undefined): BrowserSDKConfig | undefined {
  // `dataset` rather than `instanceof HTMLElement`: the script may run where that constructor is not a global.
  const data: DOMStringMap | undefined = script ? script.dataset : undefined;
  const apiKey = data && data.apiKey && data.apiKey.trim();
  if (!data || !apiKey) return undefined;
  const options: BrowserSDKConfig = { apiKey, serviceName: (data.serviceName || '').trim() || 'web-app' };
  if (data.appId) options.appId = data.appId;
  if (data.env) options.env = data.env;
  if (data.serviceVersion) options.serviceVersion = data.serviceVersion;
  if (data.ingestUrl !== undefined) options.ingestUrl = data.ingestUrl;
  if (data.debug !== undefined) options.debug = data.debug === '' || data.debug === 'true';
  if (data.replay === 'false') options.replay = { enabled: false };
  return options;
}

/**
 * `data-recorder-src`: where to load the session recorder (`svc-recorder.min.js`) from when it is not next to
 * `svc.min.js`. Read whether or not the tag carries `data-api-key`, since `Svc.init()` in code needs it too.
 */
export function readRecorderSrc(script: HTMLOrSVGScriptElement | null | undefined): string | undefined {
  const src = script && script.dataset && script.dataset.recorderSrc;
  return (src && src.trim()) || undefined;
}

/**
 * Entry of the `<script>` build (`dist/cdn/svc.min.js`): rollup wraps it in an IIFE whose exports become the global
 * `Svc`. Either configure it from the script tag's `data-` attributes (see cdn/script-config.ts), which starts it as
 * soon as the file runs, or call `Svc.init({...})` yourself. The session recorder (rrweb) is not in this file: once
 * replay starts, cdn/load-recorder.ts loads `svc-recorder.min.js` (entry cdn/recorder.ts) from beside it.
 */
import { readScriptConfig } from './cdn/script-config';
import { noIngestUrl } from './config/env-options';
import { warnOnce } from './core/debug';
import { captureOriginals } from './core/originals';
import { initBrowserSDK } from './sdk/init';

// The npm entry's values, without its integration factories: a script tag chooses integrations by name, from the
// defaults (`integrations: (defaults) => defaults.filter(...)`), and has nothing to leave out of a bundle. `tracingFor`
// is for an integration of the page's own that traces.
export { getSDK, initBrowserSDK, loadRecorder, MASK, resolveConfig, SDK_NAME, SDK_VERSION, tracingFor } from './index';
/** `Svc.init(config)`: the script-tag spelling of `initBrowserSDK`. */
export { initBrowserSDK as init } from './sdk/init';

if (typeof document !== 'undefined') {
  const options = readScriptConfig(document.currentScript);
  if (options !== undefined) {
    // As /auto does: without an address, telemetry goes to the page's own origin ("/" says that is meant).
    if (options.ingestUrl === undefined)
      warnOnce(captureOriginals().console, 'script-url', noIngestUrl('data-ingest-url'));
    initBrowserSDK(options);
  }
}

/**
 * `@svc/browser/auto`: the zero-config entry. `import '@svc/browser/auto'` starts the SDK in the browser with every
 * signal on and global fetch patched, configured from the framework's build-time environment variables
 * (`VITE_SVC_*`, `NEXT_PUBLIC_SVC_*`, `REACT_APP_SVC_*`: `SVC_API_KEY`, `SVC_SERVICE_NAME`, `SVC_APP_ID`, `SVC_ENV`,
 * `SVC_INGEST_URL`, `SVC_SERVICE_VERSION`, `SVC_DEBUG`). In Node (SSR, tests) importing it does nothing. A missing key or
 * ingest URL is warned about once, even without `debug`.
 */
import { readEnvConfig } from './config/env';
import { envOptions, envWarnings } from './config/env-options';
import { warnOnce } from './core/debug';
import { initBrowserSDK } from './sdk/init';
import { captureOriginals } from './core/originals';

export * from './index';
export { readEnvConfig } from './config/env';
export type { EnvConfig } from './config/env';

if (typeof window !== 'undefined') {
  const original = captureOriginals().console;
  for (const [kind, message] of envWarnings(readEnvConfig())) warnOnce(original, kind, message);
  initBrowserSDK(envOptions({ instrumentGlobalFetch: true }));
}

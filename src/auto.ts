/**
 * `@svc/browser/auto`: the zero-config entry. `import '@svc/browser/auto'` starts the SDK in the browser with every
 * signal on and global fetch patched, configured from the framework's build-time environment variables
 * (`VITE_SVC_*`, `NEXT_PUBLIC_SVC_*`, `REACT_APP_SVC_*`: `SVC_API_KEY`, `SVC_SERVICE_NAME`, `SVC_APP_ID`, `SVC_ENV`,
 * `SVC_INGEST_URL`, `SVC_SERVICE_VERSION`). In Node (SSR, tests) importing it does nothing.
 */
import { envOptions } from './config/env-options';
import { initBrowserSDK } from './sdk/init';

export * from './index';
export { readEnvConfig } from './config/env';
export type { EnvConfig } from './config/env';

if (typeof window !== 'undefined') initBrowserSDK(envOptions({ instrumentGlobalFetch: true }));

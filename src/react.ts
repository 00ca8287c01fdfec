/**
 * `@svc/browser/react`: the React entry. Call `initSvc()` once at the root of the app (it reads the same environment
 * variables as `/auto`, patches global fetch, and takes overrides), then use the helpers and `<SvcErrorBoundary>`
 * anywhere without holding the SDK reference. Importing it has no side effects and is safe during server rendering.
 */
import { envOptions } from './config/env-options';
import type { BrowserSDKConfig } from './config/types';
import { initBrowserSDK } from './sdk/init';
import type { BrowserSDK } from './core/types';

export * from './index';
export {
  captureError,
  captureException,
  captureReplayEvent,
  clearUser,
  flushReplay,
  getSessionId,
  log,
  metric,
  setAttributes,
  setUser,
} from './react/helpers';
export { SvcErrorBoundary, type SvcErrorBoundaryProps } from './react/error-boundary';

/**
 * Starts the SDK from the build-time environment variables (`VITE_SVC_*`, `NEXT_PUBLIC_SVC_*`, `REACT_APP_SVC_*`)
 * with `overrides` on top, global fetch patched. Safe to call from a component body or effect: a second call returns
 * the running instance; on the server it returns an SDK that does nothing.
 */
export function initSvc(overrides: Partial<BrowserSDKConfig> = {}): BrowserSDK {
  return initBrowserSDK(envOptions(overrides));
}

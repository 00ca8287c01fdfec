/**
 * `@svc/browser/auto`: the zero-config entry. It reads its settings from the framework's build-time environment
 * variables (`VITE_SVC_*`, `NEXT_PUBLIC_SVC_*`, `REACT_APP_SVC_*`) and exposes everything the core entry does.
 * Importing it has no side effects.
 */
export * from './index';
export { readEnvConfig } from './config/env';
export type { EnvConfig } from './config/env';

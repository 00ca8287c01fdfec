import type { Integration } from '../core/integration';
import { startConsole } from './console';
import { startErrors } from './errors';
import { startNavigation } from './navigation';
import { startVitals } from './vitals';

/** Uncaught errors and unhandled rejections as error logs (errors.ts). */
export const errorsIntegration = (): Integration => ({ name: 'errors', setup: startErrors });

/** `console.debug/info/warn/error` output as logs (console.ts). */
export const consoleIntegration = (): Integration => ({ name: 'console', setup: startConsole });

/** Web Vitals as metrics, each on the route it was measured on (vitals.ts); `vitals.enabled: false` also stops it. */
export const vitalsIntegration = (): Integration => ({ name: 'vitals', setup: startVitals });

/** URL changes as `navigation` replay events, and the route history Web Vitals read (navigation.ts). */
export const navigationIntegration = (): Integration => ({ name: 'navigation', setup: startNavigation });

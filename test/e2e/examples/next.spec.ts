import { EXAMPLES } from '../../support/examples';
import { ALIAS, describeExample } from './scenario';

// `initSvc()` from `@svc/browser/react` in instrumentation-client.ts, configured through NEXT_PUBLIC_SVC_* (inlined by
// `next build`, and by the dev server), on the app router; a route handler answers /api/echo.
describeExample(EXAMPLES.next, {
  configure: { serviceName: ALIAS, env: 'staging' },
  expected: { serviceName: ALIAS, env: 'staging', errorBoundary: true },
  timeoutMs: 180_000,
  coupons: { path: 'app/coupons.ts', mapName: 'app/coupons.ts' },
});

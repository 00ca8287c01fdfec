import { EXAMPLES } from '../../support/examples';
import { ALIAS, describeExample } from './scenario';

// `initSvc()` from `@svc/browser/react` before anything else in the app (src/svc.ts), configured through VITE_SVC_*
// (read by `vite build`, and by the dev server at serve time), plus the React helpers and error boundary; the build's
// `@svc/build` plugin uploads its source maps.
describeExample(EXAMPLES['vite-react'], {
  configure: { serviceName: ALIAS, env: 'staging' },
  expected: { serviceName: ALIAS, env: 'staging', errorBoundary: true, exportReplayIn: 'production' },
  timeoutMs: 180_000,
  coupons: { path: 'src/coupons.ts', mapName: 'src/coupons.ts' },
});

import { EXAMPLES } from '../../support/examples';
import { ALIAS, describeExample } from './scenario';

// Zero-config `@svc/browser/auto` configured through VITE_SVC_* (read by `vite build`, and by the dev server at
// serve time), plus the React helpers and error boundary from `@svc/browser/react`.
describeExample(EXAMPLES['vite-react'], {
  configure: { serviceName: ALIAS, env: 'staging' },
  expected: { serviceName: ALIAS, env: 'staging', errorBoundary: true, exportReplayIn: 'production' },
  timeoutMs: 180_000,
  couponsModule: 'src/coupons.ts',
});

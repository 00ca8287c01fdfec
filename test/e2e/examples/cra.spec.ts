import { EXAMPLES } from '../../support/examples';
import { describeExample } from './scenario';

// Zero-config `@svc/browser/auto` under react-scripts, configured through REACT_APP_SVC_*. Service name and environment
// are left unset: the SDK's defaults (`web-app`, and NODE_ENV as CRA inlines it: `production`) must arrive.
describeExample(EXAMPLES.cra, {
  configure: {},
  expected: { serviceName: 'web-app', env: 'production', errorBoundary: false },
  timeoutMs: 120_000,
  // CRA's webpack config names sources relative to src/.
  coupons: { path: 'src/coupons.js', mapName: 'coupons.js' },
});

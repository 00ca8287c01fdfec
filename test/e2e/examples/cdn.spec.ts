import { EXAMPLES } from '../../support/examples';
import { ALIAS, describeExample } from './scenario';

// The script-tag build, configured by its own data- attributes, on a plain HTML page.
describeExample(EXAMPLES.cdn, {
  configure: { serviceName: ALIAS, env: 'staging' },
  expected: { serviceName: ALIAS, env: 'staging', errorBoundary: false },
  timeoutMs: 90_000,
  coupons: { path: 'src/coupons.js', mapName: 'src/coupons.js' },
});

// The page's checkout code, in modules like a real site's: `npm run build` bundles and minifies it with esbuild into
// dist/checkout.min.js and its source map, served as /assets/checkout.min.js; `npm run sourcemaps` then gives both a
// debug ID and uploads the map, so an error thrown here reads back at this source.
import { applyCoupons } from './coupons.js';

const total = document.querySelector('[data-testid="total"]');

document.getElementById('coupons').addEventListener('click', () => {
  total.textContent = `Total: ${applyCoupons(42, ['WELCOME10', 'EXPIRED5'])} €`;
  total.hidden = false;
});

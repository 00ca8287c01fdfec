import { expect, test, type Page } from '@playwright/test';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';
import { ingest, nanos, otlpAttributes } from './telemetry-seed';

/**
 * The Web Vitals page (`/vitals`) in Chromium on vital points sent as OTLP with `url.path` on several routes and values
 * around web.dev's thresholds: p75 (nearest rank) and ratings as seeded, distributions as text, the pages table
 * sorting and selecting a route through the URL, keyboard use, accessibility and the docs picture.
 */

const METRIC = {
  LCP: 'web_vital_lcp_ms',
  INP: 'web_vital_inp_ms',
  CLS: 'web_vital_cls',
  FCP: 'web_vital_fcp_ms',
  TTFB: 'web_vital_ttfb_ms',
} as const;
type Vital = keyof typeof METRIC;

/** Values per page path and vital. /products/1 and /products/2 are one route, /products/:id. */
const SEED: Record<string, Partial<Record<Vital, number[]>>> = {
  '/products/1': { LCP: [1000, 2600], INP: [100, 600], CLS: [0.05, 0.3], FCP: [1700], TTFB: [700, 2000] },
  '/products/2': { LCP: [2000, 2400], INP: [150, 300], CLS: [0.3, 0.02], FCP: [1900], TTFB: [900, 1900] },
  '/checkout': { LCP: [4500, 5000], INP: [50], CLS: [0.1], FCP: [1800], TTFB: [800] },
  '/': { LCP: [2500] },
};

let server: CliServer;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startCliServer();
  // One instant for every point, so the series has one bucket whose p75 is the window's.
  const at = nanos(Date.now() - 1000);
  const metrics = Object.entries(SEED).flatMap(([path, vitals]) =>
    Object.entries(vitals).map(([vital, values]) => ({
      name: METRIC[vital as Vital],
      unit: vital === 'CLS' ? '1' : 'ms',
      gauge: {
        dataPoints: values.map((v) => ({
          timeUnixNano: at,
          asDouble: v,
          attributes: otlpAttributes({ 'url.path': path }),
        })),
      },
    })),
  );
  const resource = { attributes: otlpAttributes({ 'service.name': server.appName, 'session.id': 'vitals-session' }) };
  await ingest(server, 'metrics', {
    resourceMetrics: [{ resource, scopeMetrics: [{ scope: { name: '@svc/test' }, metrics }] }],
  });
});

test.afterAll(async () => {
  await server?.close();
});

const panel = (page: Page, vital: Vital) => page.getByRole('region', { name: new RegExp(`^${vital} `) });
const pagesTable = (page: Page) => page.getByRole('table', { name: 'Pages by Web Vitals p75' });
const pageRow = (page: Page, route: string) =>
  pagesTable(page)
    .locator('tbody tr')
    .filter({ has: page.getByRole('link', { name: route, exact: true }) });

test('p75 and ratings of every vital as seeded; distributions in text; charts with their data as tables', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/vitals' });
  await expect(page.getByRole('heading', { level: 1, name: 'Web Vitals' })).toBeVisible();
  // All pages: LCP 1000 2000 2400 2500 2600 4500 5000 → p75 (6th of 7) 4500, poor; INP 50 100 150 300 600 → 300.
  await expect(panel(page, 'LCP').getByTestId('p75-LCP')).toHaveText('4500 ms');
  await expect(panel(page, 'LCP')).toContainText('Poor');
  await expect(panel(page, 'INP').getByTestId('p75-INP')).toHaveText('300 ms');
  await expect(panel(page, 'INP')).toContainText('Needs improvement');
  // CLS 0.02 0.05 0.1 0.3 0.3 → 0.3; FCP 1700 1800 1900 → 1900; TTFB 700 800 900 1900 2000 → 1900.
  await expect(panel(page, 'CLS').getByTestId('p75-CLS')).toHaveText('0.3');
  await expect(panel(page, 'FCP').getByTestId('p75-FCP')).toHaveText('1900 ms');
  await expect(panel(page, 'TTFB').getByTestId('p75-TTFB')).toHaveText('1900 ms');
  await expect(panel(page, 'TTFB')).toContainText('Poor');
  // LCP's seven samples: 4 good (≤ 2500), 1 needs improvement, 2 poor.
  const legend = panel(page, 'LCP').getByRole('list', { name: 'Samples per rating' });
  await expect(legend).toContainText('Good 57 % (4)');
  await expect(legend).toContainText('Needs improvement 14 % (1)');
  await expect(legend).toContainText('Poor 29 % (2)');
  // The default window (7 days) is bucketed by day.
  await expect(panel(page, 'LCP').getByRole('img', { name: 'LCP p75 per day' })).toBeVisible();
  // The chart's times are the browser's (its axis reads "Time, UTC" here), as every time the console shows.
  await expect(panel(page, 'LCP').getByRole('img', { name: 'LCP p75 per day' })).toHaveAttribute(
    'aria-description',
    'Times in UTC',
  );
  await panel(page, 'LCP').getByText('LCP p75 per day as a table').click();
  await expect(panel(page, 'LCP').getByRole('table', { name: 'LCP p75 per day' }).locator('tbody tr')).toHaveCount(1);
  await expect(panel(page, 'LCP').getByRole('table', { name: 'LCP p75 per day' })).toContainText('4500 ms');

  // Pages, most samples first: /products/:id (18), /checkout (6), / (1).
  const routes = pagesTable(page).locator('tbody tr td:first-child');
  await expect(routes).toHaveText(['/products/:id', '/checkout', '/']);
  const products = pageRow(page, '/products/:id');
  await expect(products.getByRole('cell').nth(1)).toHaveText('18');
  await expect(products.getByRole('cell').nth(2)).toHaveText('2400 ms Good');
  await expect(products.getByRole('cell').nth(3)).toHaveText('300 ms Needs improvement');
  await expect(products.getByRole('cell').nth(4)).toHaveText('0.3 Poor');
  await expect(pageRow(page, '/').getByRole('cell').nth(2)).toHaveText('2500 ms Good');
  await expect(pageRow(page, '/').getByRole('cell').nth(3)).toHaveText('— No data');

  await expectAccessible(page);
  await screenshot(page, testInfo, 'vitals');
});

test('a page row selects its route (URL route=), reload keeps it; the page select does the same', async ({ page }) => {
  await signIn(page, server, { path: '/vitals' });
  await pageRow(page, '/checkout').getByRole('link').click();
  await expect(page).toHaveURL(/route=%2Fcheckout/);
  await expect(panel(page, 'LCP').getByTestId('p75-LCP')).toHaveText('5000 ms');
  await expect(panel(page, 'INP').getByTestId('p75-INP')).toHaveText('50 ms');
  await expect(panel(page, 'INP')).toContainText('Good');
  await expect(pageRow(page, '/checkout')).toHaveAttribute('aria-current', 'true');
  await page.reload();
  await expect(panel(page, 'LCP').getByTestId('p75-LCP')).toHaveText('5000 ms');
  await expect(page.getByLabel('Page', { exact: true })).toHaveValue('/checkout');

  const filters = page.getByRole('search', { name: 'Web Vitals filters' });
  await filters.getByLabel('Page', { exact: true }).selectOption('/products/:id');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(panel(page, 'LCP').getByTestId('p75-LCP')).toHaveText('2400 ms');
  await expect(panel(page, 'CLS')).toContainText('Poor');
  await expect(panel(page, 'LCP').getByRole('list', { name: 'Samples per rating' })).toContainText('Good 75 % (3)');
});

test('the pages table sorts by a vital both ways; keyboard reaches filters and rows', async ({ page }) => {
  await signIn(page, server, { path: '/vitals' });
  const routes = pagesTable(page).locator('tbody tr td:first-child');
  await pagesTable(page).getByRole('button', { name: 'LCP p75' }).click();
  await expect(page).toHaveURL(/sort=LCP&order=desc/);
  await expect(routes).toHaveText(['/checkout', '/', '/products/:id']);
  await pagesTable(page).getByRole('button', { name: 'LCP p75' }).click();
  await expect(routes).toHaveText(['/products/:id', '/', '/checkout']);
  // Pages without INP go last either way.
  await pagesTable(page).getByRole('button', { name: 'INP p75' }).click();
  await expect(routes).toHaveText(['/products/:id', '/checkout', '/']);

  // Keyboard: Tab from the time range to the filters, choose a page, Enter applies; Tab through the rows' links.
  await page.getByLabel('Time range').focus();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('App')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Page', { exact: true })).toBeFocused();
  await page.getByLabel('Page', { exact: true }).selectOption('/checkout');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Apply' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/route=%2Fcheckout/);
  const links = pagesTable(page).locator('tbody a');
  await links.first().focus();
  await page.keyboard.press('Tab');
  await expect(links.nth(1)).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(links.nth(2)).toHaveText('/');
  await expect(links.nth(2)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/route=%2F(&|$)/);
  await expect(panel(page, 'LCP').getByTestId('p75-LCP')).toHaveText('2500 ms');
});

import { expect, test, type Page } from '@playwright/test';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';
import { ingest, lcpMetrics, waitForItems } from './telemetry-seed';

/**
 * The Alerts pages in Chromium: the rules list (`/alerts`) and the editor (`/alert/{id}`) whose preview draws the
 * query over the last 7 days with uPlot, the threshold and where the rule would have fired, before saving; a 400 shown
 * next to its field; editing by keyboard; and the incident a rule opens (the server's own evaluator, on its detection
 * schedule) showing the chart around its start. Seeded through ingest and the API.
 */

const HOUR = 3_600_000;
const MINUTE = 60_000;

/**
 * LCP on /checkout/<n>: 1500 ms every hour from 72 h to 2 h ago, except 5000 ms from 30 h to 27 h ago (a slow
 * afternoon), and 6000 ms every ten minutes of the last hour (slow now). A rule "p75 over an hour above 4000 ms" would
 * have fired twice: over the slow afternoon, and now (still firing).
 */
function lcpPoints(now: number): Array<{ atMs: number; value: number }> {
  const hourly = Array.from({ length: 71 }, (_, i) => {
    const hoursAgo = 72 - i;
    return { atMs: now - hoursAgo * HOUR, value: hoursAgo >= 27 && hoursAgo <= 30 ? 5000 : 1500 };
  });
  const recent = [50, 40, 30, 20, 10].map((m) => ({ atMs: now - m * MINUTE, value: 6000 }));
  return [...hourly, ...recent];
}

const RULE = {
  name: 'Checkout LCP',
  signal: 'vitals',
  query: { aggregate: 'p75', metric: 'LCP', filter: { route: '/checkout*' } },
  window_seconds: 3600,
  condition: { type: 'threshold', op: 'above', value: 4000 },
  severity: 'high',
};

let server: CliServer;

/** A control-plane call with the control key: its status and JSON answer. */
async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}/control-plane${path}`, {
    method,
    headers: { authorization: `Bearer ${server.controlKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startCliServer();
  const points = lcpPoints(Date.now());
  const resource = { 'service.name': server.appName, 'session.id': 'alerts-session' };
  const lcp = points.map((p, i) => ({ ...p, path: `/checkout/${i % 3}` }));
  await ingest(server, 'metrics', { resourceMetrics: [lcpMetrics(resource, lcp)] });
  await waitForItems(server, '/metrics?limit=200', points.length);
});

test.afterAll(async () => {
  await server?.close();
});

const preview = (page: Page) => page.getByRole('region', { name: 'Preview: the last 7 days' });

test('a new rule: the preview draws the last 7 days, the threshold and both firings before saving; a 400 names its field', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/alerts' });
  await expect(page.getByRole('heading', { level: 1, name: 'Alerts' })).toBeVisible();
  await page.getByRole('link', { name: 'New rule' }).click();
  await expect(page).toHaveURL(/\/alert\/new$/);
  const form = page.getByRole('form', { name: 'Definition of the new rule' });
  await form.getByLabel('Name').fill('Slow checkout');
  await expect(form.getByLabel('Signal')).toHaveValue('vitals');
  await expect(form.getByLabel('Vital')).toHaveValue('LCP');
  await form.getByLabel('Route (* matches anything)').fill('/checkout*');
  await form.getByLabel('Window (seconds)').fill('3600');
  await form.getByLabel('Threshold').fill('4000');

  await expect(preview(page).getByRole('img', { name: 'p75 LCP over the last 7 days' })).toBeVisible();
  await expect(preview(page)).toContainText('It would have fired 2 times in this range');
  const firings = preview(page).getByRole('list', { name: 'When it would have fired' }).getByRole('listitem');
  await expect(firings).toHaveCount(2);
  await expect(firings.nth(1)).toContainText('still firing');
  await expect(preview(page)).toContainText('threshold 4000 ms');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'alert-rule-editor');

  // A threshold left empty: the server's 400 is shown next to the field, and nothing is saved.
  await form.getByLabel('Threshold').fill('');
  await form.getByRole('button', { name: 'Create rule' }).click();
  await expect(form.getByLabel('Threshold')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByRole('alert')).toContainText('condition.value');
  await form.getByLabel('Threshold').fill('4000');
  await form.getByRole('button', { name: 'Create rule' }).click();
  await expect(page).toHaveURL(/\/alerts\?saved=/);
  await expect(page.getByRole('status').filter({ hasText: 'Rule Slow checkout saved.' })).toBeVisible();
  const row = page.getByRole('table', { name: 'Alert rules' }).getByRole('row', { name: /Slow checkout/ });
  await expect(row).toContainText('p75 LCP');
  await expect(row).toContainText('above 4000 ms');
});

test('a rule seeded through the API fires; the list links its incident, whose page charts the rule around its start', async ({
  page,
}, testInfo) => {
  test.setTimeout(60_000);
  const created = await api<{ id: string }>('POST', '/alert-rules', RULE);
  expect(created.status).toBe(201);
  // The server evaluates a new rule at its next detection tick (every 10 s).
  await expect
    .poll(
      async () =>
        (await api<{ incident_id: string | null }>('GET', `/alert-rules/${created.body.id}`)).body.incident_id,
      { timeout: 30_000 },
    )
    .toMatch(/./);
  await signIn(page, server, { path: '/alerts' });
  const row = page.getByRole('table', { name: 'Alert rules' }).getByRole('row', { name: /Checkout LCP/ });
  await expect(row).toContainText('Firing');
  await expect(row).toContainText('6000 ms');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'alerts');
  await row.getByRole('link', { name: /^inc/ }).click();

  await expect(page).toHaveURL(/\/incident\//);
  const panel = page.getByRole('region', { name: 'Alert rule' });
  await expect(panel.getByRole('link', { name: 'Checkout LCP' })).toHaveAttribute('href', `/alert/${created.body.id}`);
  await expect(panel).toContainText('6000 ms against 4000 ms');
  await expect(panel.getByRole('img', { name: /^p75 LCP from / })).toBeVisible();
  // Six hours before its start: the slow afternoon is older; it fires from the last hour on.
  await expect(panel).toContainText('It would have fired once in this range');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'alert-incident');
});

test('editing by keyboard: a higher threshold previews no firing, and saving keeps it', async ({ page }) => {
  const created = await api<{ id: string }>('POST', '/alert-rules', {
    ...RULE,
    name: 'Checkout LCP, keyboard',
    enabled: false,
  });
  await signIn(page, server, { path: `/alert/${created.body.id}` });
  const form = page.getByRole('form', { name: 'Definition' });
  await expect(preview(page)).toContainText('It would have fired 2 times in this range');
  await form.getByLabel('Threshold').focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('7000');
  await expect(preview(page)).toContainText('It would not have fired in this range.');
  // Tab on to the recovery and `for` fields, then to the submit button by keyboard alone.
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('Recovers at (optional)')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('For (seconds)')).toBeFocused();
  await form.getByRole('button', { name: 'Save rule' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/alerts\?saved=/);
  const stored = await api<{ condition: { value: number }; enabled: boolean }>(
    'GET',
    `/alert-rules/${created.body.id}`,
  );
  expect(stored.body.condition.value).toBe(7000);
  expect(stored.body.enabled).toBe(false);
  await expect(
    page.getByRole('table', { name: 'Alert rules' }).getByRole('row', { name: /Checkout LCP, keyboard/ }),
  ).toContainText('disabled');
});

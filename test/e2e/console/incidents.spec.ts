import { expect, test, type Page } from '@playwright/test';
import { CART_ERROR, errorLog, resource } from '../../support/error-logs';
import { str } from '../../support/otlp';
import { controlGet, startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';

/**
 * The console's Incidents list and incident page against `svc-server start`: incidents opened through the API (as
 * external detectors do) and one the detector opens from five errors of a group (with its evidence and sessions).
 * Filters and page in the URL; Acknowledge and Resolve from the page update it; a read key sees no action (and the
 * server refuses anyway); a hostile title stays text.
 */

const ENV = 'incidents-e2e';
const HOSTILE = '<img src=x onerror="window.__pwned=1">';
/** A request of the first session, failed before its error: its path, one unbroken 240-character run, must wrap inside its cards. */
const LONG_PATH = `/api/carts/${'a1b2c3d4'.repeat(30)}/recalculate`;
const LONG_URL = `https://shop.example.com${LONG_PATH}`;

let server: CliServer;
let detectedId = '';

async function call(method: string, path: string, body: unknown, key = server.controlKey): Promise<Response> {
  return fetch(`${server.url}/control-plane${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function openIncident(title: string, severity: string, services: string[]): Promise<void> {
  const res = await call('POST', '/incidents', {
    title,
    severity,
    env: 'production',
    services,
    root_cause_summary: `Summary of ${title}`,
  });
  expect(res.status, await res.text()).toBe(201);
}

test.beforeAll(async () => {
  test.setTimeout(90_000);
  server = await startCliServer();
  const now = Date.now();
  const failed = {
    traceId: 'c0ffee'.padEnd(32, '0'),
    spanId: 'c0ffee'.padEnd(16, '0'),
    name: 'browser.fetch GET',
    kind: 3,
    startTimeUnixNano: `${now - 6_000}000000`,
    endTimeUnixNano: `${now - 5_900}000000`,
    attributes: [str('http.url', LONG_URL), { key: 'http.status_code', value: { intValue: 503 } }],
    status: { code: 2 },
  };
  const span = await fetch(`${server.url}/otlp/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey },
    body: JSON.stringify({
      resourceSpans: [
        {
          resource: resource({ env: ENV, sessionId: 'sess-incident-0' }),
          scopeSpans: [{ scope: { name: '@svc/browser' }, spans: [failed] }],
        },
      ],
    }),
  });
  expect(span.status, await span.text()).toBe(200);
  for (let i = 0; i < 5; i++) {
    const body = JSON.stringify(errorLog({ sessionId: `sess-incident-${i}`, env: ENV, atMs: now - 5_000 + i }));
    const send = () =>
      fetch(`${server.url}/otlp/v1/logs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey },
        body,
      });
    // Sent again after a 503 (storage busy: nothing kept), as the SDK's exporter does.
    await expect
      .poll(async () => (await send()).status, { message: 'the error log was accepted', intervals: [250, 500, 1000] })
      .toBe(200);
  }
  // The detector runs every 10 s.
  await expect
    .poll(
      async () =>
        (await controlGet<{ data: Array<{ id: string; env: string }> }>(server, '/incidents')).body.data.find(
          (i) => i.env === ENV,
        )?.id ?? '',
      {
        timeout: 30_000,
        intervals: [500, 1000],
      },
    )
    .not.toBe('');
  detectedId = (await controlGet<{ data: Array<{ id: string; env: string }> }>(server, '/incidents')).body.data.find(
    (i) => i.env === ENV,
  )!.id;
  // Opened after it, so newest first they come before it.
  await openIncident('Search is slow for everyone', 'medium', ['search-api']);
  await openIncident(HOSTILE, 'low', ['frontend']);
  await openIncident('Checkout fails for every user', 'critical', ['checkout', 'payments']);
});
test.afterAll(async () => {
  await server?.close();
});

const rows = (page: Page) => page.locator('table.data-table tbody tr');

test('the list: newest first, filters in the URL (reload keeps them), keyset pages, hostile title stays text', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/incidents' });
  await expect(page.getByRole('heading', { level: 1, name: 'Incidents' })).toBeVisible();
  await expect(rows(page)).toHaveCount(4);
  await expect(rows(page).nth(0)).toContainText('Checkout fails for every user');
  await expect(rows(page).nth(0)).toContainText('critical');
  await expect(rows(page).nth(0)).toContainText('checkout, payments');
  await expect(rows(page).nth(1)).toContainText(HOSTILE);
  await expect(page.locator('table.data-table img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(rows(page).nth(3)).toContainText(CART_ERROR);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'incidents');

  // The severities rules offer, `warning` (issue events) among them.
  await expect(page.getByRole('combobox', { name: 'Severity' }).locator('option')).toHaveText([
    'Any',
    'critical',
    'high',
    'medium',
    'low',
    'warning',
    'info',
  ]);
  await page.getByRole('combobox', { name: 'Severity' }).selectOption('critical');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/severity=critical/);
  await expect(rows(page)).toHaveCount(1);
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Severity' })).toHaveValue('critical');
  await expect(rows(page)).toHaveCount(1);
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('textbox', { name: 'Environment' }).fill(ENV);
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText(CART_ERROR);

  await page.goto(`${server.url}/incidents?limit=3`);
  await expect(rows(page)).toHaveCount(3);
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page).toHaveURL(/cursor=/);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText(CART_ERROR);
  await page.reload();
  await expect(rows(page)).toHaveCount(1);
});

test('a sortable header orders the list by it: severity, most severe first, then reversed', async ({ page }) => {
  await signIn(page, server, { path: '/incidents?env=production' });
  const titles = page.locator('table.data-table tbody .incident-title');
  await expect(titles).toHaveText(['Checkout fails for every user', HOSTILE, 'Search is slow for everyone']);
  const severity = page.getByRole('button', { name: 'Severity' });
  await severity.click();
  await expect(page).toHaveURL(/sort=severity&order=desc/);
  await expect(titles).toHaveText(['Checkout fails for every user', 'Search is slow for everyone', HOSTILE]);
  await severity.click();
  await expect(titles).toHaveText([HOSTILE, 'Search is slow for everyone', 'Checkout fails for every user']);
});

test('keyboard to the detected incident: evidence, sessions, timeline; acknowledge and resolve update the page and the list', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: `/incidents?env=${ENV}` });
  const link = rows(page).first().getByRole('link');
  for (let i = 0; i < 40 && !(await link.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press('Tab');
  await expect(link).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/incident/${detectedId}$`));
  await expect(page.getByRole('heading', { level: 1 })).toContainText(CART_ERROR);
  const evidence = page.getByRole('region', { name: 'Evidence' });
  await expect(evidence).toContainText(`TypeError: ${CART_ERROR}`);
  await expect(evidence).toContainText('renderCart');
  await expect(page.getByRole('link', { name: 'sess-incident-0' })).toHaveAttribute('href', '/session/sess-incident-0');
  // The failing request that preceded the error in its session, its long URL wrapped inside the cards.
  await expect(evidence.getByRole('cell', { name: LONG_URL })).toBeVisible();
  const overflowing = (panelSelector = '.incident-page .panel') =>
    page.locator(panelSelector).evaluateAll((panels) =>
      panels.flatMap((panel) => {
        const edge = panel.getBoundingClientRect().right;
        // An element past the card's edge, or text past its element's (a scrolling box may hold more than it shows).
        const out = (el: Element) =>
          el.getBoundingClientRect().right > edge + 1 ||
          (!/auto|scroll/.test(getComputedStyle(el).overflowX) &&
            el.clientWidth > 1 &&
            el.scrollWidth > el.clientWidth + 1);
        return [panel, ...panel.querySelectorAll('*')]
          .filter(out)
          .map((el) => `${el.tagName} ${el.textContent?.slice(0, 40)}`);
      }),
    );
  expect(await overflowing()).toEqual([]);
  await page.setViewportSize({ width: 700, height: 844 });
  expect(await overflowing(), 'at a narrow window').toEqual([]);
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth),
    'no sideways scroll at a narrow window',
  ).toBeLessThanOrEqual(700);
  await page.setViewportSize({ width: 1280, height: 800 });
  // Without a model, the analysis is the summary again: the page says it once.
  const issueId = (await controlGet<{ issue_id: string }>(server, `/incidents/${detectedId}`)).body.issue_id;
  expect((await call('POST', `/issues/${issueId}/analysis`, {})).status).toBe(202);
  await expect
    .poll(async () => (await controlGet<{ state: string } | null>(server, `/issues/${issueId}/analysis`)).body?.state)
    .toBe('done');
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toContainText(CART_ERROR);
  const summary = (await controlGet<{ root_cause_summary: string }>(server, `/incidents/${detectedId}`)).body
    .root_cause_summary;
  expect(summary).toContain(`1 failing request correlates: GET ${LONG_PATH} → 503`);
  await expect(page.getByText(summary, { exact: true })).toHaveCount(1);
  // The issue it grew from, and back.
  await page.getByRole('link', { name: 'its stack, source lines and breadcrumbs' }).click();
  await expect(page).toHaveURL(/\/issue\/[0-9a-f]{16}$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`TypeError: ${CART_ERROR}`);
  // The analysis (the summary, with its long path) stays inside its card too.
  await expect(page.getByText(summary, { exact: true })).toBeVisible();
  expect(await overflowing('.issue-page .panel')).toEqual([]);
  await page.getByRole('link', { name: 'the incident this issue opened' }).click();
  await expect(page).toHaveURL(new RegExp(`/incident/${detectedId}$`));
  const timeline = page.getByRole('list', { name: 'Timeline' });
  await expect(timeline.locator('li.done')).toHaveCount(1);
  await expectAccessible(page);

  await page.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(page.locator('.status-line')).toContainText('acknowledged');
  await expect(page.getByRole('button', { name: 'Acknowledge' })).toHaveCount(0);
  await expect(timeline.locator('li', { hasText: 'Acknowledged' })).toContainText('by key:');
  await screenshot(page, testInfo, 'incident');

  await page.getByRole('button', { name: 'Resolve' }).click();
  await expect(page.locator('.status-line')).toContainText('resolved');
  await expect(page.getByRole('button', { name: 'Resolve' })).toHaveCount(0);
  await expect(timeline.locator('li.done')).toHaveCount(3);

  await page.goto(`${server.url}/incidents?status=resolved`);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText(CART_ERROR);
});

test('a read key sees an incident and no action; the server refuses the action anyway', async ({ page }) => {
  const readKey = /svc_read_\S+/.exec(
    await server.admin('keys', 'create', '--scope', 'read', '--name', 'incidents-reader'),
  )![0];
  const { body } = await controlGet<{ data: Array<{ id: string; title: string }> }>(server, '/incidents?severity=low');
  const hostile = body.data[0]!;
  await signIn(page, server, { key: readKey, path: `/incident/${hostile.id}` });
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(HOSTILE);
  await expect(page.locator('img')).toHaveCount(0);
  await expect(page.getByText('Read-only key: acknowledging and resolving need a control key.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Acknowledge' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Resolve' })).toHaveCount(0);
  expect((await call('POST', `/incidents/${hostile.id}/acknowledge`, {}, readKey)).status).toBe(403);
  expect((await controlGet<{ status: string }>(server, `/incidents/${hostile.id}`)).body.status).toBe('detected');
});

import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';
import { ingest, nanos, otlpAttributes, waitForItems, type Attributes } from './telemetry-seed';

/**
 * The Traces list (`/traces`) and a trace (`/trace/:id`) in Chromium, on traces sent as OTLP from two services:
 * nested spans, an error with attributes and an exception event, filters and paging in the URL, the waterfall,
 * keyboard use, accessibility and the docs pictures.
 */

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** An exception message that would run script if the page parsed it as HTML. */
const HOSTILE = 'card declined <img src=x onerror="window.__traceInjected = true">';
const SESSION = `trace-session-${hex(3)}`;

interface SpanSeed {
  service: string;
  name: string;
  /** Offsets from the trace's start, ms. */
  start: number;
  end: number;
  parent?: string;
  id?: string;
  status?: { code: number; message?: string };
  attributes?: Attributes;
  events?: Array<{ name: string; at: number; attributes: Attributes }>;
}

const TRACES = {
  checkout: { id: hex(16), startedAgoMs: 3 * 60_000 },
  products: { id: hex(16), startedAgoMs: 2 * 60_000 },
  home: { id: hex(16), startedAgoMs: 60_000 },
};
const ROOT = hex(8);
const PAY = hex(8);

async function seedTrace(
  server: CliServer,
  traceId: string,
  startedAgoMs: number,
  spans: SpanSeed[],
  sessionId?: string,
): Promise<void> {
  const t0 = Date.now() - startedAgoMs;
  const resourceSpans = spans.map((s) => ({
    resource: {
      attributes: otlpAttributes({ 'service.name': s.service, ...(sessionId ? { 'session.id': sessionId } : {}) }),
    },
    scopeSpans: [
      {
        scope: { name: '@svc/test' },
        spans: [
          {
            traceId,
            spanId: s.id ?? hex(8),
            ...(s.parent ? { parentSpanId: s.parent } : {}),
            name: s.name,
            kind: s.parent ? 3 : 2,
            startTimeUnixNano: nanos(t0 + s.start),
            endTimeUnixNano: nanos(t0 + s.end),
            attributes: otlpAttributes(s.attributes ?? {}),
            events: (s.events ?? []).map((e) => ({
              name: e.name,
              timeUnixNano: nanos(t0 + e.at),
              attributes: otlpAttributes(e.attributes),
            })),
            status: s.status ?? { code: 0 },
          },
        ],
      },
    ],
  }));
  await ingest(server, 'traces', { resourceSpans });
}

let server: CliServer;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startCliServer();
  await server.admin('apps', 'create', 'checkout-api');
  const web = server.appName;
  await seedTrace(
    server,
    TRACES.checkout.id,
    TRACES.checkout.startedAgoMs,
    [
      { service: web, name: 'GET /checkout', id: ROOT, start: 0, end: 400, status: { code: 1 } },
      {
        service: 'checkout-api',
        name: 'POST /api/pay',
        id: PAY,
        parent: ROOT,
        start: 50,
        end: 350,
        status: { code: 2, message: 'payment failed' },
        attributes: { 'http.status_code': 502, 'payment.provider': 'stripe' },
        events: [
          {
            name: 'exception',
            at: 300,
            attributes: { 'exception.type': 'PaymentError', 'exception.message': HOSTILE },
          },
        ],
      },
      { service: 'checkout-api', name: 'SELECT orders', parent: PAY, start: 100, end: 150, status: { code: 1 } },
    ],
    SESSION,
  );
  await seedTrace(server, TRACES.products.id, TRACES.products.startedAgoMs, [
    { service: web, name: 'GET /products', start: 0, end: 50, status: { code: 1 } },
  ]);
  const home = hex(8);
  await seedTrace(server, TRACES.home.id, TRACES.home.startedAgoMs, [
    { service: web, name: 'GET /home', id: home, start: 0, end: 120 },
    { service: web, name: 'fetch /api/user', parent: home, start: 10, end: 90 },
  ]);
  await waitForItems(server, '/traces', 3);
});

test.afterAll(async () => {
  await server?.close();
});

const table = (page: Page) => page.getByRole('table', { name: 'Traces' });
const rows = (page: Page) => table(page).locator('tbody tr');
const roots = (page: Page) => table(page).locator('tbody tr td:first-child');

test('lists traces newest first with root span, services, duration, spans and errors', async ({ page }, testInfo) => {
  await signIn(page, server, { path: '/traces' });
  await expect(page.getByRole('heading', { level: 1, name: 'Traces' })).toBeVisible();
  await expect(roots(page)).toHaveText(['GET /home', 'GET /products', 'GET /checkout']);
  const checkout = rows(page).nth(2);
  await expect(checkout.getByRole('cell').nth(1)).toHaveText(`checkout-api, ${server.appName}`);
  await expect(checkout.getByRole('cell').nth(3)).toHaveText('400 ms');
  await expect(checkout.getByRole('cell').nth(4)).toHaveText('3');
  await expect(checkout.getByRole('cell').nth(5)).toHaveText('1 error');
  await expect(rows(page).nth(0).getByRole('cell').nth(5)).toHaveText('0 errors');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'traces');
});

test('filters narrow the list and survive a reload: status, service, span name, duration, trace id', async ({
  page,
}) => {
  await signIn(page, server, { path: '/traces' });
  await expect(rows(page)).toHaveCount(3);
  const filters = page.getByRole('search', { name: 'Trace filters' });
  const apply = () => filters.getByRole('button', { name: 'Apply' }).click();
  const clear = () => filters.getByRole('button', { name: 'Clear' }).click();

  await filters.getByLabel('Status').selectOption('error');
  await apply();
  await expect(roots(page)).toHaveText(['GET /checkout']);
  await page.reload();
  await expect(roots(page)).toHaveText(['GET /checkout']);
  await expect(filters.getByLabel('Status')).toHaveValue('error');

  await clear();
  await filters.getByLabel('Service').fill('checkout-api');
  await apply();
  await expect(roots(page)).toHaveText(['GET /checkout']);

  await clear();
  await filters.getByLabel('Span name contains').fill('user');
  await apply();
  await expect(roots(page)).toHaveText(['GET /home']);

  await clear();
  await filters.getByLabel('Min duration (ms)').fill('100');
  await apply();
  await expect(roots(page)).toHaveText(['GET /home', 'GET /checkout']);
  await filters.getByLabel('Max duration (ms)').fill('200');
  await apply();
  await expect(roots(page)).toHaveText(['GET /home']);

  await clear();
  await filters.getByLabel('Trace id').fill(TRACES.products.id.toUpperCase());
  await apply();
  await expect(roots(page)).toHaveText(['GET /products']);
});

test('keyset paging with a small limit', async ({ page }) => {
  await signIn(page, server, { path: '/traces?limit=2' });
  await expect(roots(page)).toHaveText(['GET /home', 'GET /products']);
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(roots(page)).toHaveText(['GET /checkout']);
  await expect(page.getByRole('button', { name: 'Next page' })).toBeDisabled();
  await page.getByRole('button', { name: 'First page' }).click();
  await expect(roots(page)).toHaveText(['GET /home', 'GET /products']);
});

test('a sortable header orders the list by it, a second click reverses it; the sort is in the URL', async ({
  page,
}) => {
  await signIn(page, server, { path: '/traces' });
  await expect(roots(page)).toHaveText(['GET /home', 'GET /products', 'GET /checkout']);
  const duration = table(page).getByRole('button', { name: 'Duration' });
  await duration.click();
  await expect(page).toHaveURL(/sort=duration&order=desc/);
  await expect(roots(page)).toHaveText(['GET /checkout', 'GET /home', 'GET /products']);
  await expect(table(page).getByRole('columnheader', { name: 'Duration' })).toHaveAttribute('aria-sort', 'descending');
  await duration.click();
  await expect(roots(page)).toHaveText(['GET /products', 'GET /home', 'GET /checkout']);
  await page.reload();
  await expect(table(page).getByRole('columnheader', { name: 'Duration' })).toHaveAttribute('aria-sort', 'ascending');
  await expect(roots(page)).toHaveText(['GET /products', 'GET /home', 'GET /checkout']);
});

test('a trace: facts, session link, nested waterfall, the error span’s attributes and events as text; keyboard', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/traces' });
  // Keyboard: Tab from the time range reaches the first filter; Enter in it applies; Enter on a row opens the trace.
  await page.getByLabel('Time range').focus();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Trace id')).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.type('checkout-api');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/service=checkout-api/);
  await expect(roots(page)).toHaveText(['GET /checkout']);
  await table(page).getByRole('link', { name: 'GET /checkout' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/trace/${TRACES.checkout.id}$`));

  const facts = page.locator('dl.trace-facts');
  await expect(facts).toContainText('Duration400 ms');
  await expect(facts).toContainText(`Servicescheckout-api, ${server.appName}`);
  await expect(facts).toContainText('Spans3');
  await expect(facts).toContainText('Errors1 error');

  // Nested: the root, its child, the child's child, each indented one more level.
  const spans = page.getByRole('list', { name: 'Spans' }).getByRole('button');
  await expect(spans).toHaveCount(3);
  await expect(spans.nth(0)).toContainText('GET /checkout');
  await expect(spans.nth(1)).toContainText('POST /api/pay');
  await expect(spans.nth(1)).toContainText('error');
  await expect(spans.nth(2)).toContainText('SELECT orders');
  // Each span says the service that sent it.
  await expect(spans.locator('.waterfall-service')).toHaveText([server.appName, 'checkout-api', 'checkout-api']);
  const indent = (i: number) =>
    spans
      .nth(i)
      .locator('.waterfall-name')
      .evaluate((el) => parseFloat(getComputedStyle(el).paddingLeft));
  expect(await indent(1)).toBeGreaterThan(await indent(0));
  expect(await indent(2)).toBeGreaterThan(await indent(1));

  // Arrow keys move between spans; Enter selects the error span and shows its attributes and events.
  await spans.nth(0).focus();
  await page.keyboard.press('ArrowDown');
  await expect(spans.nth(1)).toBeFocused();
  await page.keyboard.press('Enter');
  const detail = page.getByRole('region', { name: 'Span POST /api/pay' });
  await expect(detail).toContainText('payment failed');
  await expect(detail.getByRole('row', { name: /payment\.provider/ })).toContainText('stripe');
  await expect(detail.getByRole('row', { name: /http\.status_code/ })).toContainText('502');
  await expect(detail).toContainText('exception');
  await expect(detail).toContainText('exception.type=PaymentError');
  await expect(detail).toContainText(HOSTILE);
  await expect(page.locator('main img')).toHaveCount(0);
  expect(
    await page.evaluate(() => (window as unknown as { __traceInjected?: boolean }).__traceInjected),
  ).toBeUndefined();

  await expectAccessible(page);
  await screenshot(page, testInfo, 'trace');

  await page.getByRole('link', { name: SESSION }).click();
  await expect(page).toHaveURL(new RegExp(`/session/${SESSION}$`));
});

test('an unknown trace says so', async ({ page }) => {
  await signIn(page, server, { path: `/trace/${hex(16)}` });
  await expect(page.getByRole('alert')).toContainText('no trace');
});

import { expect, test, type Page } from '@playwright/test';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';
import { ingest, lcpMetrics, nanos, otlpAttributes, waitForItems } from './telemetry-seed';

/**
 * The Releases page (`/releases`) in Chromium on sessions of three releases sent as OTLP: the releases newest first,
 * the newest compared with the one first seen before it (Web Vitals p75, span error rate, error-free sessions, each
 * change said in words), another release picked from the list or compared with a chosen one, the link to a rule
 * watching the comparison, keyboard use, accessibility and the docs picture.
 */

const HOUR = 3_600_000;

interface SessionSeed {
  id: string;
  release: string;
  agoMs: number;
  /** Span status codes (2 = ERROR). */
  spans: number[];
  errors: number;
  lcp: number[];
}

/**
 * 1.0: LCP 1200 → p75 1200; 1 span, no error; 1 session, error-free.
 * 1.1: LCP 1000 1800 2000 → p75 2000; 2 spans, none failed; 2 sessions, both error-free.
 * 1.2: LCP 2000 3000 3500 4500 → p75 3500; 4 spans, 1 failed (25 %); 2 sessions, one with an error (50 %).
 */
const SESSIONS: SessionSeed[] = [
  { id: 'rel-a', release: '1.0', agoMs: 30 * HOUR, spans: [1], errors: 0, lcp: [1200] },
  { id: 'rel-b', release: '1.1', agoMs: 20 * HOUR, spans: [1], errors: 0, lcp: [1000, 2000] },
  { id: 'rel-c', release: '1.1', agoMs: 19 * HOUR, spans: [0], errors: 0, lcp: [1800] },
  { id: 'rel-d', release: '1.2', agoMs: 3 * HOUR, spans: [1, 2, 0], errors: 1, lcp: [4500, 2000] },
  { id: 'rel-e', release: '1.2', agoMs: 2 * HOUR, spans: [1], errors: 0, lcp: [3000, 3500] },
];

let server: CliServer;

async function seed(s: CliServer): Promise<void> {
  const attributes = (x: SessionSeed) => ({
    'service.name': s.appName,
    'session.id': x.id,
    'service.version': x.release,
  });
  const resource = (x: SessionSeed) => ({ attributes: otlpAttributes(attributes(x)) });
  const at = (x: SessionSeed, plusMs = 0) => nanos(Date.now() - x.agoMs + plusMs);
  await ingest(s, 'logs', {
    resourceLogs: SESSIONS.map((x) => ({
      resource: resource(x),
      scopeLogs: [
        {
          scope: { name: '@svc/test' },
          logRecords: [
            { timeUnixNano: at(x), severityNumber: 9, body: { stringValue: 'page view' } },
            ...Array.from({ length: x.errors }, () => ({
              timeUnixNano: at(x, 50),
              severityNumber: 17,
              body: { stringValue: 'checkout failed' },
            })),
          ],
        },
      ],
    })),
  });
  await ingest(s, 'traces', {
    resourceSpans: SESSIONS.map((x, i) => ({
      resource: resource(x),
      scopeSpans: [
        {
          scope: { name: '@svc/test' },
          spans: x.spans.map((code, j) => ({
            traceId: `${String(i + 1).padStart(4, '0')}${'ef'.repeat(14)}`,
            spanId: `${String(i + 1).padStart(4, '0')}${String(j).padStart(12, '0')}`,
            name: `GET /api/cart/${j}`,
            kind: 3,
            startTimeUnixNano: at(x, 10 + j),
            endTimeUnixNano: at(x, 40 + j),
            status: { code },
          })),
        },
      ],
    })),
  });
  await ingest(s, 'metrics', {
    resourceMetrics: SESSIONS.map((x) =>
      lcpMetrics(
        attributes(x),
        x.lcp.map((value, k) => ({ atMs: Date.now() - x.agoMs + 100 + k, value, path: '/checkout' })),
      ),
    ),
  });
  await waitForItems(s, '/spans?limit=100', 7);
  await waitForItems(s, '/metrics?limit=100', 8);
  await waitForItems(s, '/logs?limit=100', 6);
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startCliServer();
  await seed(server);
});

test.afterAll(async () => {
  await server?.close();
});

const comparison = (page: Page) => page.getByRole('table', { name: /^Release / });
const figure = (page: Page, label: string) =>
  comparison(page)
    .locator('tbody tr')
    .filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });

test('the newest release against the one before it: p75, error rate, error-free sessions and each change', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/releases' });
  await expect(page.getByRole('heading', { level: 1, name: 'Releases' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: 'Release 1.2 against 1.1' })).toBeVisible();
  const releases = page.getByRole('table', { name: `Releases of ${server.appName}, newest first` });
  await expect(releases.locator('tbody tr td:first-child')).toHaveText(['1.2', '1.1', '1.0']);
  await expect(releases.locator('tbody tr').first()).toHaveAttribute('aria-current', 'true');

  // LCP 3500 (needs improvement) against 2000: +1500 ms, +75 %, worse.
  await expect(figure(page, 'LCP p75').getByRole('cell')).toHaveText([
    '3500 ms Needs improvement',
    '2000 ms Good',
    '+1500 ms (+75 %) Worse',
  ]);
  await expect(figure(page, 'INP p75').getByRole('cell').nth(2)).toHaveText('no data to compare');
  await expect(figure(page, 'Span error rate').getByRole('cell')).toHaveText([
    '25.0 % (1 of 4)',
    '0.0 % (0 of 2)',
    '+25.0 points Worse',
  ]);
  await expect(figure(page, 'Error-free sessions').getByRole('cell')).toHaveText([
    '50.0 % (1 of 2)',
    '100.0 % (2 of 2)',
    '−50.0 points (−50 %) Worse',
  ]);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'releases');
});

test('a release picked from the list, or compared with a chosen one; the first has nothing before it', async ({
  page,
}) => {
  await signIn(page, server, { path: '/releases' });
  const releases = page.getByRole('table', { name: `Releases of ${server.appName}, newest first` });
  await releases.getByRole('link', { name: '1.1', exact: true }).click();
  await expect(page).toHaveURL(/release=1\.1/);
  await expect(page.getByRole('heading', { level: 2, name: 'Release 1.1 against 1.0' })).toBeVisible();
  // LCP 2000 against 1200: +800 ms (+67 %); no span failed in either; error-free both.
  await expect(figure(page, 'LCP p75').getByRole('cell').nth(2)).toHaveText('+800 ms (+67 %) Worse');
  await expect(figure(page, 'Span error rate').getByRole('cell').nth(2)).toHaveText('Unchanged');

  // Keyboard: the comparison select, then back to the newest, compared with 1.0.
  await releases.getByRole('link', { name: '1.2', exact: true }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 2, name: 'Release 1.2 against 1.1' })).toBeVisible();
  await page.getByLabel('Compare with').focus();
  await page.getByLabel('Compare with').selectOption('1.0');
  await expect(page).toHaveURL(/previous=1\.0/);
  await expect(page.getByRole('heading', { level: 2, name: 'Release 1.2 against 1.0' })).toBeVisible();
  await expect(figure(page, 'LCP p75').getByRole('cell').nth(2)).toHaveText('+2300 ms (+192 %) Worse');

  await page.goto(`${server.url}/releases?release=1.0`);
  await expect(page.getByRole('heading', { level: 2, name: 'Release 1.0' })).toBeVisible();
  await expect(page.getByText('No release of this app was first seen before it.')).toBeVisible();
  await expect(figure(page, 'LCP p75').getByRole('cell').nth(2)).toHaveText('no previous release');

  // A rule can watch the comparison: the link opens the editor on a change against the previous release.
  await page
    .getByRole('link', { name: `Alert when a release of ${server.appName} gets worse than the one before` })
    .click();
  const form = page.getByRole('form', { name: 'Definition of the new rule' });
  await expect(form.getByLabel('Condition')).toHaveValue('change');
  await expect(form.getByLabel('Compared with')).toHaveValue('previous_release');
  await expect(form.getByLabel('Apps (comma-separated)')).toHaveValue(server.appName);
  await expect(page.getByRole('region', { name: 'Preview: the last 7 days' }).getByRole('img')).toBeVisible();
});

import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { multiSessionTemplate, freshBody, sessionPool } from '../../../bench/ingest-bodies';
import { ensureSdkBuilt, ROOT } from '../../support/build-sdk';
import { controlGet, startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, signIn } from './support';

/**
 * Every console page on a server filled the way a newcomer fills it: the demo page `npm start` serves (the SDK's
 * script tag, every button pressed) and the ingest benchmark's generator (hundreds of browser sessions of traces).
 * Each page opens with data, asks the control plane nothing it refuses, logs no error, and passes axe; the detail
 * pages open from their lists' first rows.
 */

let t: CliServer;
let demoSession: string;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  await ensureSdkBuilt();
  t = await startCliServer({ 'demo-sdk': join(ROOT, 'dist/cdn/svc.min.js') });

  // The benchmark generator: 300 sessions, 10 spans each, in batches as a collector sends them.
  const pool = sessionPool(300);
  for (let i = 0; i < 300; i += 50) {
    const body = freshBody(multiSessionTemplate(i + 1, pool.slice(i, i + 50), 10));
    const res = await fetch(`${t.url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: new Uint8Array(body.bytes),
    });
    expect(res.status).toBe(200);
  }

  // The demo page, every button pressed (errors, logs, requests, navigation, a layout shift), then left so the SDK flushes.
  const page = await browser.newPage();
  await page.goto(`${t.url}/demo/`);
  await expect(page.locator('#session-id')).not.toHaveText(/…|none/);
  demoSession = (await page.locator('#session-id').textContent())!;
  // The demo page links its session's page in the console.
  await expect(page.getByRole('link', { name: 'this session in the console' })).toHaveAttribute(
    'href',
    `/session/${encodeURIComponent(demoSession)}`,
  );
  for (const button of await page.locator('button[data-action]').all()) await button.click();
  await page.evaluate(() =>
    (window as unknown as { Svc: { getSDK(): { shutdown(): Promise<void> } } }).Svc.getSDK().shutdown(),
  );
  await page.close();
  await expect
    .poll(
      async () =>
        (
          await controlGet<{ counts: { logs: number; spans: number } }>(
            t,
            `/sessions/${encodeURIComponent(demoSession)}`,
          )
        ).body.counts?.logs ?? 0,
      { timeout: 20_000 },
    )
    .toBeGreaterThan(3);
  // Issues are grouped by the detector's tick, after ingest: the issues list is only full once it has run.
  await expect
    .poll(async () => (await controlGet<{ data: unknown[] }>(t, '/issues')).body.data?.length ?? 0, { timeout: 30_000 })
    .toBeGreaterThan(0);
});
test.afterAll(async () => {
  await t?.close();
});

/** Opens `path`, waits for its heading and for its data to settle, and checks what a person would notice first. */
async function visit(page: Page, path: string, heading: RegExp | string): Promise<void> {
  await page.goto(`${t.url}${path}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
  await expect(page.getByText('Loading…')).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expectAccessible(page, ['iframe']);
}

test('every page opens on the filled server without an error, a refused request or an axe finding', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    const text = m.text();
    // Chromium reports the replay sandbox at work (the recorded page's scripts are blocked: the guarantee), and every
    // answer of 400 or more, which the response listener below judges.
    if (
      m.type() !== 'error' ||
      text.includes("the 'allow-scripts' permission is not set") ||
      text.startsWith('Failed to load resource')
    )
      return;
    problems.push(`console: ${text}`);
  });
  page.on('response', (r) => {
    // An issue not analysed yet, or without a pull request, is no refusal either: its answer is null.
    if (!r.url().includes('/control-plane/') || r.status() < 400) return;
    problems.push(`${r.status()} ${r.url()}`);
  });
  await signIn(page, t);

  await visit(page, '/sessions', 'Sessions');
  await expect(page.getByRole('link', { name: /\S/ }).filter({ hasText: /./ }).first()).toBeVisible();
  expect(await page.locator('table tbody tr').count()).toBeGreaterThanOrEqual(20);
  await visit(page, `/session/${encodeURIComponent(demoSession)}`, /Session/);
  await visit(page, '/issues', 'Issues');
  await page.locator('table tbody tr a').first().click();
  await expect(page).toHaveURL(/\/issue\//);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('demo');
  await visit(page, '/traces', 'Traces');
  await page.locator('table tbody tr a').first().click();
  await expect(page).toHaveURL(/\/trace\//);
  await expect(page.getByText('Loading…')).toHaveCount(0);
  await visit(page, '/vitals', 'Web Vitals');
  await visit(page, '/incidents', 'Incidents');
  await visit(page, '/notifications', 'Notifications');
  await visit(page, '/cost', 'Cost');
  // No Playwright run reported yet: each says so.
  await visit(page, '/test-runs', 'Test runs');
  await visit(page, '/tests/flaky', 'Flaky tests');
  await visit(page, '/ingest-health', 'Ingest health');
  await visit(page, '/setup', 'Set up');
  await expect(page.getByRole('link', { name: /^Open the first session/ })).toBeVisible();
  expect(problems).toEqual([]);
});

import { expect, test } from '@playwright/test';
import { str, traceBody } from '../../support/otlp';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, openKeySignIn, recordRequestUrls, screenshot, signIn } from './support';

/**
 * The console's frame at the server's address (`GET /`), in Chromium against `svc-server start`: signing in with a
 * key (kept in the tab only, sent only in the Authorization header), the links `svc-server start` prints and old
 * viewer links, a read-only key, signing out, the strict CSP, keyboard and axe.
 */

let t: CliServer;

test.beforeAll(async () => {
  t = await startCliServer();
});
test.afterAll(async () => {
  await t?.close();
});

test('the sign-in page: strict CSP without inline script, links that lead somewhere, keyboard sign-in, axe', async ({
  page,
  request,
}, testInfo) => {
  const problems: string[] = [];
  // The refused key below is answered 401, which Chromium reports as a failed resource: expected, not a problem.
  page.on('console', (m) => m.type() === 'error' && !m.text().includes('status of 401') && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  const res = await request.get(`${t.url}/`);
  expect(res.headers()['content-security-policy']).toContain("script-src 'self'");
  expect(res.headers()['content-security-policy']).not.toContain("'unsafe-eval'");
  // Every script of the page is a file of the console's own; none is inline.
  const html = await res.text();
  expect(html.match(/<script\b[^>]*>/g)?.every((tag) => / src="\/console\/assets\/[^"]+\.js"/.test(tag))).toBe(true);
  // Programs asking for JSON still get the server's links.
  const index = (await (await request.get(`${t.url}/`, { headers: { accept: 'application/json' } })).json()) as {
    links: Record<string, string>;
  };
  expect(index.links.console).toBe(`${t.url}/`);

  await page.goto(`${t.url}/`);
  await expect(page).toHaveTitle('svc console');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('svc console');
  for (const link of await page.getByRole('link').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))) {
    expect((await page.request.get(link)).status(), link).toBe(200);
  }
  await expectAccessible(page);
  await screenshot(page, testInfo, 'sign-in');

  // Keyboard only: "Use an API key instead" opens the key form with its field focused; Enter submits.
  await page.getByRole('button', { name: 'Use an API key instead' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Control or read key')).toBeFocused();
  await page.keyboard.type('svc_control_not-a-real-key');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toContainText('This key was refused');
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

  await page.getByLabel('Control or read key').fill(t.controlKey);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  await expect(page).toHaveURL(`${t.url}/sessions`);
  expect(problems).toEqual([]);
});

test('signed in: the key stays in the tab and only in the Authorization header; navigation by keyboard; sign out', async ({
  page,
  browser,
}) => {
  const urls = recordRequestUrls(page);
  const authorized: string[] = [];
  page.on('request', (r) => {
    if (r.headers().authorization === `Bearer ${t.controlKey}`) authorized.push(new URL(r.url()).pathname);
  });
  await signIn(page, t);
  expect(authorized).toContain('/control-plane/me');
  expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
  expect(await page.context().cookies()).toEqual([]);

  // The skip link is the first Tab stop and moves focus to the page's content.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();
  // Each navigation link is reached by Tab and opens its page, marked as the current one.
  for (const [name, path] of [
    ['Issues', '/issues'],
    ['Traces', '/traces'],
    ['Web Vitals', '/vitals'],
    ['Incidents', '/incidents'],
    ['Notifications', '/notifications'],
    ['Cost', '/cost'],
    ['Test runs', '/test-runs'],
    ['Sessions', '/sessions'],
  ] as const) {
    const link = page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });
    await link.focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(`${t.url}${path}`);
    await expect(link).toHaveAttribute('aria-current', 'page');
  }
  await expectAccessible(page);

  // A reload keeps the tab signed in; another tab of another browser context is not.
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  const other = await (await browser.newContext()).newPage();
  await other.goto(`${t.url}/sessions`);
  await expect(other.getByRole('button', { name: 'Use an API key instead' })).toBeVisible();
  await other.context().close();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('Control or read key')).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  expect(urls.filter((u) => u.includes(t.controlKey))).toEqual([]);
});

test('svc-server start prints the bare console address; key links and old viewer links sign in from the fragment, which leaves the address bar', async ({
  page,
}) => {
  const urls = recordRequestUrls(page);
  expect(t.output()).toContain(`console:      ${t.url}/  (sign in`);
  expect(t.output()).not.toContain('#key=');
  await page.goto(`${t.url}/#key=${t.controlKey}`);
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  expect(page.url()).not.toContain('key=');

  await page.evaluate(() => sessionStorage.clear());
  await page.goto(`${t.url}/viewer/#key=${encodeURIComponent(t.controlKey)}&session=s-old-link&t=5000`);
  await expect(page).toHaveURL(`${t.url}/session/s-old-link?t=5000`);
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  // Fragments never reach a server: no request carried the key.
  expect(urls.filter((u) => u.includes(t.controlKey))).toEqual([]);
});

test('a read key signs in as read only', async ({ page }) => {
  const readKey = /svc_read_[\w-]+/.exec(await t.admin('keys', 'create', '--scope', 'read'))![0];
  await signIn(page, t, { key: readKey });
  await expect(page.getByText('read only', { exact: true })).toBeVisible();
});

test('a key revoked while signed in returns the tab to sign-in with a notice', async ({ page }) => {
  const out = await t.admin('keys', 'create', '--scope', 'control', '--name', 'short-lived');
  const key = /svc_control_[\w-]+/.exec(out)![0];
  const id = /created control key (\S+)/.exec(out)![1]!;
  await signIn(page, t, { key });
  await t.admin('keys', 'revoke', id);
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Issues' }).click();
  // The Issues page may show its own statuses (loading, the bulk hint) before the refusal arrives.
  await expect(page.getByRole('status').filter({ hasText: 'sign in again' })).toBeVisible();
  await expect(page.getByLabel('Control or read key')).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
});

test('a console link pasted into a tab already on the console signs in with its key and leaves the address bar', async ({
  page,
}) => {
  const urls = recordRequestUrls(page);
  const paste = (key: string) =>
    page.evaluate((href) => void (location.href = href), `${t.url}/#key=${encodeURIComponent(key)}`);
  // On the sign-in page: the fragment changes, the page does not load again.
  await page.goto(`${t.url}/`);
  await openKeySignIn(page);
  await paste(t.controlKey);
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  await expect(page).toHaveURL(`${t.url}/sessions`);

  // Signed in with a read key, a control key's link switches the tab to it.
  const readKey = /svc_read_[\w-]+/.exec(await t.admin('keys', 'create', '--scope', 'read'))![0];
  await page.evaluate(() => sessionStorage.clear());
  await signIn(page, t, { key: readKey });
  await expect(page.getByText('read only', { exact: true })).toBeVisible();
  await paste(t.controlKey);
  await expect(page.getByText('read only', { exact: true })).toHaveCount(0);
  expect(page.url()).not.toContain('key=');
  expect(await page.evaluate(() => history.length)).toBeGreaterThan(0);
  expect(urls.filter((u) => u.includes(t.controlKey) || u.includes(readKey))).toEqual([]);
});

test('an ingest key at sign-in is named for what it is', async ({ page }) => {
  await page.goto(`${t.url}/`);
  await openKeySignIn(page);
  await page.getByLabel('Control or read key').fill(t.ingestKey);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toHaveText(
    'This is an ingest key: it only sends telemetry. Use a read or control key.',
  );
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
});

test('projects create prints the console address and its key apart; the empty project shows its set-up, waits, and links its first session when it arrives', async ({
  page,
  context,
}, testInfo) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const out = await t.admin('projects', 'create', 'storefront');
  const printed = /ingest key:\s+(\S+)/.exec(out)![1]!;
  const address = /console:\s+(\S+)/.exec(out)![1]!;
  const controlKey = /control key:\s+(\S+)/.exec(out)![1]!;
  // The CLI does not ask the server where it listens: the default address, unless SVC_PUBLIC_URL says otherwise; and
  // no key rides in the address it prints. A script that signs in with the key builds the fragment link itself.
  expect(address).toBe('http://127.0.0.1:4318/setup');
  await page.goto(`${t.url}/#key=${encodeURIComponent(controlKey)}`);
  await expect(page.getByRole('heading', { name: 'Send the first event to storefront' })).toBeVisible();
  expect(page.url()).not.toContain('key=');
  await expect(page.getByRole('status').filter({ hasText: 'Waiting for the first event' })).toBeVisible();
  const shown = (await page.locator('code.ingest-key').textContent())!;
  expect(shown).toBe(printed);
  const npm = page.getByRole('region', { name: 'npm: initBrowserSDK' });
  await expect(npm).toContainText(`apiKey: '${printed}'`);
  await expect(npm).toContainText("serviceName: 'web-app'");
  await expect(npm).toContainText(`ingestUrl: '${t.url}'`);
  await expect(page.getByRole('region', { name: 'Script tag' })).toContainText(`data-api-key="${printed}"`);
  await expect(page.getByRole('region', { name: 'Build plugin: readable stacks' })).toContainText(
    "import svc from '@svc/build/vite'",
  );
  expect(await page.content()).not.toMatch(/svc_control_/);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'setup');

  // Keyboard: the copy buttons are reachable and copy their snippet.
  const copy = page.getByRole('button', { name: 'Copy: npm: initBrowserSDK' });
  await copy.focus();
  await page.keyboard.press('Enter');
  await expect(copy).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(printed);

  // The key the page shows works: the first event arrives and the waiting state turns into a link to its session.
  const sent = await fetch(`${t.url}/otlp/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': shown },
    body: JSON.stringify(traceBody([{ sessionId: 'storefront-first' }])),
  });
  expect(sent.status).toBe(200);
  const first = page.getByRole('link', { name: 'Open the first session (web-app)' }).first();
  await expect(first).toBeVisible();
  await expect(page.locator('table.data-table tbody tr')).toHaveCount(1);
  await first.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(`${t.url}/session/storefront-first`);
});

test('an admin key switches the console between its projects; the Ingest health page shows refusals and SDK drops', async ({
  page,
}, testInfo) => {
  const project = await t.newProject();
  const adminKey = /svc_admin_[\w-]+/.exec(
    await t.admin('keys', 'create', '--scope', 'admin', '--name', 'switcher'),
  )![0];
  const post = (path: string, key: string, body: unknown) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });
  // Refused: an app name the project does not have (three times), a control key at ingest; a key of no project.
  for (let i = 0; i < 3; i++)
    expect((await post('/otlp/v1/traces', project.ingestKey, traceBody([{ serviceName: 'chekout' }]))).status).toBe(
      422,
    );
  expect((await post('/otlp/v1/traces', project.controlKey, traceBody())).status).toBe(403);
  expect((await post('/otlp/v1/traces', 'svc_ingest_from-another-server', traceBody())).status).toBe(401);
  // The SDK's own report of what it dropped.
  const now = Date.now();
  const dropped = {
    resourceMetrics: [
      {
        resource: { attributes: [str('service.name', 'web-app'), str('session.id', 'dropping')] },
        scopeMetrics: [
          {
            scope: { name: '@svc/browser' },
            metrics: [
              {
                name: 'svc.sdk.dropped_items',
                unit: '{item}',
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: [
                    {
                      startTimeUnixNano: `${now - 5000}000000`,
                      timeUnixNano: `${now}000000`,
                      asInt: '40',
                      attributes: [str('reason', 'queue_full')],
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
  expect((await post('/otlp/v1/metrics', project.ingestKey, dropped)).status).toBe(200);

  const projectHeaders: string[] = [];
  page.on(
    'request',
    (r) => r.url().includes('/control-plane/') && projectHeaders.push(r.headers()['x-svc-project'] ?? ''),
  );
  await signIn(page, t, { key: adminKey });
  await expect(page.getByText('admin', { exact: true })).toBeVisible();
  const switcher = page.getByRole('combobox', { name: 'Project' });
  await expect(switcher.locator('option:checked')).toHaveText('default');
  const name = (
    (await fetch(`${t.url}/control-plane/me`, { headers: { authorization: `Bearer ${project.controlKey}` } }).then(
      (r) => r.json(),
    )) as { project: { id: string; name: string } }
  ).project;
  // Keyboard: the switcher is a native select in the header.
  await switcher.focus();
  await switcher.selectOption({ label: name.name });
  await expect(page).toHaveURL(`${t.url}/sessions`);
  await expect(switcher).toHaveValue(name.id);
  // The project's own sessions: the one that reported drops.
  await expect(page.locator('table.data-table tbody tr')).toHaveCount(1);
  expect(projectHeaders.at(-1)).toBe(name.id);

  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Ingest health' }).click();
  const refused = page.getByRole('table', { name: 'Refused ingest requests', exact: true });
  await expect(refused.locator('tbody tr').first()).toContainText('unknown_service');
  await expect(refused.locator('tbody tr').first()).toContainText('"chekout"');
  await expect(refused.locator('tbody tr').first().locator('td.numeric')).toHaveText('3');
  await expect(refused).toContainText('key_wrong_scope');
  await expect(page.getByRole('table', { name: 'Records the SDK dropped' })).toContainText('queue_full');
  await expect(page.getByRole('table', { name: 'Records the SDK dropped' }).locator('td.numeric').first()).toHaveText(
    '40',
  );
  // An admin key also sees what came with no project's key.
  await expect(page.getByRole('table', { name: 'Refused ingest requests with no project' })).toContainText(
    'unknown svc_ingest_… key',
  );
  expect(await page.content()).not.toContain('from-another-server');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'ingest-health');
});

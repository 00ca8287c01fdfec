import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { expect, test, type Page } from '@playwright/test';
import { build } from 'esbuild';
import { signedLink } from '../../server/src/incidents/links';
import { createSecretBox } from '../../server/src/secrets/secret-box';
import { errorLog, resource } from '../support/error-logs';
import { str } from '../support/otlp';
import { startReceiver, type Receiver } from '../support/receiver';
import { controlGet, startCliServer, type CliServer } from '../support/svc-server';
import { axeOf } from './console/support';

/**
 * The keyless issue page (`/issues/{id}?p=…&exp=…&sig=…`) in Chromium, against `svc-server start`: a minified shop
 * build throws in `lineTotal` (through a dependency's `sumBy`), its map is uploaded, the detector groups the errors and
 * opens an incident; resolved, the issue occurs again and the webhook's `issue.regressed` payload carries the signed
 * page link. The page shows the original function, file, line and the throwing source line, passes axe, is walked by
 * keyboard, reads at phone width, and refuses altered, expired and incident links.
 */

const SECRET_KEY = 'issue-page-spec-secret-key-0123456789abcdef';
const ENV = 'issue-page';
const RELEASE = '2.0.0';
const SESSION = 'sess-issue-page-1';
const DAY = 24 * 3600_000;
const THROW_LINE = 'const price = item.product!.price;';

const TOTAL_TS = `import { sumBy } from 'sum-by';

export function lineTotal(item: { product?: { price: number }; qty: number }): number {
  ${THROW_LINE}
  return price * item.qty;
}

export function cartTotal(cart: { items: Array<{ product?: { price: number }; qty: number }> }): number {
  return sumBy(cart.items, lineTotal);
}
`;
/** A dependency in the bundle: its frame is not the app's, and the page folds it away. */
const SUM_BY_JS = `export function sumBy(items, of) {
  let sum = 0;
  for (const item of items) sum += of(item);
  return sum;
}
`;

interface Bundle {
  url: string;
  map: string;
  /** The error's stack as V8 prints it for the minified file. */
  stack: string;
  message: string;
}

/** Builds the shop with esbuild (minified, external map) and runs it once to get the real V8 stack of its error. */
async function buildShop(): Promise<Bundle> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-issue-page-'));
  try {
    await mkdir(join(dir, 'src/cart'), { recursive: true });
    await mkdir(join(dir, 'node_modules/sum-by'), { recursive: true });
    await writeFile(
      join(dir, 'node_modules/sum-by/package.json'),
      JSON.stringify({ name: 'sum-by', version: '1.0.0', module: 'index.js' }),
    );
    await writeFile(join(dir, 'node_modules/sum-by/index.js'), SUM_BY_JS);
    await writeFile(join(dir, 'src/cart/total.ts'), TOTAL_TS);
    await writeFile(
      join(dir, 'src/main.ts'),
      `import { cartTotal } from './cart/total';\ntry {\n  cartTotal({ items: [{ product: { price: 3 }, qty: 2 }, { qty: 1 }] });\n} catch (e) {\n  (globalThis as { error?: Error }).error = e as Error;\n}\n`,
    );
    const out = await build({
      absWorkingDir: dir,
      entryPoints: ['src/main.ts'],
      bundle: true,
      minify: true,
      sourcemap: 'external',
      write: false,
      outdir: 'dist/assets',
      entryNames: '[name]-[hash]',
      format: 'iife',
      logLevel: 'silent',
    });
    const js = out.outputFiles.find((f) => f.path.endsWith('.js'))!;
    const url = `https://shop.example.com/assets/${js.path.slice(js.path.lastIndexOf('/') + 1)}`;
    const context: { error?: Error } = {};
    runInNewContext(js.text, context, { filename: url });
    // The bundle's frames; those below them are this spec's.
    const stack = context
      .error!.stack!.split('\n')
      .filter((line, i) => i === 0 || line.includes(url))
      .join('\n');
    return {
      url,
      map: out.outputFiles.find((f) => f.path.endsWith('.map'))!.text,
      stack,
      message: context.error!.message,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

let server: CliServer;
let receiver: Receiver;
let shop: Bundle;

test.beforeAll(async () => {
  // The secret key is the spec's, so it can sign a link that has expired.
  [server, receiver, shop] = await Promise.all([
    startCliServer({ 'allow-private-targets': 'true', 'secret-key': SECRET_KEY }),
    startReceiver(),
    buildShop(),
  ]);
});
test.afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

async function control<T>(method: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${server.url}/control-plane${path}`, {
    method,
    headers: { authorization: `Bearer ${server.controlKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.ok, `${method} ${path}: ${text}`).toBe(true);
  return JSON.parse(text) as T;
}

async function ingest(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey },
    body: JSON.stringify(body),
  });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
}

const sendError = () =>
  ingest(
    '/otlp/v1/logs',
    errorLog({
      message: shop.message,
      stack: shop.stack,
      sessionId: SESSION,
      release: RELEASE,
      env: ENV,
      atMs: Date.now(),
    }),
  );

/** What the session did just before: the page, a click on "Apply coupon" (its replay) and a console line. */
async function sendWhatLedUpToIt(): Promise<void> {
  const at = Date.now() - 3_000;
  const events = [
    { type: 4, timestamp: at, data: { href: 'https://shop.example.com/cart', width: 1280, height: 720 } },
    {
      type: 2,
      timestamp: at + 1,
      data: {
        initialOffset: { top: 0, left: 0 },
        node: {
          type: 0,
          id: 1,
          childNodes: [
            {
              type: 2,
              id: 2,
              tagName: 'html',
              attributes: {},
              childNodes: [
                {
                  type: 2,
                  id: 3,
                  tagName: 'body',
                  attributes: {},
                  childNodes: [
                    {
                      type: 2,
                      id: 4,
                      tagName: 'button',
                      attributes: { id: 'coupon' },
                      childNodes: [{ type: 3, id: 5, textContent: 'Apply coupon' }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      },
    },
    { type: 3, timestamp: at + 1_000, data: { source: 2, type: 2, id: 4, x: 5, y: 5 } },
  ];
  await ingest('/ingest/replay/chunk', {
    serviceName: 'web-app',
    sessionId: SESSION,
    replayId: 'replay-1',
    seq: 0,
    startTs: at,
    endTs: at + 1_000,
    eventCount: events.length,
    encoding: 'json',
    data: JSON.stringify(events),
  });
  await ingest('/otlp/v1/logs', {
    resourceLogs: [
      {
        resource: resource({ sessionId: SESSION, release: RELEASE, env: ENV }),
        scopeLogs: [
          {
            scope: { name: '@svc/browser' },
            logRecords: [
              {
                timeUnixNano: `${at + 1_500}000000`,
                severityNumber: 9,
                severityText: 'INFO',
                body: { stringValue: 'applying coupon SAVE10' },
                attributes: [str('log.source', 'console')],
              },
            ],
          },
        ],
      },
    ],
  });
}

type Payload = { event: string; issue_id?: string; incident_id?: string; dashboard_url: string };
/** The payload of the receiver's one `event` request; the detector runs every 10 s, so it may take that long. */
async function webhookOf(event: string): Promise<Payload> {
  const payloads = () => receiver.received.map((r) => JSON.parse(r.body) as Payload).filter((p) => p.event === event);
  await expect
    .poll(() => payloads().length, {
      message: `the receiver got ${event}`,
      timeout: 25_000,
      intervals: [250, 500, 1000],
    })
    .toBe(1);
  return payloads()[0]!;
}

/** The link with its query replaced by `query` (e.g. another link's signature). */
const withQuery = (url: string, query: string) => `${url.slice(0, url.indexOf('?'))}?${query}`;
const queryOf = (url: string) => url.slice(url.indexOf('?') + 1);

async function expectRefused(page: Page, url: string, heading: string): Promise<void> {
  const res = await page.goto(url);
  expect(res?.status(), url).toBe(403);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
}

test('an issue.regressed link opens the issue page: original stack and source, breadcrumbs, sessions; keyboard, axe, phone width; bad links refused', async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  let issueId = '';
  let incident: Payload;
  let regressed: Payload;

  await test.step('a webhook channel with a rule for the environment, and the build’s source map', async () => {
    const channel = await control<{ id: string }>('POST', '/notifications/channels', {
      type: 'webhook',
      name: 'issues hook',
      config: { url: `${receiver.url}/hook` },
    });
    await control('POST', '/notifications/rules', {
      name: 'issue page',
      conditions: { env: [ENV] },
      channels: [channel.id],
      delay_seconds: 0,
    });
    await control('POST', '/sourcemaps', {
      release: RELEASE,
      maps: [{ map: shop.map, url: shop.url.replace('https://shop.example.com', '~') }],
    });
  });

  await test.step('five errors make an issue and open an incident; resolved, it occurs again and regresses', async () => {
    for (let i = 0; i < 5; i++) await sendError();
    incident = await webhookOf('incident.created');
    await expect
      .poll(
        async () =>
          (await controlGet<{ data: Array<{ id: string }> }>(server, `/issues?env=${ENV}`)).body.data.map((i) => i.id),
        { timeout: 10_000 },
      )
      .toHaveLength(1);
    issueId = (await controlGet<{ data: Array<{ id: string }> }>(server, `/issues?env=${ENV}`)).body.data[0]!.id;
    await control('PATCH', `/issues/${issueId}`, { status: 'resolved' });
    await sendWhatLedUpToIt();
    await sendError();
    regressed = await webhookOf('issue.regressed');
    expect(regressed.issue_id).toBe(issueId);
    expect(regressed.dashboard_url).toMatch(
      new RegExp(`^${server.url}/issues/${issueId}\\?p=[^&]+&exp=\\d+&sig=[\\w-]+$`),
    );
  });

  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });

  await test.step('the page shows the original function, file and line, and quotes the throwing line', async () => {
    const res = await page.goto(regressed.dashboard_url);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`TypeError: ${shop.message}`);
    await expect(page.locator('.sev')).toHaveText('regressed');
    const top = page.locator('.frames > li').first();
    await expect(top.locator('code').first()).toHaveText('lineTotal');
    await expect(top.locator('.where').first()).toHaveText(/^src\/cart\/total\.ts:4:\d+$/);
    await expect(top.locator('mark')).toContainText(THROW_LINE);
    await expect(top.locator('mark')).toBeVisible();
    await expect(top).toContainText(`minified: `);
    await expect(top).toContainText(shop.url);
    // The dependency's frame is folded away, and opens.
    const folded = page.locator('details', { hasText: 'not in the app' }).first();
    await expect(folded.locator('.frames')).toBeHidden();
    await folded.locator('summary').click();
    await expect(folded).toContainText('node_modules/sum-by/index.js');
    await folded.locator('summary').click();
    await expect(page.getByRole('table').first()).toContainText('console.info: applying coupon SAVE10');
    await expect(page.getByRole('table').first()).toContainText('Apply coupon');
    await expect(page.getByRole('link', { name: SESSION })).toHaveAttribute('href', `${server.url}/session/${SESSION}`);
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toContain('system-ui');
    await page.screenshot({ path: testInfo.outputPath('issue-page.png'), fullPage: true });
  });

  await test.step('Tab reaches every link and disclosure in reading order, with a visible focus; axe finds nothing', async () => {
    // From the top, as a reader arriving from the link starts.
    await page.goto(regressed.dashboard_url);
    const focusable = await page
      .locator('a[href], summary')
      .evaluateAll((els) => els.map((el) => el.textContent ?? ''));
    expect(focusable).toEqual([
      'the incident this issue opened',
      '1 frame not in the app',
      'The stack as the browser sent it',
      SESSION,
    ]);
    for (const text of focusable) {
      await page.keyboard.press('Tab');
      const focused = page.locator(':focus');
      await expect(focused).toHaveText(text);
      expect(await focused.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
    }
    const axe = await axeOf(page).analyze();
    expect(
      axe.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    ).toEqual([]);
  });

  await test.step('at phone width nothing scrolls sideways and the throwing line fits the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const mark = page.locator('.frames > li mark').first();
    await mark.scrollIntoViewIfNeeded();
    const box = (await mark.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: testInfo.outputPath('issue-page-phone.png'), fullPage: true });
    await mark.locator('xpath=ancestor::li').screenshot({ path: testInfo.outputPath('issue-page-phone-frame.png') });
    await page.locator('table.crumbs').screenshot({ path: testInfo.outputPath('issue-page-phone-breadcrumbs.png') });
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  await test.step('reading the page changed nothing', async () => {
    const detail = await controlGet<{ status: string; events: number }>(server, `/issues/${issueId}`);
    expect(detail.body).toMatchObject({ status: 'regressed', events: 6 });
  });

  await test.step('the incident page links to its issue page', async () => {
    await page.goto(incident.dashboard_url);
    await page.getByRole('link', { name: 'its stack, source lines and breadcrumbs' }).click();
    await expect(page).toHaveURL(new RegExp(`/issues/${issueId}\\?p=`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`TypeError: ${shop.message}`);
    await page.getByRole('link', { name: 'the incident this issue opened' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toContainText(shop.message);
    // Before the refusals below, whose 403s the console reports too.
    expect(consoleErrors, 'no CSP violation or other console error').toEqual([]);
  });

  await test.step('an altered, an expired and an incident link get the 403 page', async () => {
    const url = regressed.dashboard_url;
    const sig = new URL(url).searchParams.get('sig')!;
    await expectRefused(
      page,
      url.replace(`sig=${sig}`, `sig=${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`),
      'This link is not valid',
    );
    await expectRefused(
      page,
      url.replace(/exp=\d+/, (m) => `${m}1`),
      'This link is not valid',
    );
    const projectId = new URL(url).searchParams.get('p')!;
    const expired = signedLink(createSecretBox(SECRET_KEY), server.url, Date.now() - 31 * DAY, projectId, {
      kind: 'issue',
      id: issueId,
      action: 'view',
    });
    await expectRefused(page, expired, 'This link is out of date');
    // The incident link's signature, on the issue page of the incident's own id and of the issue's.
    await expectRefused(
      page,
      withQuery(`${server.url}/issues/${incident.incident_id!}`, queryOf(incident.dashboard_url)),
      'This link is not valid',
    );
    await expectRefused(page, withQuery(url, queryOf(incident.dashboard_url)), 'This link is not valid');
    await page.screenshot({ path: testInfo.outputPath('issue-page-refused.png') });
  });
});

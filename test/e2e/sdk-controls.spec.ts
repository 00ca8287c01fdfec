import { gunzipSync } from 'node:zlib';
import type { Page, Request } from '@playwright/test';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';
import { openSdkPage, rows, sdkOriginForFile, waitForLogs, type LogRow } from './support/sdk-page';

/**
 * The controls of a production SDK (issue 17), through the real CDN entry against the real server in Chromium:
 * session sampling and its resource attributes, replay on error, user identity and its search, `beforeSend`,
 * `ignoreErrors`, `denyUrls`/`allowUrls` and browser-extension errors.
 *
 * "Nothing was sent" is proven by `sdk.shutdown()`, which resolves only after everything queued has been sent: the
 * requests the page made by then are all there will be.
 */

const origin = sdkOriginForFile();

/** The session decision reads 8 hex digits per rate: all zeros is inside any rate above 0, all f's outside any below 1. */
const INSIDE = '0'.repeat(32);
const OUTSIDE = 'f'.repeat(32);

/** Makes the page continue a stored session `id`, as a second tab or page load of that session does. */
async function continueSession(page: Page, id: string): Promise<void> {
  await page.addInitScript((sessionId) => {
    const now = Date.now();
    localStorage.setItem('svc_session_id', sessionId);
    localStorage.setItem('svc_session_id.times', `${now}.${now}`);
  }, id);
}

/** The page's requests to the ingest server, by path, as Chromium made them. */
function ingestRequests(page: Page, ingest: TestServer): Request[] {
  const seen: Request[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(ingest.url)) seen.push(request);
  });
  return seen;
}

const paths = (requests: readonly Request[]) =>
  [...new Set(requests.map((request) => new URL(request.url()).pathname))].sort();

/** Logs, throws and records a metric, then shuts the SDK down (sending everything queued). */
async function activityThenShutdown(page: Page): Promise<void> {
  await page.evaluate(async () => {
    window.sdk.log('info', 'checkout opened');
    window.sdk.captureException(new TypeError('cart is empty'));
    window.sdk.metric('cart.items', 3);
    document.body.append(Object.assign(document.createElement('p'), { textContent: 'changed' }));
    await window.sdk.shutdown();
  });
}

test.describe('session sampling', () => {
  test('a session outside sampleRate sends nothing at all, in every tab', async ({ page, ingest }) => {
    await continueSession(page, OUTSIDE);
    const requests = ingestRequests(page, ingest);
    await openSdkPage(page, origin, ingest, { sampleRate: 0.5 });
    const second = await page.context().newPage();
    const secondRequests = ingestRequests(second, ingest);
    await openSdkPage(second, origin, ingest, { sampleRate: 0.5 });
    expect(await second.evaluate(() => window.sdk.sessionId)).toBe(OUTSIDE);
    await activityThenShutdown(page);
    await activityThenShutdown(second);
    expect(paths(requests)).toEqual([]);
    expect(paths(secondRequests)).toEqual([]);
  });

  test('sampleRate 0 sends nothing, whatever the session', async ({ page, ingest }) => {
    await continueSession(page, INSIDE);
    const requests = ingestRequests(page, ingest);
    await openSdkPage(page, origin, ingest, { sampleRate: 0 });
    await activityThenShutdown(page);
    expect(paths(requests)).toEqual([]);
  });

  test("the traceparent a request carries follows the session's decision: flags 00 outside sampleRate, 01 inside", async ({
    page,
    ingest,
  }) => {
    const sentBy = async (tab: Page, sessionId: string) => {
      await continueSession(tab, sessionId);
      await openSdkPage(tab, origin, ingest, { sampleRate: 0.5 });
      const request = tab.waitForRequest((r) => r.url().endsWith('/api/traced'));
      await tab.evaluate(() => fetch('/api/traced').then((res) => res.text()));
      return (await request).headers()['traceparent'];
    };
    // A backend that samples on the parent's flag keeps no half of a trace the browser never sends.
    expect(await sentBy(page, OUTSIDE)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(await sentBy(await page.context().newPage(), INSIDE)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  test('a session inside sampleRate sends every signal, and its decision travels as resource attributes', async ({
    page,
    ingest,
  }) => {
    await continueSession(page, INSIDE);
    const requests = ingestRequests(page, ingest);
    const { sessionId } = await openSdkPage(page, origin, ingest, { sampleRate: 0.5 });
    expect(sessionId).toBe(INSIDE);
    await activityThenShutdown(page);
    expect(paths(requests)).toEqual(['/ingest/replay/chunk', '/otlp/v1/logs', '/otlp/v1/metrics', '/otlp/v1/traces']);
    const logs = requests.find((request) => request.url().endsWith('/otlp/v1/logs'))!;
    const body = logs.postDataBuffer()!;
    const json = JSON.parse(
      (logs.headers()['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8'),
    ) as unknown;
    const resource = (
      json as {
        resourceLogs: Array<{ resource: { attributes: Array<{ key: string; value: Record<string, unknown> }> } }>;
      }
    ).resourceLogs[0]!.resource.attributes;
    expect(resource).toEqual(
      expect.arrayContaining([
        { key: 'svc.sample_rate', value: { doubleValue: 0.5 } },
        { key: 'svc.replay.mode', value: { stringValue: 'full' } },
      ]),
    );
    await waitForLogs(ingest, sessionId, 2);
  });
});

test.describe('replay on error', () => {
  const ON_ERROR = { replay: { sampleRate: 0, onErrorSampleRate: 1 } };

  test('a session without an error sends no replay, only its other signals', async ({ page, ingest }) => {
    await continueSession(page, INSIDE);
    const requests = ingestRequests(page, ingest);
    await openSdkPage(page, origin, ingest, ON_ERROR);
    await page.evaluate(async () => {
      window.sdk.log('info', 'no error here');
      document.body.append(Object.assign(document.createElement('p'), { textContent: 'recorded, kept in memory' }));
      await window.sdk.flushReplay();
      await window.sdk.shutdown();
    });
    expect(paths(requests)).toEqual(['/otlp/v1/logs', '/otlp/v1/metrics', '/otlp/v1/traces']);
  });

  test('an error sends the replay recorded before it, from a full snapshot, then recording goes on', async ({
    page,
    ingest,
  }) => {
    await continueSession(page, INSIDE);
    const { sessionId } = await openSdkPage(page, origin, ingest, ON_ERROR);
    await page.evaluate(() => {
      document.body.append(Object.assign(document.createElement('p'), { textContent: 'Before the error' }));
    });
    // The recorder starts after the page's first task; its full snapshot is what the replay opens with.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    await page.evaluate(() => window.sdk.captureException(new RangeError('quantity out of range')));
    await page.evaluate(() => {
      document.body.append(Object.assign(document.createElement('p'), { textContent: 'After the error' }));
    });
    await page.evaluate(() => window.sdk.flushReplay());

    let events: Array<{ type: number }> = [];
    await expect
      .poll(
        async () => {
          const replay = await controlGet<{ events: Array<{ type: number }> }>(
            ingest,
            `/sessions/${sessionId}/replay?limit=200`,
          );
          events = replay.body.events ?? [];
          return JSON.stringify(events).includes('After the error');
        },
        { message: 'the replay, with what came after the error', timeout: 15_000 },
      )
      .toBe(true);
    expect(events[0]!.type).toBe(4);
    expect(JSON.stringify(events)).toContain('Before the error');
  });
});

test.describe('identity', () => {
  test('setUser and setAttributes go on every record; the session is found by user id and attribute', async ({
    page,
    ingest,
  }) => {
    const { sessionId } = await openSdkPage(page, origin, ingest);
    await page.evaluate(() => {
      window.sdk.setUser({ id: 'u-42', email: 'ada@example.com', username: 'ada' });
      window.sdk.setAttributes({ plan: 'pro', seats: 5 });
      window.sdk.log('info', 'signed in');
    });
    const [log] = await waitForLogs(ingest, sessionId, 1, (row) => row.body === 'signed in');
    expect(log!.attributes).toMatchObject({
      'user.id': 'u-42',
      'session.attributes.plan': 'pro',
      'session.attributes.seats': 5,
    });
    // Only the id by default: e-mail and name are personal data.
    expect(Object.keys(log!.attributes)).not.toContain('user.email');
    expect(Object.keys(log!.attributes)).not.toContain('user.name');

    await expect
      .poll(
        async () =>
          (await controlGet<{ data: Array<{ session_id: string }> }>(ingest, '/sessions?user_id=u-42')).body.data.map(
            (s) => s.session_id,
          ),
        {
          message: 'the session found by user id',
          timeout: 15_000,
        },
      )
      .toEqual([sessionId]);
    const byAttribute = await controlGet<{ data: Array<{ session_id: string }> }>(ingest, '/sessions?attr.plan=pro');
    expect(byAttribute.body.data.map((s) => s.session_id)).toEqual([sessionId]);
    expect((await controlGet<{ data: unknown[] }>(ingest, '/sessions?user_id=u-43')).body.data).toEqual([]);

    await page.evaluate(() => {
      window.sdk.clearUser();
      window.sdk.log('info', 'signed out');
    });
    const [after] = await waitForLogs(ingest, sessionId, 1, (row) => row.body === 'signed out');
    expect(Object.keys(after!.attributes)).not.toContain('user.id');
  });

  test('sendUserPii sends the e-mail and name too', async ({ page, ingest }) => {
    const { sessionId } = await openSdkPage(page, origin, ingest, { sendUserPii: true });
    await page.evaluate(() => {
      window.sdk.setUser({ id: 'u-7', email: 'grace@example.com', username: 'grace' });
      window.sdk.log('info', 'hello');
    });
    const [log] = await waitForLogs(ingest, sessionId, 1, (row) => row.body === 'hello');
    expect(log!.attributes).toMatchObject({
      'user.id': 'u-7',
      'user.email': 'grace@example.com',
      'user.name': 'grace',
    });
  });
});

test.describe('filters and beforeSend', () => {
  /** Captures errors thrown from scripts at the given URLs (as their stacks say), then a last error that is kept. */
  async function captureFrom(page: Page, urls: readonly string[]): Promise<void> {
    await page.evaluate((scriptUrls) => {
      for (const url of scriptUrls) {
        const error = new Error(`thrown by ${url}`);
        error.stack = `Error: thrown by ${url}\n    at run (${url}:1:10)\n    at ${location.origin}/app.js:2:5`;
        window.sdk.captureException(error);
      }
      window.sdk.captureException(new Error('the last one'));
    }, urls);
  }

  /** Every stored log of the session, oldest first, once the one with `lastBody` (recorded last) is stored. */
  async function logsUpTo(ingest: TestServer, sessionId: string, lastBody: string): Promise<LogRow[]> {
    await waitForLogs(ingest, sessionId, 1, (row) => row.body === lastBody);
    return (await rows<LogRow>(ingest, `/logs?session_id=${sessionId}&limit=1000`)).reverse();
  }

  const errorBodies = (logs: readonly LogRow[]) =>
    logs.filter((log) => log.severity_text === 'ERROR').map((log) => String(log.body));

  test('errors of browser extensions are dropped by default; denyUrls and allowUrls filter by the script that threw', async ({
    page,
    ingest,
  }) => {
    await page.addInitScript(() => {
      window.svcTestOptions = { denyUrls: [/\/ads\//], allowUrls: ['https://shop.example/', location.origin] };
    });
    const { sessionId } = await openSdkPage(page, origin, ingest);
    await captureFrom(page, [
      'chrome-extension://abcdefgh/content.js',
      'moz-extension://1234/inject.js',
      'safari-web-extension://5678/script.js',
      'https://shop.example/ads/banner.js',
      'https://cdn.other.example/widget.js',
      'https://shop.example/assets/main.js',
    ]);
    const logs = await logsUpTo(ingest, sessionId, 'Error: the last one');
    expect(errorBodies(logs)).toEqual(['Error: thrown by https://shop.example/assets/main.js', 'Error: the last one']);
  });

  test('ignoreErrors drops by type and message; beforeSend drops, edits and sees errors as kind "error"', async ({
    page,
    ingest,
  }) => {
    await page.addInitScript(() => {
      window.svcTestOptions = {
        ignoreErrors: ['ResizeObserver loop', /^ChunkLoadError: /],
        beforeSend(item: { kind: string; body?: string; attributes: Record<string, unknown> }) {
          if (item.kind === 'log' && item.body === 'noise') return null;
          if (item.kind === 'error') item.attributes['exception.message'] = 'edited by beforeSend';
          if (item.kind === 'span') item.attributes['seen.by.hook'] = true;
          return item;
        },
      };
    });
    const { sessionId } = await openSdkPage(page, origin, ingest);
    await page.evaluate(() => {
      window.sdk.captureException(new Error('ResizeObserver loop completed with undelivered notifications.'));
      const chunk = new Error('Loading chunk 7 failed');
      chunk.name = 'ChunkLoadError';
      window.sdk.captureException(chunk);
      window.sdk.log('info', 'noise');
      window.sdk.captureException(new TypeError('kept'));
      window.sdk.log('info', 'signal');
    });
    const logs = await logsUpTo(ingest, sessionId, 'signal');
    expect(logs.map((log) => String(log.body))).not.toContain('noise');
    const errors = logs.filter((log) => log.severity_text === 'ERROR');
    expect(errors.map((log) => [log.body, log.attributes['exception.message']])).toEqual([
      ['TypeError: kept', 'edited by beforeSend'],
    ]);
  });
});

import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { controlGet } from '../support/svc-server';
import { openSdkPage, rows, sdkOriginForFile, waitForLogs, type LogRow } from './support/sdk-page';

/**
 * The `integrations` option through the real SDK (the CDN bundle on a page of its own origin, sending to a reference
 * server): an app that removes an integration gets none of its records while the others still flow, and an
 * integration of the app's own starts with the core (src/core/integration.ts).
 */

const origin = sdkOriginForFile();

/** The core an integration's `setup` receives, as far as this test uses it. */
interface TestCore {
  logger: { log(level: string, message: string): void };
}

test('an app that removes the console integration sends no console records; errors, logs and its own integration still arrive', async ({
  page,
  ingest,
}) => {
  await page.addInitScript(() => {
    const mine = {
      name: 'mine',
      setup: (core: TestCore) => core.logger.log('info', 'from the app integration'),
    };
    window.svcTestOptions = {
      integrations: (defaults: Array<{ name: string }>) => [
        ...defaults.filter((integration) => integration.name !== 'console'),
        mine,
        mine,
      ],
    };
  });
  const { sessionId, consoleLines } = await openSdkPage(page, origin, ingest);
  await page.evaluate(() => {
    console.info('console info, not captured');
    console.error('console error, not captured');
    (window as unknown as { throwUncaught(message: string): void }).throwUncaught('uncaught, still captured');
    window.sdk.log('info', 'the last one');
  });

  // One queue: once the last log and the uncaught error (thrown from a timer) are stored, any console record written
  // before them would be too.
  const last = ['the last one', 'TypeError: uncaught, still captured'];
  await waitForLogs(ingest, sessionId, 2, (row) => last.includes(String(row.body).split('\n')[0]!));
  const logs = (await rows<LogRow>(ingest, `/logs?session_id=${sessionId}&limit=1000`)).reverse();
  const bodies = logs.map((log) => String(log.body));
  expect(logs.filter((log) => log.attributes['log.source'] === 'console')).toEqual([]);
  expect(bodies.filter((body) => body.includes('not captured'))).toEqual([]);
  expect(bodies).toContain('from the app integration');
  expect(bodies.filter((body) => body === 'from the app integration')).toHaveLength(1);
  // The app still sees its console output, and the duplicate is reported.
  expect(consoleLines.map((line) => line.text)).toEqual(
    expect.arrayContaining([
      'console info, not captured',
      'console error, not captured',
      '[svc] integrations: "mine" is listed twice; the later one is started',
    ]),
  );
});

/** What the page's `Svc` global gives an integration that traces. */
interface TracingGlobal {
  tracingFor(core: unknown): {
    tracer(scope: string): {
      startActiveSpan(name: string, run: (span: { end(): void }) => void): void;
    };
  };
}

/** Only the integrations named: the defaults filtered, as a script tag chooses them. */
const onlyIntegrations = (names: string[]) =>
  (window.svcTestOptions = {
    integrations: (defaults: Array<{ name: string }>) =>
      defaults.filter((integration) => names.includes(integration.name)),
  });

/** Shuts the page's SDK down: it resolves once everything queued has been sent and answered. */
const shutDown = (page: Page) => page.evaluate(() => window.sdk.shutdown());

test('without the replay and tracing integrations: no replay, no spans, logs outside any trace, and instrumentFetch() says it does not trace', async ({
  page,
  ingest,
}) => {
  await page.addInitScript(onlyIntegrations, ['errors', 'console']);
  const { sessionId, consoleLines } = await openSdkPage(page, origin, ingest);
  const status = await page.evaluate(async () => {
    const { sdk } = window;
    const response = await sdk.instrumentFetch()('/elsewhere');
    sdk.captureReplayEvent('checkout', { step: 1 });
    await sdk.flushReplay();
    history.pushState({}, '', '/next');
    console.warn('console warn, captured');
    window.sdk.log('info', 'the last one');
    return response.status;
  });
  expect(status).toBe(200);
  await shutDown(page);

  const logs = await waitForLogs(ingest, sessionId, 2);
  expect(logs.map((log) => String(log.body))).toEqual(['console warn, captured', 'the last one']);
  expect(logs.map((log) => log.trace_id)).toEqual([null, null]);
  // Shutdown resolved once every queued request was answered: nothing else is on its way.
  expect(await rows(ingest, `/spans?session_id=${sessionId}&limit=100`)).toEqual([]);
  expect(await rows(ingest, `/replay/chunks?session_id=${sessionId}&limit=100`)).toEqual([]);
  const session = await controlGet<{ replay_mode: string | null }>(ingest, `/sessions/${sessionId}`);
  expect(session.body.replay_mode).toBe('off');
  expect(consoleLines.map((line) => line.text)).toContain(
    '[svc] instrumentFetch(): no integration traces; the fetch returned does not.',
  );
});

test("an integration of the app's own starts tracing with tracingFor: its spans, its logs inside them, and a traced instrumentFetch()", async ({
  page,
  ingest,
}) => {
  await page.addInitScript(() => {
    const mine = {
      name: 'mine',
      // Read at setup: the script tag defines `Svc` after this init script ran.
      setup(core: TestCore) {
        (window as unknown as { Svc: TracingGlobal }).Svc.tracingFor(core)
          .tracer('mine')
          .startActiveSpan('from mine', (span) => {
            core.logger.log('info', 'inside the span of mine');
            span.end();
          });
      },
    };
    window.svcTestOptions = {
      integrations: (defaults: Array<{ name: string }>) => [...defaults.filter((i) => i.name === 'errors'), mine],
    };
  });
  const { sessionId } = await openSdkPage(page, origin, ingest);
  await page.evaluate(async () => {
    await window.sdk.instrumentFetch()('/elsewhere');
  });
  await shutDown(page);

  type SpanRow = { name: string; trace_id: string; attributes: Record<string, unknown> };
  const spans = await rows<SpanRow>(ingest, `/spans?session_id=${sessionId}&limit=100`);
  const mine = spans.find((span) => span.name === 'from mine');
  expect(mine, JSON.stringify(spans.map((span) => span.name))).toBeDefined();
  expect(mine!.attributes['session.id']).toBe(sessionId);
  expect(spans.filter((span) => span.attributes['http.url'] === `${origin.origin}/elsewhere`)).toHaveLength(1);
  const [inside] = await waitForLogs(ingest, sessionId, 1, (log) => log.body === 'inside the span of mine');
  expect(inside!.trace_id).toBe(mine!.trace_id);
});

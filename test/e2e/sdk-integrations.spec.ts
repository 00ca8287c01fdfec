import { expect, test } from './fixtures';
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

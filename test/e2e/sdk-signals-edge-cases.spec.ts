import type { Page } from '@playwright/test';
import type { TestServer } from '../support/svc-server';
import { expect, test, waitForSpans } from './fixtures';
import {
  openSdkPage,
  rows,
  sdkOriginForFile,
  waitForLogs,
  waitForMetrics,
  waitForNavigations,
  waitForRows,
  waitForVitals,
  type LogRow,
  type MetricRow,
  type Observed,
  shiftLayoutRecorded,
} from './support/sdk-page';
import { APP_THROW_COLUMN, APP_THROW_LINE, SIGNALS_PAGE_TITLE } from './support/signals-page';

/**
 * The edge cases of each signal (src/signals), through the real SDK: the CDN bundle started by `Svc.initBrowserSDK` on
 * the signals page, sending through the pipeline to a reference server, and asserted on what the server stored (its
 * OTLP form: severity text, attributes, `null` for no unit). The main path of every signal is in sdk-signals.spec.ts.
 */

const origin = sdkOriginForFile();

const openPage = (page: Page, ingest: TestServer, options: Record<string, unknown> = {}): Promise<Observed> =>
  openSdkPage(page, origin, ingest, options);

const bodies = (logs: readonly LogRow[]): string[] => logs.map((l) => String(l.body)).sort();

/**
 * Waits for the log `marker`, which the test wrote after everything it expects, then returns all of the session's logs:
 * records queued before the marker left in its request or an earlier one, so anything missing now is never coming.
 */
async function logsUpTo(ingest: TestServer, sessionId: string, marker: string): Promise<LogRow[]> {
  await waitForLogs(ingest, sessionId, 1, (l) => l.body === marker);
  return (await rows<LogRow>(ingest, `/logs?session_id=${sessionId}&limit=1000`)).reverse();
}

/** Waits until the session's metric `name` is stored: a marker recorded after everything the test expects. */
const waitForMetricNamed = (ingest: TestServer, sessionId: string, name: string) =>
  waitForRows<MetricRow>(ingest, `/metrics?session_id=${sessionId}&limit=1000`, 1, (m) => m.name === name);

test.describe('logs', () => {
  test('five levels, session id, converted attributes, context session and active trace', async ({ page, ingest }) => {
    const { sessionId } = await openPage(page, ingest);
    await page.evaluate(() => {
      const { sdk } = window;
      for (const level of ['debug', 'info', 'warn', 'error', 'fatal'] as const) sdk.log(level, `${level} message`);
      const cyclic: Record<string, unknown> = { name: 'loop' };
      cyclic.self = cyclic;
      sdk.log('info', 'with attrs', {
        attrs: {
          user: 'ada',
          count: 3,
          ok: true,
          tags: ['a', 'b'],
          nested: { a: 1, b: [1, 2], when: new Date(0) },
          cyclic,
          missing: undefined,
          nothing: null,
          ratio: NaN,
          big: 'x'.repeat(20_000),
          'session.id': 'attrs cannot override the session',
        },
      });
      sdk.log('warn', 'other session', { sessionId: 'other-session' });
      // An app's own span, made through the OpenTelemetry API global in which the SDK registered its tracer provider.
      type Api = {
        trace: {
          getTracer(name: string): { startActiveSpan(name: string, work: (span: { end(): void }) => void): void };
        };
      };
      const api = (globalThis as unknown as Record<symbol, Api>)[Symbol.for('opentelemetry.js.api.1')]!;
      api.trace.getTracer('app').startActiveSpan('app work', (span) => {
        sdk.log('info', 'in a span');
        span.end();
      });
    });

    const all = await waitForLogs(ingest, sessionId, 7);
    const byBody = new Map(all.map((l) => [String(l.body), l]));
    for (const [level, text] of [
      ['debug', 'DEBUG'],
      ['info', 'INFO'],
      ['warn', 'WARN'],
      ['error', 'ERROR'],
      ['fatal', 'FATAL'],
    ]) {
      const log = byBody.get(`${level} message`);
      expect(log, `${level} message`).toMatchObject({
        severity_text: text,
        session_id: sessionId,
        attributes: { 'session.id': sessionId },
      });
      expect(log!.trace_id).toBeNull();
    }

    const attributes = byBody.get('with attrs')!.attributes;
    expect(attributes).toMatchObject({
      user: 'ada',
      count: 3,
      ok: true,
      tags: ['a', 'b'],
      nested: '{"a":1,"b":[1,2],"when":"1970-01-01T00:00:00.000Z"}',
      cyclic: '{"name":"loop","self":[Circular]}',
      ratio: 'NaN',
      'session.id': sessionId,
    });
    expect(attributes).not.toHaveProperty('missing');
    expect(attributes).not.toHaveProperty('nothing');
    expect(String(attributes.big)).toHaveLength(8192);
    expect(String(attributes.big).endsWith('…')).toBe(true);

    const [other] = await waitForLogs(ingest, 'other-session', 1);
    expect(other).toMatchObject({
      body: 'other session',
      session_id: 'other-session',
      attributes: { 'session.id': 'other-session' },
    });

    // The log joined the app's trace: the span the server stored has its trace and span ids.
    const inSpan = byBody.get('in a span')!;
    expect(inSpan.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const spans = await waitForSpans(ingest, inSpan.trace_id!);
    expect(spans[0]).toMatchObject({ name: 'app work', span_id: inSpan.span_id });
  });

  test('bad input never throws: unknown level logged as info with a debug warning, other messages rendered', async ({
    page,
    ingest,
  }) => {
    const { consoleLines, pageErrors, sessionId } = await openPage(page, ingest);
    await page.evaluate(() => {
      const log = window.sdk.log as (level: unknown, message: unknown, context?: unknown) => void;
      log('loud', 'bad level');
      log('info', { not: 'a string' });
      log('info', 42);
      log('info', 'context is not an object', 'nope');
      log('info', 'attrs is not an object', { attrs: 'nope', sessionId: 7 });
    });
    // Read by this session's id: the record with an invalid context.sessionId got the SDK's own.
    const all = await waitForLogs(ingest, sessionId, 5);
    expect(all.map((l) => [l.severity_text, l.body]).sort()).toEqual(
      [
        ['INFO', 'bad level'],
        ['INFO', '{"not":"a string"}'],
        ['INFO', '42'],
        ['INFO', 'context is not an object'],
        ['INFO', 'attrs is not an object'],
      ].sort(),
    );
    const warnings = consoleLines.filter((l) => l.type === 'warning' && l.text.startsWith('[svc] ')).map((l) => l.text);
    expect(warnings).toEqual([
      expect.stringContaining('unknown level "loud"'),
      expect.stringContaining('the context must be { sessionId, attrs }'),
      expect.stringContaining('context.sessionId must be a non-empty string'),
      expect.stringContaining('context.attrs must be an object'),
    ]);
    // The SDK's own diagnostics went through the original console: none of them became a log.
    expect(all.some((l) => String(l.body).includes('[svc]'))).toBe(false);
    expect(pageErrors).toEqual([]);
  });
});

test.describe('SDK failures', () => {
  test('a failing SDK never throws into the app, and its own error reports are neither forwarded nor captured', async ({
    page,
    ingest,
  }) => {
    const { consoleLines, pageErrors, sessionId } = await openPage(page, ingest);
    const thrown = await page.evaluate(() => {
      // Any failure inside the SDK will do: every record reads the clock, so a throwing clock fails each call below
      // inside the SDK, where the array queue of the old harness used to throw.
      Object.defineProperty(performance, 'now', {
        configurable: true,
        value: () => {
          throw new Error('clock broken on purpose');
        },
      });
      const calls: Array<() => void> = [
        () => window.sdk.log('info', 'lost'),
        () => window.sdk.captureException(new Error('lost')),
        () => window.sdk.metric('lost', 1),
        () => console.warn('printed, not recorded'),
      ];
      const errors: string[] = [];
      for (const call of calls) {
        try {
          call();
        } catch (error) {
          errors.push(String(error));
        }
      }
      // Back to Performance.prototype.now.
      delete (performance as { now?: unknown }).now;
      window.sdk.log('info', 'recorded again');
      window.sdk.metric('recorded_again', 1);
      return errors;
    });
    expect(thrown).toEqual([]);
    // The failed records would have left with these, in the same flush.
    expect(bodies(await waitForLogs(ingest, sessionId, 1))).toEqual(['recorded again']);
    expect((await waitForMetrics(ingest, sessionId, 1)).map((m) => m.name)).toEqual(['recorded_again']);
    const reports = consoleLines.filter((l) => l.type === 'error' && l.text.startsWith('[svc] ')).map((l) => l.text);
    expect(reports).toEqual([
      expect.stringMatching(/^\[svc\] log\(\) failed Error: clock broken on purpose/),
      expect.stringMatching(/^\[svc\] captureException\(\) failed Error: clock broken on purpose/),
      expect.stringMatching(/^\[svc\] metric\(\) failed Error: clock broken on purpose/),
      expect.stringMatching(/^\[svc\] log\(\) failed Error: clock broken on purpose/),
    ]);
    expect(consoleLines.some((l) => l.type === 'warning' && l.text === 'printed, not recorded')).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});

test.describe('captureException', () => {
  test('errors, strings and other values; an error object is recorded once', async ({ page, ingest }) => {
    const { sessionId } = await openPage(page, ingest);
    await page.evaluate(() => {
      const { sdk } = window;
      const root = new RangeError('root cause');
      const error = new TypeError('outer failure', { cause: root });
      sdk.captureException(error, { attrs: { orderId: 'o-1' } });
      sdk.captureException(error);
      sdk.captureException('plain string');
      sdk.captureException({ code: 42 });
      sdk.captureException(undefined);
      class EmptyError extends Error {}
      sdk.captureException(new EmptyError());
      sdk.log('info', 'marker');
    });
    const all = (await logsUpTo(ingest, sessionId, 'marker')).filter((l) => l.body !== 'marker');
    expect(all.map((l) => [l.severity_text, l.body]).sort()).toEqual(
      [
        ['ERROR', 'TypeError: outer failure'],
        ['ERROR', 'Error: plain string'],
        ['ERROR', 'Error: {"code":42}'],
        ['ERROR', 'Error: undefined'],
        ['ERROR', 'Error'],
      ].sort(),
    );
    const byBody = new Map(all.map((l) => [String(l.body), l]));
    const typeError = byBody.get('TypeError: outer failure')!;
    expect(typeError.attributes).toMatchObject({
      orderId: 'o-1',
      'exception.type': 'TypeError',
      'exception.message': 'outer failure',
    });
    const stack = String(typeError.attributes['exception.stacktrace']);
    expect(stack).toMatch(/^TypeError: outer failure\n\s+at /);
    expect(stack).toContain('\nCaused by: RangeError: root cause\n');
    const plain = byBody.get('Error: plain string')!;
    expect(plain.attributes).toMatchObject({ 'exception.type': 'Error', 'exception.message': 'plain string' });
    expect(plain.attributes).not.toHaveProperty('exception.stacktrace');
  });
});

test.describe('uncaught errors and unhandled rejections', () => {
  test('logged at error with file, line and column, or with the rejection reason; resource errors ignored', async ({
    page,
    ingest,
  }) => {
    const { pageErrors, sessionId } = await openPage(page, ingest);
    await page.evaluate(() => {
      const { sdk } = window;
      (window as unknown as { throwUncaught(message: string): void }).throwUncaught('uncaught from app.js');
      void Promise.reject(new RangeError('rejected with an error'));
      void Promise.reject({ code: 42 });
      const image = document.createElement('img');
      // A timer set once the image failed runs after the timers of the throws above: the marker is logged last.
      image.addEventListener('error', () => setTimeout(() => sdk.log('info', 'after the image error'), 0));
      image.src = '/not-an-image.png';
      document.body.append(image);
      // Captured by the app first, then thrown: recorded once.
      const seen = new Error('captured, then thrown');
      sdk.captureException(seen);
      setTimeout(() => {
        throw seen;
      }, 0);
    });
    const all = (await logsUpTo(ingest, sessionId, 'after the image error')).filter(
      (l) => l.body !== 'after the image error',
    );
    expect(all).toHaveLength(4);
    const byBody = new Map(all.map((l) => [String(l.body), l]));

    const uncaught = byBody.get('TypeError: uncaught from app.js');
    expect(uncaught).toMatchObject({
      severity_text: 'ERROR',
      attributes: {
        'log.source': 'onerror',
        'exception.type': 'TypeError',
        'exception.message': 'uncaught from app.js',
        'code.file.path': `${origin.origin}/app.js`,
        'code.line.number': APP_THROW_LINE,
        'code.column.number': APP_THROW_COLUMN,
      },
    });
    expect(String(uncaught!.attributes['exception.stacktrace'])).toContain('/app.js:4:');

    expect(byBody.get('RangeError: rejected with an error')).toMatchObject({
      severity_text: 'ERROR',
      attributes: { 'log.source': 'unhandledrejection', 'exception.type': 'RangeError' },
    });
    expect(byBody.get('Error: {"code":42}')).toMatchObject({
      severity_text: 'ERROR',
      attributes: { 'log.source': 'unhandledrejection', 'exception.message': '{"code":42}' },
    });
    expect(byBody.get('Error: captured, then thrown')?.attributes).not.toHaveProperty('log.source');
    // The image really failed (the marker came from its error event) and was not logged.
    expect(await page.evaluate(() => (document.querySelector('img') as HTMLImageElement).complete)).toBe(true);
    // Playwright reports unhandled rejections as page errors too (a plain object by its class name).
    expect(pageErrors.sort()).toEqual([
      'Object',
      'captured, then thrown',
      'rejected with an error',
      'uncaught from app.js',
    ]);
  });
});

test.describe('console', () => {
  test('debug/info/warn/error forwarded at their level as the console shows them; the console still prints', async ({
    page,
    ingest,
  }) => {
    const { consoleLines, sessionId } = await openPage(page, ingest);
    const printedBefore = consoleLines.length;
    await page.evaluate(() => {
      console.debug('debug %s=%d%%', 'x', 42.9, 'tail');
      console.info('%cstyled', 'color: red', { a: 1, list: [1, 'two'] });
      console.warn('warned', new Error('inside a warning'));
      console.error(new SyntaxError('alone'));
      console.log('console.log is not captured');
      console.info('x'.repeat(20_000));
      window.sdk.log('info', 'marker');
    });
    const all = (await logsUpTo(ingest, sessionId, 'marker')).filter((l) => l.body !== 'marker');
    const starting = (start: string | RegExp) =>
      all.find((l) => (typeof start === 'string' ? String(l.body).startsWith(start) : start.test(String(l.body))));
    expect(all).toHaveLength(5);
    for (const log of all) expect(log.attributes['log.source']).toBe('console');
    expect(starting('debug x=42% tail')).toMatchObject({ severity_text: 'DEBUG', body: 'debug x=42% tail' });
    expect(starting('styled')).toMatchObject({ severity_text: 'INFO', body: 'styled {"a":1,"list":[1,"two"]}' });
    expect(starting(/^warned Error: inside a warning\n\s+at /)).toMatchObject({
      severity_text: 'WARN',
      attributes: { 'exception.type': 'Error', 'exception.message': 'inside a warning' },
    });
    expect(starting(/^SyntaxError: alone\n\s+at /)).toMatchObject({ severity_text: 'ERROR' });
    const long = starting('xxxx')!;
    expect(long.severity_text).toBe('INFO');
    expect(String(long.body)).toHaveLength(16_384);

    // Playwright reports each console call with its raw arguments: the console was called, with the same ones.
    const printed = consoleLines.slice(printedBefore).map((l) => `${l.type}: ${l.text}`);
    expect(printed.slice(0, 5)).toEqual([
      expect.stringMatching(/^debug: debug %s=%d%% x 42(\.9)? tail$/),
      'info: %cstyled color: red {a: 1, list: Array(2)}',
      expect.stringMatching(/^warning: warned Error: inside a warning\n/),
      expect.stringMatching(/^error: SyntaxError: alone\n/),
      'log: console.log is not captured',
    ]);
  });

  test('same arguments and this reach the console; output made while recording is not forwarded again', async ({
    page,
    ingest,
  }) => {
    // A console wrapper installed by the app before the SDK: it sees what the SDK passes on.
    await page.addInitScript(() => {
      const seen: unknown[] = [];
      (window as unknown as { seen: unknown[] }).seen = seen;
      const before = console.info;
      console.info = function (this: unknown, ...args: unknown[]) {
        seen.push({ self: this === console ? 'console' : this, args });
        return before.apply(console, args);
      };
    });
    const { consoleLines, sessionId } = await openPage(page, ingest);
    const seen = await page.evaluate(() => {
      const receiver = { name: 'receiver' };
      const three = { three: 3 };
      const tricky = {
        get inner() {
          console.error('inner, printed while the SDK reads the argument');
          return 1;
        },
      };
      console.info('one', 2, three);
      console.info.call(receiver, 'with another this');
      console.info('outer', tricky);
      window.sdk.log('info', 'marker');
      // Compared here: the arguments must be the very same objects.
      const calls = (window as unknown as { seen: Array<{ self: unknown; args: unknown[] }> }).seen;
      return calls.map((call) => ({
        self: call.self === receiver ? 'receiver' : call.self,
        args: call.args.map((arg) => (arg === three ? 'three' : arg === tricky ? 'tricky' : arg)),
      }));
    });
    expect(seen).toEqual([
      { self: 'console', args: ['one', 2, 'three'] },
      { self: 'receiver', args: ['with another this'] },
      { self: 'console', args: ['outer', 'tricky'] },
    ]);
    const all = (await logsUpTo(ingest, sessionId, 'marker')).filter((l) => l.body !== 'marker');
    expect(all.map((l) => [l.severity_text, l.body]).sort()).toEqual(
      [
        ['INFO', 'one 2 {"three":3}'],
        ['INFO', 'with another this'],
        ['INFO', 'outer {"inner":1}'],
      ].sort(),
    );
    expect(consoleLines.map((l) => l.text)).toContain('inner, printed while the SDK reads the argument');
  });

  test('shutdown restores the console, unless something patched it later: then ours only passes calls on', async ({
    page,
    ingest,
  }) => {
    await page.addInitScript(() => {
      (window as unknown as { before: Partial<Console> }).before = {
        debug: console.debug,
        info: console.info,
        warn: console.warn,
        error: console.error,
      };
    });
    const { consoleLines, sessionId } = await openPage(page, ingest);
    const result = await page.evaluate(async () => {
      const before = (window as unknown as { before: Record<string, unknown> }).before;
      const patchedBySdk = console.warn !== before.warn;
      // Another tool wraps console.error after the SDK.
      const ours = console.error;
      let laterCalls = 0;
      const later = function (this: unknown, ...args: unknown[]) {
        laterCalls++;
        return ours.apply(this, args);
      };
      console.error = later;
      console.warn('before shutdown');
      await window.sdk.shutdown();
      console.warn('after shutdown');
      console.error('after shutdown, through the later wrapper');
      return {
        patchedBySdk,
        restored: (['debug', 'info', 'warn'] as const).every((m) => console[m] === before[m]),
        laterKept: console.error === later,
        laterCalls,
      };
    });
    expect(result).toEqual({ patchedBySdk: true, restored: true, laterKept: true, laterCalls: 1 });
    // shutdown() resolved after its last flush, so what it recorded is all it ever sends.
    expect(bodies(await waitForLogs(ingest, sessionId, 1))).toEqual(['before shutdown']);
    expect(consoleLines.map((l) => l.text)).toEqual(
      expect.arrayContaining(['after shutdown', 'after shutdown, through the later wrapper']),
    );
  });
});

test.describe('metrics', () => {
  const point = (m: MetricRow) => ({
    name: m.name,
    value: m.value,
    unit: m.unit,
    attributes: m.attributes,
    sessionId: m.session_id,
  });
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

  test('values recorded with unit, attributes and session; invalid points dropped with a warning', async ({
    page,
    ingest,
  }) => {
    const { consoleLines, sessionId } = await openPage(page, ingest);
    await page.evaluate(() => {
      const metric = window.sdk.metric as (...args: unknown[]) => void;
      metric('checkout.duration', 12.5, 'ms', { attrs: { step: 'pay' } });
      metric('cart_items', 3);
      metric('', 1);
      metric('nan_value', NaN);
      metric('infinite', Infinity);
      metric('text_value', '5');
      metric('unit_not_text', 1, 5);
      metric('marker', 0);
    });
    await waitForMetricNamed(ingest, sessionId, 'marker');
    const stored = (await waitForMetrics(ingest, sessionId, 4)).filter((m) => m.name !== 'marker');
    expect(stored.map(point).sort(byName)).toEqual(
      [
        {
          name: 'checkout.duration',
          value: 12.5,
          unit: 'ms',
          attributes: { step: 'pay', 'session.id': sessionId },
          sessionId,
        },
        // The server stores "no unit" as null.
        { name: 'cart_items', value: 3, unit: null, attributes: { 'session.id': sessionId }, sessionId },
        { name: 'unit_not_text', value: 1, unit: null, attributes: { 'session.id': sessionId }, sessionId },
      ].sort(byName),
    );
    const warnings = consoleLines.filter((l) => l.text.startsWith('[svc] metric')).map((l) => l.text);
    expect(warnings).toEqual([
      expect.stringContaining('the name must be a non-empty string'),
      expect.stringContaining('"nan_value"): the value must be a finite number, got NaN'),
      expect.stringContaining('"infinite"): the value must be a finite number, got Infinity'),
      expect.stringContaining('"text_value"): the value must be a finite number'),
      expect.stringContaining('"unit_not_text"): the unit must be a string'),
    ]);
    // Name rules are only checked with validateSemanticMetrics.
    expect(consoleLines.some((l) => l.text.includes('lower-case'))).toBe(false);
  });

  test('validateSemanticMetrics warns once per non-canonical name, and records the points anyway', async ({
    page,
    ingest,
  }) => {
    const { consoleLines, sessionId } = await openPage(page, ingest, { validateSemanticMetrics: true });
    await page.evaluate(() => {
      const { metric } = window.sdk;
      metric('http.client.duration', 5, 'ms');
      metric('page_load_ms', 5, 'ms');
      metric('Checkout-Time', 5, 'ms');
      metric('Checkout-Time', 6, 'ms');
      metric('upload_bytes', 10, 'KB');
      metric('render_ms', 5, 's');
      metric('queue.depth', 5, '{item}');
    });
    const stored = await waitForMetrics(ingest, sessionId, 7);
    expect(stored.map((m) => [m.name, m.value, m.unit]).sort()).toEqual(
      [
        ['http.client.duration', 5, 'ms'],
        ['page_load_ms', 5, 'ms'],
        ['Checkout-Time', 5, 'ms'],
        ['Checkout-Time', 6, 'ms'],
        ['upload_bytes', 10, 'KB'],
        ['render_ms', 5, 's'],
        ['queue.depth', 5, '{item}'],
      ].sort(),
    );
    const warnings = consoleLines.filter((l) => l.text.startsWith('[svc] metric')).map((l) => l.text);
    expect(warnings).toEqual([
      '[svc] metric "Checkout-Time" should be lower-case words of letters and digits joined by "." or "_", starting with a letter.',
      '[svc] metric "upload_bytes" has unit "KB", which is not a known UCUM unit (ms, s, By, 1, %, {count}…).',
      '[svc] metric "upload_bytes" ends in "bytes" but its unit is "KB"; use "By".',
      '[svc] metric "render_ms" ends in "ms" but its unit is "s"; use "ms".',
    ]);
  });
});

test.describe('Web Vitals', () => {
  /**
   * Makes a layout shift and a slow interaction, then leaves the page so that it is hidden for good. Just before that
   * last flush, `sdk` records the metric `page_hidden`: web-vitals queues the final CLS and INP in an earlier listener
   * of the same event, so once the marker is stored, every vital of the page is.
   */
  async function shiftClickAndLeave(page: Page, ingest: TestServer, sessionId: string): Promise<MetricRow[]> {
    // The shift must be recorded before the click: shifts within 500 ms after input do not count.
    await shiftLayoutRecorded(page);
    await page.click('#slow');
    // Event timing entries are delivered after the next paint.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.evaluate(() => {
      const sdk = window.sdk;
      // Capture phase on window, added after the SDK's start: after web-vitals' listeners, before the SDK's flush.
      window.addEventListener('visibilitychange', () => sdk.metric('page_hidden', 1), { capture: true, once: true });
    });
    await page.goto(`${origin.origin}/elsewhere`);
    await waitForMetricNamed(ingest, sessionId, 'page_hidden');
    return (await rows<MetricRow>(ingest, `/metrics?session_id=${sessionId}&limit=1000`)).filter((m) =>
      m.name.startsWith('web_vital_'),
    );
  }

  test('nothing with vitals.enabled false, and nothing after shutdown', async ({ page, ingest }) => {
    const { sessionId } = await openPage(page, ingest, { vitals: { enabled: false } });
    expect(await shiftClickAndLeave(page, ingest, sessionId)).toEqual([]);

    // The same tab again, so the same session, with the vitals on.
    const again = await openPage(page, ingest);
    expect(again.sessionId).toBe(sessionId);
    const open = await waitForVitals(ingest, sessionId, 2);
    expect(open.map((m) => m.name).sort()).toEqual(['web_vital_fcp_ms', 'web_vital_ttfb_ms']);
    // A second SDK, started after the first one's shutdown with the vitals off, only to record the marker: LCP, CLS and
    // INP, final once the page is left, must not come from the stopped one.
    await page.evaluate(async () => {
      await window.sdk.shutdown();
      const params = new URLSearchParams(location.search);
      window.sdk = window.Svc.initBrowserSDK({
        apiKey: params.get('key'),
        serviceName: params.get('app'),
        ingestUrl: params.get('ingest'),
        flushIntervalMs: 100,
        vitals: { enabled: false },
        replay: { enabled: false },
      });
    });
    const recorded = await shiftClickAndLeave(page, ingest, sessionId);
    expect(recorded.map((m) => m.name).sort()).toEqual(['web_vital_fcp_ms', 'web_vital_ttfb_ms']);
  });
});

test.describe('navigation', () => {
  test('pushState, replaceState, popstate and hashchange become replay events with the URL and the new title', async ({
    page,
    ingest,
  }) => {
    const { sessionId } = await openPage(page, ingest);
    await page.evaluate(() => {
      history.pushState({}, '', '/products/42');
      // A single-page app sets the title when the new view renders, after pushState.
      void Promise.resolve().then(() => {
        document.title = 'Product 42';
      });
    });
    await waitForNavigations(page, ingest, sessionId, 1);
    await page.evaluate(() => {
      // State only, same URL: not a navigation.
      history.replaceState({ scroll: 10 }, '');
      history.replaceState({}, '', '/products/42?tab=reviews');
      document.title = 'Reviews';
    });
    await waitForNavigations(page, ingest, sessionId, 2);
    await page.evaluate(() => {
      location.hash = '#top';
    });
    await waitForNavigations(page, ingest, sessionId, 3);
    await page.goBack();
    await waitForNavigations(page, ingest, sessionId, 4);
    await page.evaluate(() => {
      history.pushState({}, '', '/a');
      history.pushState({}, '', '/b');
    });
    const navigations = await waitForNavigations(page, ingest, sessionId, 6);

    const base = origin.origin;
    expect(navigations).toEqual([
      { url: `${base}/products/42`, title: 'Product 42', trigger: 'pushState' },
      { url: `${base}/products/42?tab=reviews`, title: 'Reviews', trigger: 'replaceState' },
      { url: `${base}/products/42?tab=reviews#top`, title: 'Reviews', trigger: 'popstate' },
      { url: `${base}/products/42?tab=reviews`, title: 'Reviews', trigger: 'popstate' },
      { url: `${base}/a`, title: 'Reviews', trigger: 'pushState' },
      { url: `${base}/b`, title: 'Reviews', trigger: 'pushState' },
    ]);
    expect(await page.evaluate(() => document.title)).not.toBe(SIGNALS_PAGE_TITLE);
  });

  test('shutdown removes the history patch and records the pending navigation; later changes are not recorded', async ({
    page,
    ingest,
  }) => {
    const { sessionId } = await openPage(page, ingest);
    const result = await page.evaluate(async () => {
      // The navigation signal's wrappers: nothing else patches history.
      const patched = { push: history.pushState, replace: history.replaceState };
      const wasPatched =
        patched.push !== History.prototype.pushState && patched.replace !== History.prototype.replaceState;
      history.pushState({}, '', '/pending');
      // The title of /pending is not read yet (it waits for a frame): shutdown records the navigation as it is.
      await window.sdk.shutdown();
      history.pushState({}, '', '/after-shutdown');
      location.hash = '#after';
      return {
        wasPatched,
        native:
          history.pushState === History.prototype.pushState && history.replaceState === History.prototype.replaceState,
      };
    });
    expect(result).toEqual({ wasPatched: true, native: true });
    // shutdown() resolved after sending the timeline's last events; a stopped timeline sends nothing more.
    expect(await waitForNavigations(page, ingest, sessionId, 1)).toEqual([
      { url: `${origin.origin}/pending`, title: SIGNALS_PAGE_TITLE, trigger: 'pushState' },
    ]);
  });
});

import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { build } from 'esbuild';
import type { LogItem, MetricItem, TelemetryItem } from '../../src/pipeline/items';
import { html, js, startStaticOrigin, type StaticOrigin } from './support/static-origin';
import { APP_JS, APP_THROW_COLUMN, APP_THROW_LINE, SIGNALS_PAGE_TITLE, signalsPageHtml } from './support/signals-page';

/**
 * The signal modules (src/signals) in real Chromium, on a minimal core whose queue is an array in the page
 * (test/e2e/support/signals-harness.ts): each record is asserted exactly as the signal made it. The same signals
 * through the real SDK, pipeline and reference server are tested in sdk-signals.spec.ts.
 */

let origin: StaticOrigin;

test.beforeAll(async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('./support/signals-harness.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
  });
  const page = html(signalsPageHtml(['/harness.js']));
  origin = await startStaticOrigin({ '/harness.js': js(bundle.outputFiles[0]!.text), '/app.js': js(APP_JS) }, page);
});

test.afterAll(async () => {
  await origin?.close();
});

interface ConsoleLine {
  type: string;
  text: string;
}

/** Opens the page, records what its console printed and its uncaught errors, and starts the signals. */
async function openPage(page: Page, options: Record<string, unknown> = {}, path = '/') {
  const consoleLines: ConsoleLine[] = [];
  const pageErrors: string[] = [];
  page.on('console', (message) => consoleLines.push({ type: message.type(), text: message.text() }));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(origin.origin + path);
  await page.evaluate((opts) => window.__svc.start(opts), options);
  return { consoleLines, pageErrors };
}

const items = (page: Page): Promise<TelemetryItem[]> => page.evaluate(() => window.__svcItems);
const logs = async (page: Page): Promise<LogItem[]> => (await items(page)).filter((i): i is LogItem => i.kind === 'log');
const metrics = async (page: Page): Promise<MetricItem[]> =>
  (await items(page)).filter((i): i is MetricItem => i.kind === 'metric' && !i.name.startsWith('web_vital_'));
const logWithBody = async (page: Page, body: string | RegExp): Promise<LogItem[]> =>
  (await logs(page)).filter((l) => (typeof body === 'string' ? l.body === body : body.test(l.body)));

test.describe('logs', () => {
  test('five levels, session id, converted attributes, context session and active trace', async ({ page }) => {
    await openPage(page);
    const sessionId = await page.evaluate(() => window.__svc.sessionId);
    expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
    await page.evaluate(() => {
      const { logger } = window.__svc;
      for (const level of ['debug', 'info', 'warn', 'error', 'fatal'] as const) logger!.log(level, `${level} message`);
      const cyclic: Record<string, unknown> = { name: 'loop' };
      cyclic.self = cyclic;
      logger!.log('info', 'with attrs', {
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
      logger!.log('warn', 'other session', { sessionId: 'other-session' });
      window.__svc.withSpan('0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', () => logger!.log('info', 'in a span'));
    });

    const all = await logs(page);
    expect(all.slice(0, 5).map((l) => [l.level, l.body])).toEqual([
      ['debug', 'debug message'],
      ['info', 'info message'],
      ['warn', 'warn message'],
      ['error', 'error message'],
      ['fatal', 'fatal message'],
    ]);
    for (const log of all.slice(0, 5)) {
      expect(log).toMatchObject({ kind: 'log', sessionId, attributes: { 'session.id': sessionId } });
      expect(log.traceId).toBeUndefined();
      expect(Math.abs(log.timeMs - Date.now())).toBeLessThan(60_000);
    }

    const [withAttrs] = await logWithBody(page, 'with attrs');
    const attributes = withAttrs!.attributes;
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

    const [other] = await logWithBody(page, 'other session');
    expect(other).toMatchObject({ sessionId: 'other-session', attributes: { 'session.id': 'other-session' } });

    const [inSpan] = await logWithBody(page, 'in a span');
    expect(inSpan).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' });
  });

  test('bad input never throws: unknown level logged as info with a debug warning, other messages rendered', async ({ page }) => {
    const { consoleLines, pageErrors } = await openPage(page);
    await page.evaluate(() => {
      const log = window.__svc.logger!.log as (level: unknown, message: unknown, context?: unknown) => void;
      log('loud', 'bad level');
      log('info', { not: 'a string' });
      log('info', 42);
      log('info', 'context is not an object', 'nope');
      log('info', 'attrs is not an object', { attrs: 'nope', sessionId: 7 });
    });
    const all = await logs(page);
    expect(all.map((l) => [l.level, l.body])).toEqual([
      ['info', 'bad level'],
      ['info', '{"not":"a string"}'],
      ['info', '42'],
      ['info', 'context is not an object'],
      ['info', 'attrs is not an object'],
    ]);
    const sessionId = await page.evaluate(() => window.__svc.sessionId);
    expect(all[4]!.sessionId).toBe(sessionId);
    const warnings = consoleLines.filter((l) => l.type === 'warning' && l.text.startsWith('[svc] ')).map((l) => l.text);
    expect(warnings).toEqual([
      expect.stringContaining('unknown level "loud"'),
      expect.stringContaining('the context must be an object'),
      expect.stringContaining('context.sessionId must be a non-empty string'),
      expect.stringContaining('context.attrs must be an object'),
    ]);
    // The SDK's own diagnostics went through the original console: none of them became a log.
    expect(all.some((l) => l.body.includes('[svc]'))).toBe(false);
    expect(pageErrors).toEqual([]);
  });
});

test.describe('SDK failures', () => {
  test('a failing SDK never throws into the app, and its own error reports are neither forwarded nor captured', async ({ page }) => {
    const { consoleLines, pageErrors } = await openPage(page);
    const thrown = await page.evaluate(() => {
      window.__svcBreakQueue = true;
      const calls: Array<() => void> = [
        () => window.__svc.logger!.log('info', 'lost'),
        () => window.__svc.logger!.captureException(new Error('lost')),
        () => window.__svc.metric!('lost', 1),
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
      window.__svcBreakQueue = false;
      window.__svc.logger!.log('info', 'recorded again');
      return errors;
    });
    expect(thrown).toEqual([]);
    expect((await logs(page)).map((l) => l.body)).toEqual(['recorded again']);
    const reports = consoleLines.filter((l) => l.type === 'error' && l.text.startsWith('[svc] ')).map((l) => l.text);
    expect(reports).toEqual([
      expect.stringMatching(/^\[svc\] log\(\) failed Error: queue broken on purpose/),
      expect.stringMatching(/^\[svc\] captureException\(\) failed Error: queue broken on purpose/),
      expect.stringMatching(/^\[svc\] metric\(\) failed Error: queue broken on purpose/),
      expect.stringMatching(/^\[svc\] log\(\) failed Error: queue broken on purpose/),
    ]);
    expect(consoleLines.some((l) => l.type === 'warning' && l.text === 'printed, not recorded')).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});

test.describe('captureException', () => {
  test('errors, strings and other values; an error object is recorded once', async ({ page }) => {
    await openPage(page);
    await page.evaluate(() => {
      const { logger } = window.__svc;
      const root = new RangeError('root cause');
      const error = new TypeError('outer failure', { cause: root });
      logger!.captureException(error, { attrs: { orderId: 'o-1' } });
      logger!.captureException(error);
      logger!.captureException('plain string');
      logger!.captureException({ code: 42 });
      logger!.captureException(undefined);
      class EmptyError extends Error {}
      logger!.captureException(new EmptyError());
    });
    const all = await logs(page);
    expect(all.map((l) => [l.level, l.body])).toEqual([
      ['error', 'TypeError: outer failure'],
      ['error', 'Error: plain string'],
      ['error', 'Error: {"code":42}'],
      ['error', 'Error: undefined'],
      ['error', 'Error'],
    ]);
    const [typeError, plain] = all;
    expect(typeError!.attributes).toMatchObject({
      orderId: 'o-1',
      'exception.type': 'TypeError',
      'exception.message': 'outer failure',
    });
    const stack = String(typeError!.attributes['exception.stacktrace']);
    expect(stack).toMatch(/^TypeError: outer failure\n\s+at /);
    expect(stack).toContain('\nCaused by: RangeError: root cause\n');
    expect(plain!.attributes).toMatchObject({ 'exception.type': 'Error', 'exception.message': 'plain string' });
    expect(plain!.attributes).not.toHaveProperty('exception.stacktrace');
  });
});

test.describe('uncaught errors and unhandled rejections', () => {
  test('logged at error with file, line and column, or with the rejection reason; resource errors ignored', async ({ page }) => {
    const { pageErrors } = await openPage(page);
    await page.evaluate(() => {
      (window as unknown as { throwUncaught(message: string): void }).throwUncaught('uncaught from app.js');
      void Promise.reject(new RangeError('rejected with an error'));
      void Promise.reject({ code: 42 });
      const image = document.createElement('img');
      image.src = '/not-an-image.png';
      document.body.append(image);
      // Captured by the app first, then thrown: recorded once.
      const seen = new Error('captured, then thrown');
      window.__svc.logger!.captureException(seen);
      setTimeout(() => {
        throw seen;
      }, 0);
    });
    await expect.poll(async () => (await logs(page)).length).toBe(4);
    const byBody = new Map((await logs(page)).map((l) => [l.body, l]));

    const uncaught = byBody.get('TypeError: uncaught from app.js');
    expect(uncaught).toMatchObject({
      level: 'error',
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
      level: 'error',
      attributes: { 'log.source': 'unhandledrejection', 'exception.type': 'RangeError' },
    });
    expect(byBody.get('Error: {"code":42}')).toMatchObject({
      level: 'error',
      attributes: { 'log.source': 'unhandledrejection', 'exception.message': '{"code":42}' },
    });
    expect(byBody.get('Error: captured, then thrown')?.attributes).not.toHaveProperty('log.source');
    // The image really failed (an error event on the element) and was not logged.
    expect(await page.evaluate(() => (document.querySelector('img') as HTMLImageElement).complete)).toBe(true);
    // Playwright reports unhandled rejections as page errors too (a plain object by its class name).
    expect(pageErrors.sort()).toEqual(['Object', 'captured, then thrown', 'rejected with an error', 'uncaught from app.js']);
  });
});

test.describe('console', () => {
  test('debug/info/warn/error forwarded at their level as the console shows them; the console still prints', async ({ page }) => {
    const { consoleLines } = await openPage(page);
    await page.evaluate(() => {
      console.debug('debug %s=%d%%', 'x', 42.9, 'tail');
      console.info('%cstyled', 'color: red', { a: 1, list: [1, 'two'] });
      console.warn('warned', new Error('inside a warning'));
      console.error(new SyntaxError('alone'));
      console.log('console.log is not captured');
      console.info('x'.repeat(20_000));
    });
    const all = await logs(page);
    expect(all.map((l) => [l.level, l.body.slice(0, 40)])).toEqual([
      ['debug', 'debug x=42% tail'],
      ['info', 'styled {"a":1,"list":[1,"two"]}'],
      ['warn', expect.stringMatching(/^warned Error: inside a warning\n\s+at /)],
      ['error', expect.stringMatching(/^SyntaxError: alone\n\s+at /)],
      ['info', 'x'.repeat(40)],
    ]);
    for (const log of all) expect(log.attributes['log.source']).toBe('console');
    expect(all[2]!.attributes).toMatchObject({ 'exception.type': 'Error', 'exception.message': 'inside a warning' });
    expect(all[4]!.body).toHaveLength(16_384);

    // Playwright reports each console call with its raw arguments: the console was called, with the same ones.
    const printed = consoleLines.map((l) => `${l.type}: ${l.text}`);
    expect(printed.slice(0, 5)).toEqual([
      expect.stringMatching(/^debug: debug %s=%d%% x 42(\.9)? tail$/),
      'info: %cstyled color: red {a: 1, list: Array(2)}',
      expect.stringMatching(/^warning: warned Error: inside a warning\n/),
      expect.stringMatching(/^error: SyntaxError: alone\n/),
      'log: console.log is not captured',
    ]);
  });

  test('same arguments and this reach the console; output made while recording is not forwarded again', async ({ page }) => {
    await page.goto(origin.origin);
    // A console wrapper installed by the app before the SDK: it sees what the SDK passes on.
    await page.evaluate(() => {
      const seen: unknown[] = [];
      (window as unknown as { seen: unknown[] }).seen = seen;
      const before = console.info;
      console.info = function (this: unknown, ...args: unknown[]) {
        seen.push({ self: this === console ? 'console' : this, args });
        return before.apply(console, args);
      };
    });
    const consoleLines: string[] = [];
    page.on('console', (message) => consoleLines.push(message.text()));
    await page.evaluate(() => window.__svc.start());
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
    expect((await logs(page)).map((l) => [l.level, l.body])).toEqual([
      ['info', 'one 2 {"three":3}'],
      ['info', 'with another this'],
      ['info', 'outer {"inner":1}'],
    ]);
    expect(consoleLines).toContain('inner, printed while the SDK reads the argument');
  });

  test('shutdown restores the console, unless something patched it later: then ours only passes calls on', async ({ page }) => {
    await page.goto(origin.origin);
    await page.evaluate(() => {
      (window as unknown as { before: Partial<Console> }).before = { debug: console.debug, info: console.info, warn: console.warn, error: console.error };
    });
    await page.evaluate(() => window.__svc.start());
    const result = await page.evaluate(() => {
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
      window.__svc.stop();
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
    expect(await logs(page)).toEqual([]);
  });
});

test.describe('metrics', () => {
  test('values recorded with unit, attributes and session; invalid points dropped with a warning', async ({ page }) => {
    const { consoleLines } = await openPage(page);
    const sessionId = await page.evaluate(() => window.__svc.sessionId);
    await page.evaluate(() => {
      const metric = window.__svc.metric! as (...args: unknown[]) => void;
      metric('checkout.duration', 12.5, 'ms', { attrs: { step: 'pay' } });
      metric('cart_items', 3);
      metric('', 1);
      metric('nan_value', NaN);
      metric('infinite', Infinity);
      metric('text_value', '5');
      metric('unit_not_text', 1, 5);
    });
    expect((await metrics(page)).map((m) => ({ name: m.name, value: m.value, unit: m.unit, attributes: m.attributes, sessionId: m.sessionId }))).toEqual([
      { name: 'checkout.duration', value: 12.5, unit: 'ms', attributes: { step: 'pay', 'session.id': sessionId }, sessionId },
      { name: 'cart_items', value: 3, unit: '', attributes: { 'session.id': sessionId }, sessionId },
      { name: 'unit_not_text', value: 1, unit: '', attributes: { 'session.id': sessionId }, sessionId },
    ]);
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

  test('validateSemanticMetrics warns once per non-canonical name, and records the points anyway', async ({ page }) => {
    const { consoleLines } = await openPage(page, { validateSemanticMetrics: true });
    await page.evaluate(() => {
      const { metric } = window.__svc;
      metric!('http.client.duration', 5, 'ms');
      metric!('page_load_ms', 5, 'ms');
      metric!('Checkout-Time', 5, 'ms');
      metric!('Checkout-Time', 6, 'ms');
      metric!('upload_bytes', 10, 'KB');
      metric!('render_ms', 5, 's');
      metric!('queue.depth', 5, '{item}');
    });
    expect((await metrics(page)).map((m) => m.name)).toEqual([
      'http.client.duration',
      'page_load_ms',
      'Checkout-Time',
      'Checkout-Time',
      'upload_bytes',
      'render_ms',
      'queue.depth',
    ]);
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
  /** Makes a layout shift and a slow interaction, then leaves the page so that it is hidden for good. */
  async function shiftClickAndLeave(page: Page): Promise<TelemetryItem[]> {
    await page.evaluate(() => (window as unknown as { shiftLayout(): void }).shiftLayout());
    // The shift must come well before the click: shifts within 500 ms after input do not count.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100))));
    await page.click('#slow');
    // Event timing entries are delivered after the next paint.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.goto(`${origin.origin}/next`);
    const previous = await page.evaluate(() => window.__svcPrevious);
    expect(previous, 'the first page saved its records on pagehide').not.toBeNull();
    return previous!.items;
  }

  test('FCP, LCP, CLS, INP and TTFB with their names, units and attributes', async ({ page }) => {
    await openPage(page);
    const recorded = (await shiftClickAndLeave(page)).filter((i): i is MetricItem => i.kind === 'metric');
    const byName = new Map(recorded.map((m) => [m.name, m]));
    expect([...byName.keys()].sort()).toEqual(['web_vital_cls', 'web_vital_fcp_ms', 'web_vital_inp_ms', 'web_vital_lcp_ms', 'web_vital_ttfb_ms']);
    expect(recorded).toHaveLength(5);
    const units = Object.fromEntries(recorded.map((m) => [m.name, m.unit]));
    expect(units).toEqual({ web_vital_fcp_ms: 'ms', web_vital_lcp_ms: 'ms', web_vital_cls: '1', web_vital_inp_ms: 'ms', web_vital_ttfb_ms: 'ms' });
    for (const metric of recorded) {
      expect(metric.attributes).toMatchObject({
        'web_vital.rating': expect.stringMatching(/^(good|needs-improvement|poor)$/),
        'web_vital.navigation_type': 'navigate',
        'web_vital.id': expect.stringMatching(/^v\d+-/),
        'web_vital.delta': metric.value,
        'session.id': expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      expect(metric.value).toBeGreaterThanOrEqual(0);
    }
    expect(byName.get('web_vital_cls')!.value).toBeGreaterThan(0);
    expect(byName.get('web_vital_cls')!.attributes['web_vital.target']).toMatch(/shifting|button/);
    expect(byName.get('web_vital_inp_ms')!.value).toBeGreaterThanOrEqual(100);
    expect(byName.get('web_vital_inp_ms')!.attributes['web_vital.target']).toBe('button#slow.primary');
    expect(byName.get('web_vital_lcp_ms')!.attributes['web_vital.target']).toMatch(/^(body>p\.intro\.lead|h1#headline|div#shifting>p)$/);
  });

  test('nothing with vitals.enabled false, and nothing after shutdown', async ({ page }) => {
    await openPage(page, { vitals: { enabled: false } });
    expect((await shiftClickAndLeave(page)).filter((i) => i.kind === 'metric')).toEqual([]);

    await page.evaluate(() => window.__svc.start());
    await expect.poll(async () => (await items(page)).map((i) => (i as MetricItem).name).sort()).toEqual(['web_vital_fcp_ms', 'web_vital_ttfb_ms']);
    await page.evaluate(() => window.__svc.stop());
    const recorded = (await shiftClickAndLeave(page)).map((i) => (i as MetricItem).name).sort();
    expect(recorded).toEqual(['web_vital_fcp_ms', 'web_vital_ttfb_ms']);
  });
});

test.describe('navigation', () => {
  const replay = (page: Page) => page.evaluate(() => window.__svcReplay);

  test('pushState, replaceState, popstate and hashchange become replay events with the URL and the new title', async ({ page }) => {
    await openPage(page);
    await page.evaluate(() => {
      history.pushState({}, '', '/products/42');
      // A single-page app sets the title when the new view renders, after pushState.
      void Promise.resolve().then(() => {
        document.title = 'Product 42';
      });
    });
    await expect.poll(() => replay(page)).toHaveLength(1);
    await page.evaluate(() => {
      history.replaceState({ scroll: 10 }, '');
      history.replaceState({}, '', '/products/42?tab=reviews');
      document.title = 'Reviews';
    });
    await expect.poll(() => replay(page)).toHaveLength(2);
    await page.evaluate(() => {
      location.hash = '#top';
    });
    await expect.poll(() => replay(page)).toHaveLength(3);
    await page.goBack();
    await expect.poll(() => replay(page)).toHaveLength(4);
    await page.evaluate(() => {
      history.pushState({}, '', '/a');
      history.pushState({}, '', '/b');
    });
    await expect.poll(() => replay(page)).toHaveLength(6);

    const base = origin.origin;
    expect(await replay(page)).toEqual([
      { type: 'navigation', payload: { url: `${base}/products/42`, title: 'Product 42', trigger: 'pushState' } },
      { type: 'navigation', payload: { url: `${base}/products/42?tab=reviews`, title: 'Reviews', trigger: 'replaceState' } },
      { type: 'navigation', payload: { url: `${base}/products/42?tab=reviews#top`, title: 'Reviews', trigger: 'popstate' } },
      { type: 'navigation', payload: { url: `${base}/products/42?tab=reviews`, title: 'Reviews', trigger: 'popstate' } },
      { type: 'navigation', payload: { url: `${base}/a`, title: 'Reviews', trigger: 'pushState' } },
      { type: 'navigation', payload: { url: `${base}/b`, title: 'Reviews', trigger: 'pushState' } },
    ]);
    expect(await page.evaluate(() => document.title)).not.toBe(SIGNALS_PAGE_TITLE);
  });

  test('shutdown restores history and records the pending navigation; later changes are not recorded', async ({ page }) => {
    await openPage(page);
    const result = await page.evaluate(() => {
      const wasPatched = history.pushState !== History.prototype.pushState;
      history.pushState({}, '', '/pending');
      window.__svc.stop();
      history.pushState({}, '', '/after-shutdown');
      location.hash = '#after';
      return {
        wasPatched,
        restored: history.pushState === History.prototype.pushState && history.replaceState === History.prototype.replaceState,
      };
    });
    expect(result).toEqual({ wasPatched: true, restored: true });
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(await replay(page)).toEqual([
      { type: 'navigation', payload: { url: `${origin.origin}/pending`, title: SIGNALS_PAGE_TITLE, trigger: 'pushState' } },
    ]);
  });
});

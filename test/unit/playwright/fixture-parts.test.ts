import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../playwright/src/config';
import { handoffScript, relativeFile } from '../../../playwright/src/handoff';
import { injectScript } from '../../../playwright/src/inject';
import type { LogRecord } from '../../../playwright/src/records';
import { errorMessage, isError } from '../../../playwright/src/records';
import { flushBound, noteReachability, probeOnce } from '../../../playwright/src/reachability';
import { errorLink, formatFrame } from '../../../playwright/src/report';

const log = (over: Partial<LogRecord>): LogRecord => ({
  id: 1,
  session_id: 's1',
  time: '2026-01-01T00:00:02.500Z',
  severity_number: 9,
  severity_text: 'INFO',
  body: 'hello',
  attributes: {},
  ...over,
});

describe('@svc/playwright fixture parts', () => {
  it('options: use.svc over SVC_* variables; the read key before the control key; defaults', () => {
    const env = { SVC_URL: 'http://env/', SVC_INGEST_KEY: 'ing', SVC_READ_KEY: 'read', SVC_CONTROL_KEY: 'ctl' };
    expect(resolveOptions(undefined, env)).toEqual({
      url: 'http://env',
      ingestKey: 'ing',
      apiKey: 'read',
      inject: false,
      flushTimeoutMs: 5000,
      serviceName: 'web-app',
    });
    expect(
      resolveOptions(
        { url: 'https://svc.example.com//', apiKey: 'mine', flushTimeoutMs: -1, inject: true },
        { SVC_CONTROL_KEY: 'ctl' },
      ),
    ).toEqual({
      url: 'https://svc.example.com',
      ingestKey: undefined,
      apiKey: 'mine',
      inject: true,
      flushTimeoutMs: 5000,
      serviceName: 'web-app',
    });
  });

  it('handoff: file relative with forward slashes; no title can close an inline script', () => {
    expect(relativeFile('/repo', '/repo/e2e/cart/pay.spec.ts')).toBe('e2e/cart/pay.spec.ts');
    const script = handoffScript({
      runId: 'r',
      testId: 't',
      title: '</script><b>',
      titlePath: ['</script><b>'],
      file: 'a.spec.ts',
      line: 1,
      project: '',
      retry: 0,
      worker: 0,
    });
    expect(script).not.toContain('</script>');
    const window: { __SVC_TEST__?: { title: string } } = {};
    new Function('window', script)(window);
    expect(window.__SVC_TEST__?.title).toBe('</script><b>');
  });

  it('inject: SDK and recorder inline, then Svc.init with the ingest key and URL, top http(s) frame only', () => {
    const script = injectScript(
      'var Svc = { init(c) { globalThis.inited = c; } };//# sourceMappingURL=svc.min.js.map',
      '/* recorder */',
      { url: 'http://svc', ingestKey: 'k', serviceName: 'shop' },
    );
    const run = (location: { protocol: string }, top: boolean) => {
      const window: Record<string, unknown> = {};
      window.top = top ? window : {};
      const scope = { inited: undefined as unknown };
      new Function('window', 'location', 'globalThis', script)(window, location, scope);
      return scope.inited;
    };
    expect(run({ protocol: 'https:' }, true)).toEqual({ apiKey: 'k', ingestUrl: 'http://svc', serviceName: 'shop' });
    expect(run({ protocol: 'about:' }, true)).toBeUndefined();
    expect(run({ protocol: 'http:' }, false)).toBeUndefined();
  });

  it('errors: severity ERROR or an exception; the message with its type', () => {
    expect(isError(log({ severity_number: 17 }))).toBe(true);
    expect(isError(log({ attributes: { 'exception.type': 'TypeError' } }))).toBe(true);
    expect(isError(log({}))).toBe(false);
    expect(
      errorMessage(log({ attributes: { 'exception.type': 'TypeError', 'exception.message': 'x is undefined' } })),
    ).toBe('TypeError: x is undefined');
    expect(errorMessage(log({ body: { reason: 'boom' } }))).toBe('{"reason":"boom"}');
  });

  it('frames: the original place when a map matched, else where the browser ran it', () => {
    const frame = {
      function: 'Vf',
      url: 'https://shop/assets/index.js',
      line: 8,
      column: 1387,
      in_app: true,
      original: null,
    };
    expect(formatFrame(frame)).toBe('at Vf (https://shop/assets/index.js:8:1387)');
    expect(
      formatFrame({ ...frame, original: { file: 'src/cart.ts', line: 42, column: 13, function: 'applyCoupon' } }),
    ).toBe('at applyCoupon (src/cart.ts:42:13)');
  });

  it('replay link: at the error, in ms from the start of the replay', () => {
    const starts = new Map([['s1', Date.parse('2026-01-01T00:00:00.000Z')]]);
    expect(errorLink('http://svc', log({}), starts)).toBe('http://svc/session/s1?t=2500');
    expect(errorLink('http://svc', log({ session_id: 's2' }), starts)).toBe('http://svc/session/s2');
    expect(errorLink('http://svc', log({ session_id: null }), starts)).toBeUndefined();
  });

  it('flush bound: flushTimeoutMs while svc answers, a short wait once a flush found it unreachable, until one gets through', () => {
    expect(flushBound(5000)).toBe(5000);
    noteReachability({ timedOut: true });
    expect(flushBound(5000)).toBe(500);
    noteReachability({ sent: 0, failed: 0 });
    expect(flushBound(5000)).toBe(500);
    noteReachability({ sent: 2, failed: 0 });
    expect(flushBound(5000)).toBe(5000);
    noteReachability({ sent: 0, failed: 3 });
    expect(flushBound(200)).toBe(200);
    expect(flushBound(5000)).toBe(500);
    noteReachability({ sent: 1, failed: 1 });
    expect(flushBound(5000)).toBe(5000);
  });

  it("probe: once per worker, a refused health check marks svc unreachable before the first test's flush", async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    noteReachability({ sent: 1, failed: 0 });
    await probeOnce(undefined);
    expect(flushBound(5000)).toBe(5000);
    await probeOnce(`http://127.0.0.1:${closed}`);
    expect(flushBound(5000)).toBe(500);
    noteReachability({ sent: 1, failed: 0 });
    await probeOnce(`http://127.0.0.1:${closed}`);
    expect(flushBound(5000), 'probed once only').toBe(5000);
  });
});

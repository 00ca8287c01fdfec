import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve';
import type { BrowserSDKConfig } from '../../src/config/types';
import type { SdkCore } from '../../src/core/core';
import { sanitizeUrl } from '../../src/tracing/url';
import {
  followRequest,
  guarded,
  responseHeaderPairs,
  startRequest,
  type XhrRequest,
} from '../../src/tracing/xhr-request';

/**
 * The steps of one traced XMLHttpRequest (src/tracing/xhr-request.ts) on a real tracer provider and a stand-in
 * request: an EventTarget with the status, headers and response an XMLHttpRequest exposes after `loadend`. The hooks
 * around them, in Chromium with real requests: test/e2e/sdk-tracing.spec.ts and sdk-recipes.spec.ts.
 */

const INGEST = 'https://ingest.example.com';

/** The parts of the SDK core the steps read, with a resolved configuration; what they report is collected. */
function testCore(options: Partial<BrowserSDKConfig> = {}) {
  const events: Array<[type: string, payload: unknown]> = [];
  const errors: unknown[] = [];
  const config = resolveConfig({ apiKey: 'ingest-key', serviceName: 'shop-web', ...options } as BrowserSDKConfig);
  const core = {
    config,
    debug: { warn: () => undefined, error: (_message: string, error: unknown) => void errors.push(error) },
    isIngestUrl: (url: string) => url.startsWith(INGEST),
    replay: { replayId: 'replay-1', event: (type: string, payload: unknown) => void events.push([type, payload]) },
  };
  return { core: core as unknown as SdkCore, events, errors };
}

function testTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('test'), spans: () => exporter.getFinishedSpans() };
}

/** What settle reads of an XMLHttpRequest, on an EventTarget that the test fires `load`, `error`, `loadend` on. */
class StandInXhr extends EventTarget {
  status = 0;
  response: unknown = '';
  responseType = '';
  headers = '';
  getAllResponseHeaders(): string {
    return this.headers;
  }
  getResponseHeader(name: string): string | null {
    return responseHeaderPairs(this.headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
  }
  setRequestHeader(): void {}
  finish(outcome: string, status = 0): void {
    this.status = status;
    this.dispatchEvent(new Event(outcome));
    this.dispatchEvent(new Event('loadend'));
  }
}

function started(core: SdkCore, tracer: ReturnType<typeof testTracer>['tracer'], url: string): XhrRequest {
  const request = startRequest(core, tracer, ['post', url]);
  if (request === undefined) throw new Error(`${url} was not traced`);
  return request;
}

describe('startRequest', () => {
  it('opens a client span named after the method, with no headers yet and the event open', () => {
    const { core } = testCore();
    const { tracer, spans } = testTracer();
    const request = started(core, tracer, 'https://user:pw@shop.example.com/cart');
    expect(request.method).toBe('POST');
    expect(request.url.hostname).toBe('shop.example.com');
    expect(request.fullUrl).toBe(sanitizeUrl(request.url));
    expect(request.headers.size).toBe(0);
    expect(spans()).toEqual([]);
    request.span.end();
    expect(spans()[0]).toMatchObject({ name: 'POST', kind: SpanKind.CLIENT });
    expect(spans()[0]?.events.map((event) => event.name)).toEqual(['open']);
  });

  it('leaves the SDK’s own ingest URLs and URLs it cannot read untraced', () => {
    const { core } = testCore();
    const { tracer, spans } = testTracer();
    expect(startRequest(core, tracer, ['POST', `${INGEST}/otlp/v1/logs`])).toBeUndefined();
    expect(startRequest(core, tracer, ['GET', 'http://[bad'])).toBeUndefined();
    expect(spans()).toEqual([]);
  });
});

describe('followRequest', () => {
  it('ends the span at loadend with the status, the events open, send and loaded, and the attributes fetch spans have', () => {
    const { core } = testCore();
    const { tracer, spans } = testTracer();
    const xhr = new StandInXhr();
    const request = started(core, tracer, 'https://shop.example.com/cart?token=secret');
    followRequest(core, xhr as unknown as XMLHttpRequest, request, '{}');
    xhr.finish('load', 201);
    const [span] = spans();
    expect(span?.name).toBe('POST');
    expect(span?.events.map((event) => event.name)).toEqual(['open', 'send', 'loaded']);
    expect(span?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.method': 'POST',
      'url.full': request.fullUrl,
      'http.url': request.fullUrl,
      'server.address': 'shop.example.com',
      'server.port': 443,
      'http.response.status_code': 201,
      'http.status_code': 201,
      replay_id: 'replay-1',
    });
    expect(span?.attributes['error.type']).toBeUndefined();
    expect(span?.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('marks a 5xx and a network error as failed, with error.type the status or the end event', () => {
    const { core } = testCore();
    const { tracer, spans } = testTracer();
    const failing = new StandInXhr();
    followRequest(core, failing as unknown as XMLHttpRequest, started(core, tracer, 'https://a.example/x'), null);
    failing.finish('load', 503);
    const broken = new StandInXhr();
    followRequest(core, broken as unknown as XMLHttpRequest, started(core, tracer, 'https://a.example/y'), null);
    broken.finish('error');
    const [answered, lost] = spans();
    expect(answered?.attributes['error.type']).toBe('503');
    expect(answered?.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'HTTP 503' });
    expect(lost?.attributes['error.type']).toBe('error');
    expect(lost?.attributes['http.response.status_code']).toBeUndefined();
    expect(lost?.events.map((event) => event.name)).toEqual(['open', 'send', 'error']);
    expect(lost?.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'TypeError: network error' });
  });

  it('returns what ends the span when send() throws, and then stops listening', () => {
    const { core } = testCore();
    const { tracer, spans } = testTracer();
    const xhr = new StandInXhr();
    const abandon = followRequest(
      core,
      xhr as unknown as XMLHttpRequest,
      started(core, tracer, 'https://a.example/'),
      null,
    );
    abandon(new DOMException('wrong state', 'InvalidStateError'));
    xhr.finish('load', 200);
    expect(spans()).toHaveLength(1);
    expect(spans()[0]?.status.message).toContain('wrong state');
    expect(spans()[0]?.attributes['http.status_code']).toBe(0);
  });

  it('with replay enabled, puts a network event on the timeline; without, nothing', () => {
    for (const enabled of [true, false]) {
      const { core, events } = testCore({ replay: { enabled } });
      const { tracer } = testTracer();
      const xhr = new StandInXhr();
      xhr.headers = 'content-type: application/json\r\nx-id: 7';
      followRequest(core, xhr as unknown as XMLHttpRequest, started(core, tracer, 'https://a.example/z'), null);
      xhr.finish('load', 200);
      expect(events.map(([type]) => type)).toEqual(enabled ? ['network'] : []);
    }
  });
});

describe('guarded and responseHeaderPairs', () => {
  it('logs what a step throws instead of throwing into the app’s request', () => {
    const { core, errors } = testCore();
    const failure = new Error('boom');
    expect(() =>
      guarded(core, () => {
        throw failure;
      }),
    ).not.toThrow();
    expect(errors).toEqual([failure]);
  });

  it('reads raw response headers as trimmed pairs, skipping lines without a name', () => {
    expect(responseHeaderPairs('content-type: text/plain\r\nx-a:  1 \r\n: nameless\r\n\r\n')).toEqual([
      ['content-type', 'text/plain'],
      ['x-a', '1'],
    ]);
  });
});

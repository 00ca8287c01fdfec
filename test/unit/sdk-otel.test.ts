import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-web';
import { describe, expect, it } from 'vitest';
import { applyRequestRules, startInstrumentations, type OtelInstrumentation } from '../../src/otel/instrumentations';
import { spanRules } from '../../src/otel/span-rules';
import { prefixPattern, propagationPatterns } from '../../src/otel/targets';

/**
 * The pieces of `@svc/browser/otel` that need no browser: the SDK's propagation and ingest rules in the form the
 * official instrumentations take, written over an instrumentation's own configuration, and the span rules (replay id,
 * cleaned URLs) on a real tracer provider. In Chromium with the real instrumentations: test/e2e/sdk-otel.spec.ts.
 */

/** Tests a URL the way the instrumentations do (`urlMatches` of @opentelemetry/core: `url.match(pattern)`). */
const matches = (patterns: RegExp[], url: string): boolean => patterns.some((pattern) => url.match(pattern) !== null);

describe('propagationPatterns', () => {
  it('matches an origin string as an origin, never as a prefix of a longer host or a port', () => {
    const patterns = propagationPatterns(['https://api.example.com']);
    expect(matches(patterns, 'https://api.example.com')).toBe(true);
    expect(matches(patterns, 'https://api.example.com/orders?id=1')).toBe(true);
    expect(matches(patterns, 'https://api.example.com?q')).toBe(true);
    expect(matches(patterns, 'https://api.example.com.evil.net/')).toBe(false);
    expect(matches(patterns, 'https://api.example.com:8443/')).toBe(false);
    expect(matches(patterns, 'https://api.example.co/')).toBe(false);
    expect(matches(patterns, 'http://api.example.com/')).toBe(false);
  });

  it('keeps a RegExp, without the flags that would make every other test fail', () => {
    const sticky = /^https:\/\/[a-z]+\.example\.org\//gy;
    const [pattern] = propagationPatterns([sticky]);
    expect(pattern!.flags).toBe('');
    for (let i = 0; i < 3; i++) expect(matches([pattern!], 'https://cdn.example.org/a')).toBe(true);
    expect(matches([pattern!], 'https://example.org/a')).toBe(false);
    const [insensitive] = propagationPatterns([/API\.EXAMPLE\.NET/i]);
    expect(matches([insensitive!], 'https://api.example.net/')).toBe(true);
  });

  it('gives nothing for no origins: only same-origin requests get the headers', () => {
    expect(propagationPatterns([])).toEqual([]);
  });
});

describe('prefixPattern', () => {
  it('matches URLs under the prefix, its special characters taken literally', () => {
    const pattern = prefixPattern('https://ingest.example.com/otlp/');
    expect(matches([pattern], 'https://ingest.example.com/otlp/v1/traces')).toBe(true);
    expect(matches([pattern], 'https://ingestxexample.com/otlp/v1/traces')).toBe(false);
    expect(matches([pattern], 'https://app.example.com/?u=https://ingest.example.com/otlp/')).toBe(false);
  });
});

/** An instrumentation as `InstrumentationBase` behaves: it keeps the config it was given, enable/disable toggle. */
function fakeInstrumentation(config: Record<string, unknown>): OtelInstrumentation & { enabled: boolean } {
  let current: object = config;
  return {
    instrumentationName: '@opentelemetry/instrumentation-fetch',
    enabled: true,
    enable() {
      this.enabled = true;
    },
    disable() {
      this.enabled = false;
    },
    setTracerProvider: () => undefined,
    getConfig: () => current,
    setConfig: (next) => void (current = next),
  };
}

const rules = { propagateTraceHeaderCorsUrls: [/^https:\/\/api\.example\.com/], ignoreUrls: [/^https:\/\/ingest\//] };

describe('applyRequestRules', () => {
  it("keeps the app's options, adds the ingest to its ignoreUrls and sets the SDK's propagation targets", () => {
    const hook = () => undefined;
    const instrumentation = fakeInstrumentation({ ignoreUrls: ['https://health/'], applyCustomAttributesOnSpan: hook });
    const warnings: string[] = [];
    applyRequestRules(instrumentation, rules, (message) => warnings.push(message));
    expect(instrumentation.getConfig()).toEqual({
      ignoreUrls: ['https://health/', ...rules.ignoreUrls],
      applyCustomAttributesOnSpan: hook,
      propagateTraceHeaderCorsUrls: rules.propagateTraceHeaderCorsUrls,
    });
    expect(warnings).toEqual([]);
  });

  it("replaces the app's own propagateTraceHeaderCorsUrls, and says so", () => {
    const instrumentation = fakeInstrumentation({ propagateTraceHeaderCorsUrls: [/.*/] });
    const warnings: string[] = [];
    applyRequestRules(instrumentation, rules, (message) => warnings.push(message));
    expect(instrumentation.getConfig()).toMatchObject({
      propagateTraceHeaderCorsUrls: rules.propagateTraceHeaderCorsUrls,
    });
    expect(warnings).toEqual([expect.stringContaining('propagation.origins')]);
  });
});

describe('startInstrumentations', () => {
  it('moves each instrumentation onto the provider and enables it; the returned function disables them', () => {
    const provider = new BasicTracerProvider();
    const seen: unknown[] = [];
    const instrumentation = {
      ...fakeInstrumentation({ enabled: false }),
      setTracerProvider: (p: unknown) => seen.push(p),
    };
    instrumentation.enabled = false;
    const stop = startInstrumentations([instrumentation], provider);
    expect(seen).toEqual([provider]);
    expect(instrumentation.enabled).toBe(true);
    stop();
    expect(instrumentation.enabled).toBe(false);
  });
});

describe('spanRules', () => {
  function record(kind: SpanKind, attributes: Record<string, string>, late: Record<string, string> = {}) {
    const ended: ReadableSpan[] = [];
    const provider = new BasicTracerProvider({
      spanProcessors: [
        spanRules(() => 'replay-1'),
        {
          onStart: () => undefined,
          onEnd: (span) => void ended.push(span),
          forceFlush: () => Promise.resolve(),
          shutdown: () => Promise.resolve(),
        },
      ],
    });
    const span = provider.getTracer('test').startSpan('GET', { kind, attributes });
    span.setAttributes(late);
    span.end();
    return ended[0]!.attributes;
  }

  it('cleans URLs set at the start and at the end of a span, and gives request spans the replay id', () => {
    const attributes = record(
      SpanKind.CLIENT,
      { 'url.full': 'https://user:secret@api.example.com/a?Signature=abc&page=2' },
      { 'http.url': 'https://files.example.com/f?X-Goog-Signature=s' },
    );
    expect(attributes).toEqual({
      'url.full': 'https://api.example.com/a?Signature=REDACTED&page=2',
      'http.url': 'https://files.example.com/f?X-Goog-Signature=REDACTED',
      replay_id: 'replay-1',
    });
  });

  it('leaves other spans without a replay id and a value that is no URL as it is', () => {
    expect(record(SpanKind.INTERNAL, { 'url.full': 'not a url', event_type: 'click' })).toEqual({
      'url.full': 'not a url',
      event_type: 'click',
    });
  });
});

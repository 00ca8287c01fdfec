/**
 * The SDK's own tracer provider (src/tracing/tracer.ts) against OpenTelemetry's, side by side: the same calls on both
 * give spans that agree field by field (what `toSpanItem` and an OpenTelemetry exporter read), and an OpenTelemetry
 * `BatchSpanProcessor` takes ours.
 */
import {
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Span as ApiSpan,
  type Tracer,
} from '@opentelemetry/api';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-web';
import { describe, expect, it } from 'vitest';
import { createTracerProvider } from '../../src/tracing/tracer';

function collector(): { processor: SpanProcessor; started: ReadableSpan[]; ended: ReadableSpan[] } {
  const started: ReadableSpan[] = [];
  const ended: ReadableSpan[] = [];
  const processor: SpanProcessor = {
    onStart: (span) => void started.push(span as unknown as ReadableSpan),
    onEnd: (span) => void ended.push(span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  return { processor, started, ended };
}

/** Our provider and OpenTelemetry's, each with a collecting processor, sampling as `sampled` says. */
function pair(sampled = true) {
  const ours = collector();
  const theirs = collector();
  const provider = createTracerProvider({ processor: ours.processor, sampled: () => sampled, resource: {} });
  const reference = new BasicTracerProvider({
    spanProcessors: [theirs.processor],
    sampler: {
      shouldSample: () => ({ decision: sampled ? 2 : 0 }),
      toString: () => 'test',
    },
  });
  return {
    ours,
    theirs,
    both: (run: (tracer: Tracer) => void) => {
      run(provider.getTracer('scope', '1.0'));
      run(reference.getTracer('scope', '1.0'));
    },
  };
}

const ms = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;

/** What a span's consumers read, with times in ms (compared within a few ms: the two spans start at different times). */
function fields(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    traceFlags: span.spanContext().traceFlags,
    hasParent: span.parentSpanContext !== undefined,
    attributes: span.attributes,
    events: span.events.map((event) => ({
      name: event.name,
      attributes: event.attributes,
      dropped: event.droppedAttributesCount,
    })),
    links: span.links.map((link) => ({ attributes: link.attributes, dropped: link.droppedAttributesCount })),
    status: span.status,
    ended: span.ended,
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
    scope: [span.instrumentationScope.name, span.instrumentationScope.version],
  };
}

describe('the SDK tracer provider against OpenTelemetry`s', () => {
  it('records the same attributes, events, links, status and names, within the same limits', () => {
    const { ours, theirs, both } = pair();
    const many: Attributes = Object.fromEntries(Array.from({ length: 130 }, (_, index) => [`key${index}`, index]));
    const error = Object.assign(new Error('boom'), { name: 'TypeError' });
    both((tracer) => {
      const parent = tracer.startSpan('parent', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      const span = tracer.startSpan(
        'child',
        {
          kind: SpanKind.CLIENT,
          attributes: { 'a.string': 's', 'a.list': ['x', null, 'y'], mixed: ['x', 1] as never, '': 'no key' },
          links: [{ context: parent.spanContext(), attributes: many }],
        },
        trace.setSpan(ROOT_CONTEXT, parent),
      );
      span
        .setAttribute('number', 1)
        .setAttribute('undefined', undefined as never)
        .setAttributes(many);
      span.addEvent('plain');
      span.addEvent('with attributes', { one: 1, bad: {} as never });
      for (let index = 0; index < 130; index++) span.addEvent(`event ${index}`, many);
      span.recordException(error);
      span.recordException('a message');
      span.recordException({ code: 42 });
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
      span.setStatus({ code: SpanStatusCode.UNSET });
      span.updateName('renamed');
      span.end();
      // Changes after the end are ignored, and so is a second end.
      span.setAttribute('late', true).addEvent('late').updateName('late').setStatus({ code: SpanStatusCode.OK });
      span.end();
      parent.setStatus({ code: SpanStatusCode.OK });
      parent.setStatus({ code: SpanStatusCode.ERROR, message: 'after OK' });
      parent.end();
    });
    expect(ours.ended).toHaveLength(2);
    expect(theirs.ended).toHaveLength(2);
    for (const [index, span] of ours.ended.entries()) {
      const reference = theirs.ended[index]!;
      expect(fields(span)).toEqual(fields(reference));
      expect(span.parentSpanContext?.spanId).toBe(index === 0 ? ours.ended[1]!.spanContext().spanId : undefined);
      expect(ms(span.duration)).toBeGreaterThanOrEqual(0);
    }
  });

  it('places performance timestamps and epoch times as OpenTelemetry does', () => {
    const { ours, theirs, both } = pair();
    const origin = performance.timeOrigin;
    both((tracer) => {
      const fromPerformance = tracer.startSpan('performance', { startTime: 1 }, ROOT_CONTEXT);
      fromPerformance.addEvent('mark', 2);
      fromPerformance.end(3);
      const fromEpoch = tracer.startSpan('epoch', { startTime: Date.now() - 50 }, ROOT_CONTEXT);
      fromEpoch.addEvent('date', new Date(Date.now() - 20));
      fromEpoch.end([Math.floor(Date.now() / 1000), 0]);
      // An end before the start makes a span of no duration.
      const backwards = tracer.startSpan('backwards', { startTime: Date.now() }, ROOT_CONTEXT);
      backwards.end(Date.now() - 60_000);
    });
    for (const [index, span] of ours.ended.entries()) {
      const reference = theirs.ended[index]!;
      expect(ms(span.startTime)).toBeCloseTo(ms(reference.startTime), -2);
      expect(ms(span.endTime)).toBeCloseTo(ms(reference.endTime), -2);
      expect(ms(span.duration)).toBeCloseTo(ms(reference.duration), -1);
      expect(span.events.map((event) => ms(event.time))).toEqual(
        reference.events.map((event) => expect.closeTo(ms(event.time), -2) as unknown),
      );
    }
    expect(ms(ours.ended[0]!.startTime)).toBeCloseTo(origin + 1, -2);
    expect(ours.ended[2]!.duration).toEqual([0, 0]);
    expect(ours.ended[2]!.endTime).toEqual(ours.ended[2]!.startTime);
  });

  it('gives an unsampled session non-recording spans that carry flags 00, and suppressed tracing no span', () => {
    const { ours, both } = pair(false);
    const spans: ApiSpan[] = [];
    both((tracer) => {
      const parent = tracer.startSpan('parent', {}, ROOT_CONTEXT);
      spans.push(parent, tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, parent)));
    });
    expect(ours.started).toEqual([]);
    const [parent, child, referenceParent] = spans;
    expect(parent!.isRecording()).toBe(false);
    expect(parent!.spanContext().traceFlags).toBe(TraceFlags.NONE);
    expect(referenceParent!.spanContext().traceFlags).toBe(TraceFlags.NONE);
    expect(child!.spanContext().traceId).toBe(parent!.spanContext().traceId);

    const sampled = pair(true);
    const suppressed = ROOT_CONTEXT.setValue(createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING'), true);
    sampled.both((tracer) => void tracer.startSpan('suppressed', {}, suppressed).end());
    expect(sampled.ours.ended).toEqual([]);
    expect(sampled.theirs.ended).toEqual([]);
  });

  it('keeps one tracer per scope, and hands its spans to an OpenTelemetry BatchSpanProcessor and exporter', async () => {
    const exporter = new InMemorySpanExporter();
    const batch = new BatchSpanProcessor(exporter);
    const provider = createTracerProvider({
      processor: batch,
      sampled: () => true,
      resource: { 'service.name': 'web-app' },
    });
    expect(provider.getTracer('a', '1')).toBe(provider.getTracer('a', '1'));
    expect(provider.getTracer('a', '1')).not.toBe(provider.getTracer('a', '2'));
    const tracer = provider.getTracer('scope', '1.0', { schemaUrl: 'https://example.com/schema' });
    const result = tracer.startActiveSpan('active', (span) => {
      span.end();
      return 'returned';
    });
    expect(result).toBe('returned');
    await batch.forceFlush();
    const [exported] = exporter.getFinishedSpans();
    expect(exported?.name).toBe('active');
    expect(exported?.resource.attributes).toEqual({ 'service.name': 'web-app' });
    expect(exported?.instrumentationScope).toEqual({
      name: 'scope',
      version: '1.0',
      schemaUrl: 'https://example.com/schema',
    });
    await batch.shutdown();
  });
});

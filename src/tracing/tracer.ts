import {
  context,
  createContextKey,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type HrTime,
  type Link,
  type Span as ApiSpan,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-web';
import { randomHexId } from '../session/ids';

/**
 * The SDK's OpenTelemetry tracer provider: the part of `@opentelemetry/sdk-trace`'s `TracerProvider`, `Tracer` and
 * `Span` the SDK and the app's instrumentations use, for bundle size (about 4 KB min+gzip less, docs/sdk-build.md).
 * Spans keep OpenTelemetry's `ReadableSpan` shape, so `@opentelemetry/sdk-trace-web`'s processors and exporters take
 * them (the `/otel` entry), and its rules: attribute sanitizing, 128 attributes, events, links and attributes per
 * event or link (the oldest event or link dropped first), nothing changed after `end()`, performance timestamps
 * placed on the wall clock of the span's start, the suppress-tracing context key. What it leaves out: the `OTEL_*`
 * environment, span metrics, `diag` messages about misuse (the call is ignored as before) and a sampler interface
 * (one decision: is the session sampled).
 */
export interface TracerOptions {
  /** Sees every recorded span at its start and at its end. */
  readonly processor: SpanProcessor;
  /** Whether a new span is recorded and sampled; otherwise it only carries its context (flags 00). */
  readonly sampled: () => boolean;
  /** The resource attributes spans carry (read by exporters only). */
  readonly resource: Attributes;
}

type Resource = ReadableSpan['resource'];
type Scope = ReadableSpan['instrumentationScope'];

/** How many attributes, events, links and attributes per event or link a span keeps (OpenTelemetry's default). */
const LIMIT = 128;

/** `@opentelemetry/core`'s `suppressTracing` key: context keys are `Symbol.for(description)`, so equal by name. */
const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

function resourceOf(attributes: Attributes): Resource {
  const resource: Resource = {
    attributes,
    asyncAttributesPending: false,
    waitForAsyncAttributes: () => Promise.resolve(),
    getRawAttributes: () => Object.entries(attributes),
    merge: (other) => (other ? resourceOf({ ...attributes, ...other.attributes }) : resource),
  };
  return resource;
}

const PRIMITIVES = ['string', 'number', 'boolean'];

/** A primitive, or an array of one primitive type with `null`s allowed (OpenTelemetry's `isAttributeValue`). */
function isAttributeValue(value: unknown): value is AttributeValue {
  if (!Array.isArray(value)) return value == null || PRIMITIVES.includes(typeof value);
  let type: string | undefined;
  for (const entry of value as unknown[]) {
    if (entry == null) continue;
    if (type === undefined && PRIMITIVES.includes(typeof entry)) type = typeof entry;
    else if (typeof entry !== type) return false;
  }
  return true;
}

/**
 * At most {@link LIMIT} of `source`'s valid attributes (non-empty key, {@link isAttributeValue}), arrays copied, and
 * how many valid ones were over the limit.
 */
function limited(source: Attributes | undefined): [Attributes, number] {
  const kept: Attributes = {};
  let count = 0;
  let dropped = 0;
  for (const key in source) {
    const value = source[key];
    if (!Object.prototype.hasOwnProperty.call(source, key) || key === '' || !isAttributeValue(value)) continue;
    if (count === LIMIT) dropped++;
    else {
      kept[key] = Array.isArray(value) ? value.slice() : value;
      count++;
    }
  }
  return [kept, dropped];
}

const toHrTime = (ms: number): HrTime => {
  const seconds = Math.trunc(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
};
const toMs = ([seconds, nanos]: HrTime): number => seconds * 1000 + nanos / 1e6;
const isHrTime = (value: unknown): value is HrTime =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number';
const isTimeInput = (value: unknown): value is TimeInput =>
  typeof value === 'number' || value instanceof Date || isHrTime(value);

class SvcSpan implements Span {
  readonly attributes: Attributes = {};
  readonly links: Link[] = [];
  readonly events: TimedEvent[] = [];
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  readonly startTime: HrTime;
  endTime: HrTime = [0, 0];
  duration: HrTime = [-1, -1];
  ended = false;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  /** `performance.now()` at the start, and what to add to a performance timestamp to get epoch milliseconds. */
  private readonly startPerformance_: number;
  private readonly toEpoch_: number;
  private readonly startGiven_: boolean;

  constructor(
    public name: string,
    readonly kind: SpanKind,
    private readonly context_: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly resource: Resource,
    readonly instrumentationScope: Scope,
    private readonly processor_: SpanProcessor,
    options: SpanOptions,
    parent: Context,
  ) {
    const now = Date.now();
    this.startPerformance_ = performance.now();
    this.toEpoch_ = now - this.startPerformance_;
    const { startTime } = options;
    this.startGiven_ = startTime != null;
    for (const link of options.links || []) this.addLink(link);
    this.startTime = this.time_(startTime ?? now);
    if (options.attributes) this.setAttributes(options.attributes);
    processor_.onStart(this, parent);
  }

  spanContext(): SpanContext {
    return this.context_;
  }

  setAttribute(key: string, value?: AttributeValue): this {
    if (value == null || this.ended || key === '' || !isAttributeValue(value)) return this;
    const known = Object.prototype.hasOwnProperty.call(this.attributes, key);
    if (!known && Object.keys(this.attributes).length >= LIMIT) this.droppedAttributesCount++;
    else this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      if (Object.prototype.hasOwnProperty.call(attributes, key)) this.setAttribute(key, attributes[key]);
    }
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    if (isTimeInput(attributesOrTime)) {
      if (!isTimeInput(time)) time = attributesOrTime;
      attributesOrTime = undefined;
    }
    if (this.events.length >= LIMIT) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    const [attributes, droppedAttributesCount] = limited(attributesOrTime);
    this.events.push({ name, attributes, time: this.time_(time), droppedAttributesCount });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.links.length >= LIMIT) {
      this.links.shift();
      this.droppedLinksCount++;
    }
    const [attributes, dropped] = limited(link.attributes);
    const kept: Link = { context: link.context };
    if (Object.keys(attributes).length > 0) kept.attributes = attributes;
    if (dropped > 0) kept.droppedAttributesCount = dropped;
    this.links.push(kept);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    const end = this.time_(endTime);
    let seconds = end[0] - this.startTime[0];
    let nanos = end[1] - this.startTime[1];
    if (nanos < 0) {
      seconds--;
      nanos += 1e9;
    }
    // An end before the start (OpenTelemetry: "inconsistent start and end time") makes a span of no duration.
    this.endTime = seconds < 0 ? (this.startTime.slice() as HrTime) : end;
    this.duration = seconds < 0 ? [0, 0] : [seconds, nanos];
    const processor = this.processor_;
    if (processor.onEnding) processor.onEnding(this);
    this.ended = true;
    this.processor_.onEnd(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception) {
      const type = exception.code ? String(exception.code) : exception.name;
      if (type) attributes['exception.type'] = type;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
  }

  /**
   * A time input on the wall clock: a number up to `performance.now()` is a performance timestamp, moved by the
   * offset measured at the start (so a span's times stay consistent when the wall clock jumps); a larger one epoch
   * milliseconds; none is now, measured from the start with the monotonic clock unless the start time was given.
   */
  private time_(input: TimeInput | undefined): HrTime {
    if (typeof input === 'number') return toHrTime(input <= performance.now() ? input + this.toEpoch_ : input);
    if (input instanceof Date) return toHrTime(input.getTime());
    if (isHrTime(input)) return input;
    if (this.startGiven_) return toHrTime(Date.now());
    return toHrTime(toMs(this.startTime) + performance.now() - this.startPerformance_);
  }
}

class SvcTracer implements Tracer {
  constructor(
    private readonly scope_: Scope,
    private readonly resource_: Resource,
    private readonly options_: TracerOptions,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, parent: Context = context.active()): ApiSpan {
    if (options.root) parent = trace.deleteSpan(parent);
    if (parent.getValue(SUPPRESS_TRACING) === true) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentSpan = trace.getSpan(parent);
    const parentContext = parentSpan?.spanContext();
    const valid = parentContext && isSpanContextValid(parentContext) ? parentContext : undefined;
    const sampled = this.options_.sampled();
    const spanContext: SpanContext = {
      traceId: valid ? valid.traceId : randomHexId(16),
      spanId: randomHexId(8),
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: valid && valid.traceState,
    };
    if (!sampled) return trace.wrapSpanContext(spanContext);
    const kind = options.kind || SpanKind.INTERNAL;
    return new SvcSpan(
      name,
      kind,
      spanContext,
      valid,
      this.resource_,
      this.scope_,
      this.options_.processor,
      options,
      parent,
    );
  }

  /** `startActiveSpan(name, [options, [context,]] fn)`: `fn` runs with the new span active and gets it. */
  startActiveSpan<F extends (span: ApiSpan) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.pop() as (span: ApiSpan) => ReturnType<F>;
    const [options, parent = context.active()] = rest as [SpanOptions | undefined, Context | undefined];
    const span = this.startSpan(name, options, parent);
    return context.with(trace.setSpan(parent, span), fn, undefined, span);
  }
}

/** The provider: one tracer per scope name, version and schema URL, all on the same processor and sampling. */
export function createTracerProvider(options: TracerOptions): TracerProvider {
  const tracers = new Map<string, Tracer>();
  const resource = resourceOf(options.resource);
  return {
    getTracer(name, version, tracerOptions) {
      const schemaUrl = tracerOptions && tracerOptions.schemaUrl;
      const key = `${name}@${version || ''}:${schemaUrl || ''}`;
      let tracer = tracers.get(key);
      if (tracer === undefined) {
        tracer = new SvcTracer({ name, version, schemaUrl }, resource, options);
        tracers.set(key, tracer);
      }
      return tracer;
    },
  };
}

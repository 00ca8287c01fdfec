import { SpanKind } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-web';
import { resolveUrl, sanitizeUrl } from '../tracing/url';

/** Span attributes the official instrumentations put URLs in (old and stable HTTP semantic conventions). */
const URL_ATTRIBUTES = ['url.full', 'http.url'];

/** The URL the SDK would record: no `user:password@`, pre-signed signatures replaced (tracing/url.ts). */
function privateUrl(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const url = resolveUrl(value, globalThis.location?.href);
  return url === undefined ? value : sanitizeUrl(url);
}

/**
 * What the SDK's own request spans carry and the instrumentations' spans lack, applied on the SDK's tracer provider:
 * `replay_id` on client (request) spans, so the console links a request to the replay it happened in, and URLs
 * cleaned as the SDK cleans its own. The URLs are replaced once the span has ended, since an instrumentation or an app's
 * `applyCustomAttributesOnSpan` hook may set one until then; the SDK's processor runs this before it queues the span,
 * and an exporter's processor is added after this one, so no copy leaves with the raw URL.
 */
export function spanRules(replayId: () => string): SpanProcessor {
  return {
    onStart(span) {
      if (span.kind === SpanKind.CLIENT) span.setAttribute('replay_id', replayId());
    },
    onEnd(span) {
      // An ended span refuses setAttribute; its attributes object is still the one every processor reads.
      const attributes: Attributes = span.attributes;
      for (const name of URL_ATTRIBUTES) {
        if (attributes[name] !== undefined) attributes[name] = privateUrl(attributes[name]) as string;
      }
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}

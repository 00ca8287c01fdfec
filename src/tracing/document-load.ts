import { ROOT_CONTEXT, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { SdkCore } from '../core/core';

/** A navigation or resource timing entry, read by property name. */
type Timing = Record<string, number | undefined>;

const words = (text: string): string[] => text.split(' ');
/** Resource timing marks, one span event each (OpenTelemetry's `addSpanNetworkEvents`). */
const NETWORK_EVENTS = words(
  'fetchStart domainLookupStart domainLookupEnd connectStart secureConnectionStart connectEnd requestStart responseStart responseEnd',
);
/** Navigation timing marks on the `documentLoad` span. */
const PAGE_EVENTS = words(
  'fetchStart unloadEventStart unloadEventEnd domInteractive domContentLoadedEventStart domContentLoadedEventEnd domComplete loadEventStart loadEventEnd',
);
const PAINT_EVENTS: Record<string, string> = {
  'first-paint': 'firstPaint',
  'first-contentful-paint': 'firstContentfulPaint',
};

/** Adds an event per mark that is a number; zeros (a mark that did not happen) only when `zeros`. */
function addEvents(span: Span, names: string[], timing: Timing, zeros: boolean): void {
  for (const name of names) {
    const time = timing[name];
    if (typeof time === 'number' && (zeros || time !== 0)) span.addEvent(name, time);
  }
}

/** A `documentFetch` or `resourceFetch` span: from fetchStart to responseEnd, with the network marks and body sizes. */
function fetchSpan(tracer: Tracer, name: string, timing: Timing, url: string, parent: Context): void {
  const span = tracer.startSpan(name, { startTime: timing.fetchStart, attributes: { 'url.full': url } }, parent);
  // A navigation entry starts at 0, so its marks at 0 are real; a resource's 0 means "did not happen".
  addEvents(span, NETWORK_EVENTS, timing, timing.startTime === 0);
  const { encodedBodySize: encoded, decodedBodySize: decoded } = timing;
  if (encoded !== undefined) span.setAttribute('http.response_content_length', encoded);
  if (decoded !== undefined && decoded !== encoded)
    span.setAttribute('http.response_content_length_uncompressed', decoded);
  span.end(timing.responseEnd);
}

/** The spans of the page load, from the navigation and resource timing entries. */
function recordDocumentLoad(tracer: Tracer): void {
  const navigation = performance.getEntriesByType('navigation')[0] as unknown as Timing | undefined;
  if (navigation === undefined) return;
  const root = tracer.startSpan('documentLoad', {
    startTime: navigation.fetchStart,
    attributes: { 'url.full': location.href, 'user_agent.original': navigator.userAgent },
  });
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  fetchSpan(tracer, 'documentFetch', navigation, location.href, parent);
  for (const resource of performance.getEntriesByType('resource')) {
    fetchSpan(tracer, 'resourceFetch', resource as unknown as Timing, resource.name, parent);
  }
  addEvents(root, PAGE_EVENTS, navigation, false);
  for (const { name, startTime } of performance.getEntriesByType('paint')) {
    if (PAINT_EVENTS[name] !== undefined) root.addEvent(PAINT_EVENTS[name], startTime);
  }
  root.end(navigation.loadEventEnd);
}

/**
 * Traces the page load as OpenTelemetry's document-load instrumentation does: a `documentLoad` span (fetchStart to
 * loadEventEnd, with `url.full`, `user_agent.original`, the navigation marks and first paints as events) parenting a
 * `documentFetch` span for the page itself and a `resourceFetch` span per resource loaded so far, each with its
 * network marks as events and its body sizes. Recorded in the task after `load`, when loadEventEnd is set. Written
 * here rather than taken from `@opentelemetry/instrumentation-document-load` for bundle size (docs/sdk-build.md).
 */
export function traceDocumentLoad(core: SdkCore, tracer: Tracer): void {
  const record = (): void => {
    const timer = setTimeout(() => {
      try {
        recordDocumentLoad(tracer);
      } catch (error) {
        core.debug.error('could not trace the document load', error);
      }
    });
    core.teardown.add(() => clearTimeout(timer));
  };
  if (document.readyState === 'complete') record();
  else core.teardown.listen(window, 'load', record, { once: true });
}

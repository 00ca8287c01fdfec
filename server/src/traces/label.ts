import { pathOfUrl } from '../otlp/session-facts';

/** What the browser SDK names its page-load root span (OpenTelemetry's document-load instrumentation does the same). */
const DOCUMENT_LOAD = 'documentLoad';
/** An interaction span that changed the route is renamed so (OpenTelemetry's user-interaction instrumentation too). */
const NAVIGATION = 'Navigation: ';

type Attributes = Record<string, unknown>;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * What started a trace, in words, from its root span: "load /checkout" for a page load, "click on Pay" for an
 * interaction (the name the SDK read on the element, `target.name`, else its tag), "click on Cart → /cart" when it
 * changed the route, "GET /api/cart" for a request made outside any interaction. Any other span keeps its own name.
 */
export function traceLabel(name: string, attributes: unknown): string {
  const a = (typeof attributes === 'object' && attributes !== null ? attributes : {}) as Attributes;
  const path = pathOfUrl(a['url.full']);
  if (name === DOCUMENT_LOAD) return path === null ? 'page load' : `load ${path}`;
  const event = text(a['event_type']);
  if (event !== undefined) {
    const target = text(a['target.name']) ?? text(a['target_element'])?.toLowerCase() ?? 'the page';
    const to = name.startsWith(NAVIGATION) ? ` → ${name.slice(NAVIGATION.length)}` : '';
    return `${event} on ${target}${to}`;
  }
  const method = text(a['http.request.method']) ?? text(a['http.method']);
  if (method !== undefined && path !== null) return `${method} ${path}`;
  return name;
}

interface SpanLike {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  attributes: unknown;
}

/**
 * A trace's root among its spans in start order, as the trace summary keeps it (traces/summary.ts): the first that names
 * no parent, else the first.
 */
export function rootSpanOf<S extends SpanLike>(spans: readonly S[]): S {
  return spans.find((s) => s.parent_span_id === null) ?? spans[0]!;
}

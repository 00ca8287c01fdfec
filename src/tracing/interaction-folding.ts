import type { ReadableSpan } from '@opentelemetry/sdk-trace-web';

const USER_INTERACTION_SCOPE = '@opentelemetry/instrumentation-user-interaction';
/** Interaction spans remembered to recognise their nested twins; listeners of one event run within one task. */
const REMEMBERED = 256;

/**
 * One span per user interaction. OpenTelemetry's user-interaction instrumentation starts a span for every listener an
 * event reaches, each nested in the previous: a click in a React app reaches React's capture and bubble root
 * listeners and rrweb's, and becomes three nested `click` spans. The nested ones (same event type, same target,
 * parent an interaction span) are dropped, and whatever they parented (the fetch a handler made) is re-parented to
 * the outermost one, so the trace keeps every request under the click that caused it.
 */
export interface InteractionFolding {
  /** True when `span` is a nested twin that must not be sent. */
  fold(span: ReadableSpan): boolean;
  /** The parent span id to send: the outermost interaction span in place of a folded one. */
  parentOf(spanId: string | undefined): string | undefined;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value as string);
}

export function createInteractionFolding(): InteractionFolding {
  /** Sent interaction spans by id: their event type and target, to recognise a nested twin. */
  const interactions = new Map<string, string>();
  /** Folded span id → the outermost interaction span id. */
  const folded = new Map<string, string>();
  return {
    fold(span) {
      if (span.instrumentationScope.name !== USER_INTERACTION_SCOPE) return false;
      const id = span.spanContext().spanId;
      const what = `${String(span.attributes['event_type'])} ${String(span.attributes['target_xpath'])}`;
      const parentId = span.parentSpanContext?.spanId;
      const outer = parentId === undefined ? undefined : (folded.get(parentId) ?? parentId);
      if (outer !== undefined && interactions.get(outer) === what) {
        remember(folded, id, outer);
        return true;
      }
      remember(interactions, id, what);
      return false;
    },
    parentOf: (spanId) => (spanId === undefined ? undefined : (folded.get(spanId) ?? spanId)),
  };
}

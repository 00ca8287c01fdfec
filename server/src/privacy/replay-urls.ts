import type { RecipeStep } from '../../../wire/replay';
import { EventType, isObject, readEvent } from '../replay/export/rrweb';
import { redactUrlValues } from './url-values';

/** Response and request headers whose value is a URL (a redirect's target, the page that sent the request). */
const URL_HEADERS = new Set(['location', 'content-location', 'referer']);

function redactUrlHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    out[name] = URL_HEADERS.has(name) ? redactUrlValues(value) : value;
  return out;
}

/** A recipe step with the sensitive query and fragment values of its URL and URL headers redacted. */
export function redactRecipeUrls(step: RecipeStep): RecipeStep {
  return {
    ...step,
    url: redactUrlValues(step.url),
    requestHeaders: redactUrlHeaders(step.requestHeaders),
    responseHeaders: redactUrlHeaders(step.responseHeaders),
  };
}

/** Redacts `holder[field]` in place when it is a URL with sensitive values; true when it changed. */
function redactField(holder: Record<string, unknown>, field: string): boolean {
  const value = holder[field];
  if (typeof value !== 'string') return false;
  const redacted = redactUrlValues(value);
  if (redacted === value) return false;
  holder[field] = redacted;
  return true;
}

/**
 * Redacts, in place, the URLs the SDK's replay events carry: each page load's `href` (rrweb Meta) and the `url` of its
 * custom events (network, network_error and navigation: wire/replay.ts REPLAY_EVENT_TAGS; an app event's too). True
 * when any changed, so that the caller re-encodes the chunk only then. The DOM snapshots' own attributes (links, image
 * sources) are not read.
 */
export function redactReplayEventUrls(events: readonly unknown[]): boolean {
  let changed = false;
  for (const raw of events) {
    const event = readEvent(raw);
    if (event?.type === EventType.Meta) changed = redactField(event.data, 'href') || changed;
    else if (event?.type === EventType.Custom && isObject(event.data.payload))
      changed = redactField(event.data.payload, 'url') || changed;
  }
  return changed;
}

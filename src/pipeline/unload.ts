import { API_KEY_QUERY_PARAM } from '../../wire/paths';
import { postBody, type SendResult, type Transport } from './transport';

/** What the page-unload path needs: the transport (with its keepalive budget) and `navigator.sendBeacon`. */
export interface UnloadRoute {
  readonly transport: Transport;
  readonly sendBeacon: ((url: string, data: BodyInit) => boolean) | undefined;
}

/** How a body left while the page was going away. */
export type HandOver =
  /** A keepalive fetch; its result arrives only if the page lives on (it is hidden, not closed). */
  | { readonly via_: 'keepalive'; readonly result_: Promise<SendResult> }
  /** Queued by the browser; a beacon reports nothing more. */
  | { readonly via_: 'beacon' }
  /** Neither was possible now (budget spent and the beacon refused): the caller keeps the records. */
  | { readonly via_: 'none' };

/** `url` with the ingest key as the `api_key` query parameter: a beacon cannot set headers. */
export function beaconUrl(url: string, apiKey: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${API_KEY_QUERY_PARAM}=${encodeURIComponent(apiKey)}`;
}

/**
 * Hands one body (at most ~60 KB) to the browser while the page is being hidden or unloaded. Synchronous up to the
 * point where the browser owns the request, because the page may be frozen as soon as the event handler returns.
 *
 * A keepalive `fetch` when the body fits the 64 KiB budget; otherwise `sendBeacon`, whose string body is sent as
 * `text/plain` (a CORS-safelisted request: no preflight) with the key in the URL. Chromium counts beacons against the
 * same quota, so there the beacon mostly helps when earlier requests have completed without the page having seen it
 * yet; other browsers budget beacons separately.
 */
export function handOver(route: UnloadRoute, url: string, body: string, bytes: number): HandOver {
  const { transport, sendBeacon } = route;
  if (bytes <= transport.budget_.available_)
    return { via_: 'keepalive', result_: postBody(transport, url, body, bytes, true) };
  try {
    if (sendBeacon && sendBeacon(beaconUrl(url, transport.apiKey), body)) return { via_: 'beacon' };
  } catch {
    // sendBeacon throws on URLs it cannot parse; the records are kept either way.
  }
  return { via_: 'none' };
}

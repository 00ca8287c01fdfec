import { isBodyPlaceholder, REDACTED, type RecipeStep } from '../../../../wire/replay';
import { requestRoute } from './recorded-url';

/** What the exported test answers one request with; status 0 replays a network error. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RecipeRouting {
  /** Recorded responses by request key (see {@link requestKey}), each key's in recorded order. */
  responses: Map<string, RecordedResponse[]>;
  /** Steps that cannot be served, and why: their requests go to the network when the test runs. */
  skipped: string[];
}

/** Headers that describe the bytes on the wire, not the recorded text: Playwright sets them for the body it sends. */
const WIRE_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding']);

/**
 * `GET /api/items?page` for a request on the recorded origin, `GET https://cdn.example/x.json` elsewhere (path and
 * parameter names, see requestRoute): the key the exported test computes for each request at run time, against its
 * base URL instead of the recorded origin.
 */
export function requestKey(method: string, url: string, origin: string): string {
  return `${method.toUpperCase()} ${requestRoute(url, origin)}`;
}

/** Groups a session's recipe steps (oldest first) into the responses the exported test serves. */
export function recipeRouting(steps: readonly RecipeStep[], origin: string): RecipeRouting {
  const responses = new Map<string, RecordedResponse[]>();
  const skipped: string[] = [];
  for (const step of steps) {
    const key = requestKey(step.method, step.url, origin);
    if (step.responseBodyTruncated) {
      skipped.push(`${key}: the response body was larger than the recording keeps`);
      continue;
    }
    // No body recorded (and not cut): the response had none.
    const body = step.responseBody ?? '';
    // A placeholder stands for bytes the recording does not hold: serving it would hand the page the wrong body.
    if (isBodyPlaceholder(body)) {
      skipped.push(`${key}: the response body is not text, so it was not recorded`);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(step.responseHeaders)) {
      if (value !== REDACTED && !WIRE_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    const list = responses.get(key) ?? [];
    list.push({ status: step.status, headers, body });
    responses.set(key, list);
  }
  return { responses, skipped };
}

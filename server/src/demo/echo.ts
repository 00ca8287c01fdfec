import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { readBody } from '../http/body';
import type { Services } from '../http/env';
import { z } from '@hono/zod-openapi';
import { invalid } from '../shared/domain-errors';
import { intParam } from '../http/schemas';

/** Longest `?delay=` the echo endpoint honours: enough to show a slow request, not enough to tie up a socket. */
export const MAX_ECHO_DELAY_MS = 10_000;

/** `?status=` and `?delay=`; any other parameter is echoed back. */
export const EchoQuery = z
  .object({
    status: intParam(200, 599).default(200).openapi({ description: 'Answer with this status (not 204, 205 or 304)' }),
    delay: intParam(0, MAX_ECHO_DELAY_MS).default(0).openapi({ description: 'Answer after this many ms' }),
  })
  .catchall(z.unknown());

/** Statuses whose response must have no body (Fetch standard). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * `GET|POST /demo/api/echo`: answers with the request line and every header received, so the demo page can show the
 * `traceparent` and session headers the SDK adds to same-origin requests. `?status=` (200-599, except the bodiless 204, 205 and 304) answers with that
 * status, to demonstrate failures; `?delay=` (ms) answers late, to demonstrate slow requests.
 */
export async function echo(
  c: Context,
  services: Services,
  { status, delay: delayMs }: { status: number; delay: number },
): Promise<Response> {
  if (NULL_BODY_STATUSES.has(status))
    throw invalid(`status ${status} cannot carry the echo body; use another`, 'invalid_request', { field: 'status' });
  const body = c.req.method === 'POST' ? await readBody(c, services.bodyLimit) : undefined;
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  return c.json(
    {
      method: c.req.method,
      path: c.req.path,
      query: c.req.query(),
      headers: c.req.header(),
      ...(body === undefined ? {} : { bodyBytes: body.byteLength }),
    },
    status as ContentfulStatusCode,
    { 'cache-control': 'no-store' },
  );
}

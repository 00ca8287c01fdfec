/**
 * `/api/echo`: answers with the request headers it received, so you can see the `traceparent` and `x-svc-session-id`
 * headers the SDK adds to same-origin requests.
 */
export const dynamic = 'force-dynamic';

export function GET(request: Request): Response {
  return Response.json(
    { method: request.method, url: request.url, headers: Object.fromEntries(request.headers) },
    { headers: { 'cache-control': 'no-store' } },
  );
}

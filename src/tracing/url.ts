/** Query parameters that carry signatures or keys in pre-signed URLs (OpenTelemetry semantic conventions' list). */
const SENSITIVE_QUERY_PARAMETERS = ['AWSAccessKeyId', 'Signature', 'sig', 'X-Goog-Signature'];

/** Resolves a request target against the page, the way fetch itself does; `undefined` when it cannot be parsed. */
export function resolveUrl(target: string, base: string | undefined): URL | undefined {
  try {
    return new URL(target, base);
  } catch {
    return undefined;
  }
}

/** The URL as telemetry may carry it: no `user:password@`, pre-signed URL signatures replaced. */
export function sanitizeUrl(url: URL): string {
  if (
    url.username === '' &&
    url.password === '' &&
    !SENSITIVE_QUERY_PARAMETERS.some((name) => url.searchParams.has(name))
  ) {
    return url.href;
  }
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  for (const name of SENSITIVE_QUERY_PARAMETERS)
    if (copy.searchParams.has(name)) copy.searchParams.set(name, 'REDACTED');
  return copy.href;
}

import { redactUrlValues } from '../../privacy/url-values';

/**
 * A recorded URL as the exported test writes it: a path (with query and fragment) when it is on the recorded app's
 * origin, so that the test can run against another base URL; the full URL when it is elsewhere. Query and fragment
 * values that look sensitive are redacted again, for sessions stored before ingest redacted them.
 */
export function relativeUrl(url: string, origin: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactUrlValues(url);
  }
  return redactUrlValues(parsed.origin === origin ? `${parsed.pathname}${parsed.search}${parsed.hash}` : parsed.href);
}

/**
 * What the exported test recognises a request by: its path (origin and path when it is not on the recorded origin) and
 * the names of its query parameters, sorted, never their values: `/api/search?q&session_token`. A value recorded in a
 * URL can then never end up in the test, and the test's run-time key (SERVE_RECORDED in ./emit.ts) computes the same.
 */
export function requestRoute(url: string, origin: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/[?#].*$/, '');
  }
  const where = parsed.origin === origin ? parsed.pathname : `${parsed.origin}${parsed.pathname}`;
  const names = [...new Set(parsed.searchParams.keys())].sort();
  return names.length === 0 ? where : `${where}?${names.join('&')}`;
}

/** The origin of an absolute URL, or undefined when it is not one. */
export function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * A recorded URL as the exported test writes it: a path (with query and, for pages, fragment) when it is on the
 * recorded app's origin, so that the test can run against another base URL; the full URL when it is elsewhere.
 */
export function relativeUrl(url: string, origin: string, keepFragment = true): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!keepFragment) parsed.hash = '';
  return parsed.origin === origin ? `${parsed.pathname}${parsed.search}${parsed.hash}` : parsed.href;
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

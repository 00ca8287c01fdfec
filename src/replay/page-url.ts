import { resolveUrl, sanitizeUrl } from '../tracing/url';
import { looksSensitive } from './sensitive';

/** What replaces a credential in a URL; the same word as `sanitizeUrl` uses for pre-signed URL signatures. */
const URL_REDACTED = 'REDACTED';

/**
 * A page address as a replay may carry it: what `sanitizeUrl` removes for telemetry (`user:password@`, pre-signed
 * URL signatures), plus every query or fragment parameter whose name looks like a credential (`?token=…`,
 * `#access_token=…` of OAuth implicit flows, `?api_key=…`, password-reset links). The rest of the address is kept
 * byte for byte when nothing had to be replaced.
 */
export function sanitizePageUrl(href: string): string {
  const url = resolveUrl(href, undefined);
  if (url === undefined) return href;
  const clean = new URL(sanitizeUrl(url));
  const query = redactParameters(clean.search.slice(1));
  if (query !== undefined) clean.search = query;
  const fragment = redactParameters(clean.hash.slice(1));
  if (fragment !== undefined) clean.hash = fragment;
  return clean.href;
}

/** The `name=value&…` string with credential values replaced, or undefined when it had none (or is no such list). */
function redactParameters(text: string): string | undefined {
  if (!text.includes('=')) return undefined;
  const parameters = new URLSearchParams(text);
  let changed = false;
  for (const name of new Set(parameters.keys())) {
    if (looksSensitive(name)) {
      parameters.set(name, URL_REDACTED);
      changed = true;
    }
  }
  return changed ? parameters.toString() : undefined;
}

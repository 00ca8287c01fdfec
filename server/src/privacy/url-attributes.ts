import { redactQueryValues, redactUrlValues } from './url-values';

/**
 * Attribute keys that hold a URL or a part of one: a segment `url`, `uri`, `href`, `target`, `referrer` or `location`
 * (`url.full`, `http.url`, `http.target`, `page.url`, `url.query`, `document.location`...). Fixed words, no nested
 * quantifiers: linear in the key.
 */
const URL_KEY = /(?:^|[._-])(?:url|uri|href|target|referr?er|location)(?:$|[._-])/i;
/** A value that is one absolute http(s) URL, whatever its key is called. */
const ABSOLUTE_URL = /^https?:\/\/\S+$/i;

/**
 * A string attribute value as ingest stores it: when the key names a URL (or the value is one), its query and fragment
 * values that look sensitive are redacted (./url-values.ts). `url.query` and `url.fragment` hold their part without
 * its `?` or `#`. Any other value is returned as it is.
 */
export function redactUrlAttribute(key: string, value: string): string {
  if (!/[?#=]/.test(value)) return value;
  if (!URL_KEY.test(key) && !ABSOLUTE_URL.test(value)) return value;
  if (key.endsWith('.query')) return redactQueryValues(value);
  if (key.endsWith('.fragment')) return redactUrlValues(`#${value}`).slice(1);
  return redactUrlValues(value);
}

const NAVIGATION = 'Navigation: ';

/** A span name that holds a page's URL (the interaction that changed route, `Navigation: /path#hash?query`), redacted. */
export function redactSpanName(name: string): string {
  return name.startsWith(NAVIGATION) ? `${NAVIGATION}${redactUrlValues(name.slice(NAVIGATION.length))}` : name;
}

/**
 * Page paths folded into route patterns, so per-page figures group `/products/1` and `/products/2` as
 * `/products/:id` without knowing the app's router: a segment that looks like an id becomes `:id`.
 */

export const ID_SEGMENT = ':id';

const NUMBER = /^\d+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Object ids, hashes: 12 or more hex digits. */
const LONG_HEX = /^[0-9a-f]{12,}$/i;
/** Tokens in base64 or base64url: 20 or more of their characters with both cases (slugs are lower case, words shorter). */
const BASE64ISH = /^(?=.*[a-z])(?=.*[A-Z])[A-Za-z0-9+_=-]{20,}$/;
/** Slugs and codes with digits among letters (`a1b2c3d4`, `order-2024-0042`), 8 characters or more. */
const MIXED = /^(?=.*\d)(?=.*[A-Za-z]).{8,}$/;

function isId(segment: string): boolean {
  return (
    NUMBER.test(segment) ||
    UUID.test(segment) ||
    LONG_HEX.test(segment) ||
    BASE64ISH.test(segment) ||
    MIXED.test(segment)
  );
}

/**
 * The route pattern of a URL path: id-like segments as `:id`, empty segments (`//`, a trailing slash) left out, and
 * `/` for the root. A query or fragment, should one be there, is not part of the path.
 */
export function routePattern(path: string): string {
  const bare = path.split(/[?#]/, 1)[0]!;
  const segments = bare.split('/').filter((s) => s !== '');
  return `/${segments.map((s) => (isId(s) ? ID_SEGMENT : s)).join('/')}`;
}

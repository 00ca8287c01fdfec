import { describe, expect, it } from 'vitest';
import { routePattern } from '../../server/src/shared/route-pattern';

describe('routePattern', () => {
  it('folds id-like segments into :id: numbers, UUIDs, long hex, base64-ish tokens, digits among letters from 8 characters', () => {
    const cases: Array<[string, string]> = [
      ['/products/1', '/products/:id'],
      ['/products/2', '/products/:id'],
      ['/orders/20240042/items/7', '/orders/:id/items/:id'],
      ['/u/3F2504E0-4F89-11D3-9A0C-0305E82C3301/edit', '/u/:id/edit'],
      ['/commits/9fceb02d0ae598e95dc970b74767f19372d61af8', '/commits/:id'],
      ['/objects/507f1f77bcf8', '/objects/:id'],
      ['/share/aGVsbG9Xb3JsZFRoaXNJcw', '/share/:id'],
      ['/share/dGhpc-IsX2Jhc2U2NHVybA', '/share/:id'],
      ['/s/a1b2c3d4', '/s/:id'],
      ['/blog/order-2024-0042', '/blog/:id'],
    ];
    for (const [path, pattern] of cases) expect(routePattern(path), path).toBe(pattern);
  });

  it('keeps words, slugs and short codes', () => {
    for (const path of [
      '/checkout/shipping',
      '/blog/how-to-brew-coffee',
      '/v2/items',
      '/docs/h1b2',
      '/cafe',
      '/settings/MyProfile',
      '/products/:id',
    ]) {
      expect(routePattern(path), path).toBe(path);
    }
  });

  it('normalises slashes: the root stays /, a trailing slash and empty segments go, a stray query or fragment is cut', () => {
    expect(routePattern('/')).toBe('/');
    expect(routePattern('')).toBe('/');
    expect(routePattern('/products/')).toBe('/products');
    expect(routePattern('/products//12/')).toBe('/products/:id');
    expect(routePattern('/search?q=42#top')).toBe('/search');
  });
});

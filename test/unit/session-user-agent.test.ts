import { describe, expect, it } from 'vitest';
import { parseUserAgent } from '../../server/src/sessions/user-agent';
import { pointPages, spanPages } from '../../server/src/otlp/session-facts';

/** Real user agents of current browsers, and what the sessions page should show for each. */
const CASES: [ua: string, browser: string, version: string | null, os: string, device: string][] = [
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'Chrome',
    '124',
    'Windows',
    'desktop',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'Chrome',
    '124',
    'macOS',
    'desktop',
  ],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36',
    'Chrome',
    '131',
    'Linux',
    'desktop',
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36',
    'Chrome',
    '124',
    'Android',
    'mobile',
  ],
  [
    'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.6312.118 Safari/537.36',
    'Chrome',
    '123',
    'Android',
    'tablet',
  ],
  [
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'Chrome',
    '124',
    'ChromeOS',
    'desktop',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
    'Chrome',
    '124',
    'iOS',
    'mobile',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:126.0) Gecko/20100101 Firefox/126.0',
    'Firefox',
    '126',
    'Windows',
    'desktop',
  ],
  [
    'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
    'Firefox',
    '125',
    'Linux',
    'desktop',
  ],
  ['Mozilla/5.0 (Android 14; Mobile; rv:126.0) Gecko/126.0 Firefox/126.0', 'Firefox', '126', 'Android', 'mobile'],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/126.0 Mobile/15E148 Safari/605.1.15',
    'Firefox',
    '126',
    'iOS',
    'mobile',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
    'Safari',
    '17',
    'macOS',
    'desktop',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    'Safari',
    '17',
    'iOS',
    'mobile',
  ],
  [
    'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
    'Safari',
    '16',
    'iOS',
    'tablet',
  ],
  // An app's WebView: WebKit without Safari's Version/ token.
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/604.1',
    'Safari',
    null,
    'iOS',
    'mobile',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51',
    'Edge',
    '124',
    'Windows',
    'desktop',
  ],
  [
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 EdgA/124.0.2478.64',
    'Edge',
    '124',
    'Android',
    'mobile',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) EdgiOS/124.2478.50 Version/17.0 Mobile/15E148 Safari/604.1',
    'Edge',
    '124',
    'iOS',
    'mobile',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 OPR/110.0.0.0',
    'Opera',
    '110',
    'Windows',
    'desktop',
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
    'Samsung Internet',
    '24',
    'Android',
    'mobile',
  ],
  ['curl/8.5.0', 'Other', null, 'Other', 'desktop'],
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Other', null, 'Other', 'desktop'],
];

describe('parseUserAgent', () => {
  it.each(CASES)('%s', (ua, browser, browserVersion, os, device) => {
    expect(parseUserAgent(ua)).toEqual({ browser, browserVersion, os, device });
  });

  it('gives nothing for an empty or oversized string', () => {
    expect(parseUserAgent('')).toBeNull();
    expect(parseUserAgent('   ')).toBeNull();
    expect(parseUserAgent(`Mozilla/5.0 ${'x'.repeat(1100)} Chrome/124.0`)).toBeNull();
  });
});

describe('page paths of records', () => {
  it('takes url.full of page loads and interactions, without query or fragment, and the target of a route change', () => {
    expect(spanPages('documentLoad', { 'url.full': 'https://shop.example.com/cart?id=7#top' })).toEqual(['/cart']);
    expect(spanPages('click', { event_type: 'click', 'url.full': 'https://shop.example.com/' })).toEqual(['/']);
    expect(
      spanPages('Navigation: /orders/9?tab=2', { event_type: 'click', 'url.full': 'https://shop.example.com/orders' }),
    ).toEqual(['/orders', '/orders/9']);
    // Percent-encoded as the URL parser gives it.
    expect(spanPages('documentLoad', { 'url.full': 'https://shop.example.com/caf\u00e9 menu' })).toEqual([
      '/caf%C3%A9%20menu',
    ]);
  });

  it('ignores requests, other schemes, malformed and oversized URLs', () => {
    expect(spanPages('HTTP GET', { 'url.full': 'https://api.example.com/items' })).toEqual([]);
    expect(spanPages('documentLoad', { 'url.full': 'file:///tmp/page.html' })).toEqual([]);
    expect(spanPages('documentLoad', { 'url.full': 'https://[bad' })).toEqual([]);
    expect(spanPages('documentLoad', { 'url.full': 42 })).toEqual([]);
    expect(spanPages('documentLoad', { 'url.full': `https://shop.example.com/${'a'.repeat(600)}` })).toEqual([]);
  });

  it('takes url.path of metric points', () => {
    expect(pointPages({ 'url.path': '/checkout' })).toEqual(['/checkout']);
    expect(pointPages({ 'url.path': 'checkout' })).toEqual([]);
    expect(pointPages({})).toEqual([]);
  });
});

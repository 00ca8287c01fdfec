import { describe, expect, it } from 'vitest';
import { redactSpanName, redactUrlAttribute } from '../../server/src/privacy/url-attributes';
import { redactUrlValues } from '../../server/src/privacy/url-values';
import { requestRoute } from '../../server/src/replay/export/recorded-url';
import { JWT, RANDOM_TOKEN, STRIPE_KEY } from '../support/secrets';

/**
 * The server's rules for values in URLs (server/src/privacy): query and fragment values redacted by value, with the
 * rules of recorded bodies, and by the parameter's name; names, paths and ordinary values kept.
 */

const R = '[REDACTED]';

describe('redactUrlValues: what goes, whatever the parameter is called', () => {
  it.each([
    ['a long random token', `https://shop.test/s?x=${RANDOM_TOKEN}&q=shoes`, `https://shop.test/s?x=${R}&q=shoes`],
    ['a JWT', `/s?a=${JWT}`, `/s?a=${R}`],
    ['a prefixed API key', `/s?k=${STRIPE_KEY}`, `/s?k=${R}`],
    ['an e-mail, percent-encoded', '/s?to=ada%40example.com&q=shoes', `/s?to=${R}&q=shoes`],
    ['a card number, + for spaces', '/s?n=4111+1111+1111+1111', `/s?n=${R}`],
    ['a value under a sensitive name', '/s?session_token=abc&apiKey=x1', `/s?session_token=${R}&apiKey=${R}`],
    ['an OAuth fragment', `/cb#access_token=${RANDOM_TOKEN}&state=ok`, `/cb#access_token=${R}&state=ok`],
    ['a hash route query', `/#/orders?k=${RANDOM_TOKEN}&tab=open`, `/#/orders?k=${R}&tab=open`],
    ['a bare fragment token', `/x#${JWT}`, `/x#${R}`],
  ])('%s', (_, url, expected) => {
    expect(redactUrlValues(url)).toBe(expected);
  });
});

describe('redactUrlValues: what stays', () => {
  it.each([
    'https://shop.test/search?q=shoes&page=2&id=42',
    '/events?from=2024-01-02T10:00:00Z&to=2024-01-03',
    '/orders?id=9f1c2d3e-aaaa-4bbb-8ccc-0123456789ab&trace=4bf92f3577b34da6a3ce929d0e0e4736',
    '/?sort=name_asc&redirect=%2Fhome&lang=en-US&utm_source=newsletter_spring_campaign_2024',
    '/docs#installation',
    '/?flag&empty=',
    `/users/${RANDOM_TOKEN}/profile`,
  ])('%s', (url) => {
    expect(redactUrlValues(url)).toBe(url);
  });
});

describe('URL attributes and span names', () => {
  it('redacts the attributes that hold a URL or a part of one, and any whole absolute URL', () => {
    expect(redactUrlAttribute('url.full', `https://a.test/?x=${RANDOM_TOKEN}`)).toBe(`https://a.test/?x=${R}`);
    expect(redactUrlAttribute('http.target', `/p?x=${RANDOM_TOKEN}`)).toBe(`/p?x=${R}`);
    expect(redactUrlAttribute('url.query', `x=${RANDOM_TOKEN}&q=shoes`)).toBe(`x=${R}&q=shoes`);
    expect(redactUrlAttribute('url.fragment', `x=${RANDOM_TOKEN}`)).toBe(`x=${R}`);
    expect(redactUrlAttribute('app.next', `https://a.test/?x=${RANDOM_TOKEN}`)).toBe(`https://a.test/?x=${R}`);
  });

  it('leaves text that is not a URL attribute alone, URLs inside it included', () => {
    const text = `fetch failed: https://a.test/?x=${RANDOM_TOKEN}`;
    expect(redactUrlAttribute('exception.message', text)).toBe(text);
    expect(redactUrlAttribute('note', 'a=b')).toBe('a=b');
  });

  it("redacts a navigation span's URL", () => {
    expect(redactSpanName(`Navigation: /p?x=${RANDOM_TOKEN}`)).toBe(`Navigation: /p?x=${R}`);
    expect(redactSpanName('click')).toBe('click');
  });

  it('redacts a long hostile query (linear patterns: no backtracking to time out on)', () => {
    const hostile = `/p?${'a=%%&'.repeat(20_000)}x=${'b'.repeat(50_000)}`;
    expect(redactUrlValues(hostile).length).toBeGreaterThan(0);
  });
});

describe('requestRoute: what an exported test matches a request by', () => {
  it('is the path and the sorted parameter names, never the values', () => {
    const url = `https://shop.test/api/search?session_token=${RANDOM_TOKEN}&q=shoes&q=boots`;
    expect(requestRoute(url, 'https://shop.test')).toBe('/api/search?q&session_token');
    expect(requestRoute('https://cdn.test/a.json?v=1', 'https://shop.test')).toBe('https://cdn.test/a.json?v');
    expect(requestRoute('https://shop.test/api/items', 'https://shop.test')).toBe('/api/items');
  });
});

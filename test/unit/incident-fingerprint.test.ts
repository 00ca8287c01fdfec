import { describe, expect, it } from 'vitest';
import { errorSignature, fingerprint, type RawError } from '../../server/src/incidents/detect/fingerprint';
import { normalizeMessage, redactMessage, splitTypePrefix } from '../../server/src/incidents/detect/normalize-message';
import { parseStack, stableFileName, topInAppFrame } from '../../server/src/incidents/detect/top-frame';

// Stacks as the browsers print them (Chrome 126, Firefox 127, Safari 17), under an SDK wrapper and an extension.
const CHROME = `TypeError: Cannot read properties of undefined (reading 'id')
    at wrapListener (https://cdn.example.net/svc/svc.min.js:1:20431)
    at chrome-extension://gighmmpiobklfepjocnamgkkbiglidom/content.js:12:99
    at renderCart (https://shop.example.com/assets/checkout.3f9a1c2b.js:42:17)
    at async loadCart (https://shop.example.com/assets/checkout.3f9a1c2b.js:88:5)
    at Array.forEach (<anonymous>)
    at HTMLButtonElement.onClick (https://shop.example.com/assets/app-DiwrgTda.js?v=7:12:3)`;

const FIREFOX = `wrapListener@https://cdn.example.net/svc/svc.min.js:1:20431
renderCart@https://shop.example.com/assets/checkout.3f9a1c2b.js:42:17
loadCart@https://shop.example.com/assets/checkout.3f9a1c2b.js:88:5
onClick@https://shop.example.com/assets/app-DiwrgTda.js:12:3`;

const SAFARI = `renderCart@https://shop.example.com/assets/checkout.3f9a1c2b.js:42:17
forEach@[native code]
global code@https://shop.example.com/:10:3`;

const raw = (message: string, stacktrace?: string, type?: string): RawError => ({ type, message, stacktrace });

describe('stack traces', () => {
  it('reads V8 frames, including anonymous, async and native ones', () => {
    expect(parseStack(CHROME).map((f) => `${f.fn} ${f.line}:${f.column}`)).toEqual([
      'wrapListener 1:20431',
      '<anonymous> 12:99',
      'renderCart 42:17',
      'loadCart 88:5',
      'HTMLButtonElement.onClick 12:3',
    ]);
  });

  it('reads Firefox and Safari frames', () => {
    expect(parseStack(FIREFOX).map((f) => f.fn)).toEqual(['wrapListener', 'renderCart', 'loadCart', 'onClick']);
    expect(parseStack(SAFARI).map((f) => `${f.fn}@${f.url}`)).toEqual([
      'renderCart@https://shop.example.com/assets/checkout.3f9a1c2b.js',
      'global code@https://shop.example.com/',
    ]);
  });

  it('takes the first frame of the app, past the SDK and browser extensions', () => {
    for (const stack of [CHROME, FIREFOX, SAFARI]) {
      expect(topInAppFrame(stack)).toMatchObject({
        fn: 'renderCart',
        file: 'checkout.js',
        line: 42,
        label: 'renderCart (checkout.js:42)',
      });
    }
  });

  it('ignores the frames of the causes the SDK appends', () => {
    const stack = `Error: checkout failed\nCaused by: TypeError: x is undefined\n    at parse (https://shop.example.com/a.js:1:1)`;
    expect(topInAppFrame(stack)).toBeNull();
  });

  it('keeps file names stable across deploys: no query, fragment, directories or content hash', () => {
    expect(stableFileName('https://shop.example.com/assets/checkout.3f9a1c2b.js?v=12#x')).toBe('checkout.js');
    expect(stableFileName('https://shop.example.com/assets/index-DiwrgTda.js')).toBe('index.js');
    expect(stableFileName('https://shop.example.com/_next/static/chunks/main-app.5b4a9c0e7f1d2a3b.js')).toBe(
      'main-app.js',
    );
    expect(stableFileName('https://shop.example.com/js/checkout-summary.js')).toBe('checkout-summary.js');
  });
});

describe('message normalisation', () => {
  it('replaces numbers, hex ids, UUIDs, quoted values, URLs, e-mail addresses and tokens', () => {
    expect(
      normalizeMessage(
        'Order 12345 for jane.doe@example.com failed at https://api.example.com/orders/12345?x=1: ' +
          'id 0x1f3a, request 9f86d081884c7d65 trace 3fa85f64-5717-4562-b3fc-2c963f66afa6 token eyJhbGciOiJIUzI1NiJ9abc123DEF "some user text"',
      ),
    ).toBe('Order <n> for <email> failed at <url> id <hex>, request <hex> trace <uuid> token <token> <str>');
  });

  it('keeps the quoted identifiers browsers put in messages', () => {
    expect(normalizeMessage("Cannot read properties of undefined (reading 'id')")).toBe(
      "Cannot read properties of undefined (reading 'id')",
    );
    expect(normalizeMessage("undefined is not an object (evaluating 'cart.items.length')")).toBe(
      "undefined is not an object (evaluating 'cart.items.length')",
    );
  });

  it('trims, collapses whitespace and caps long messages', () => {
    expect(normalizeMessage('  a\n\n b  ')).toBe('a b');
    const long = normalizeMessage('word '.repeat(100));
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('masks only personal and secret data for titles', () => {
    expect(redactMessage('Order 12345 for jane.doe@example.com at https://api.example.com/x')).toBe(
      'Order 12345 for <email> at <url>',
    );
  });

  it('reads the error type heading a message', () => {
    expect(splitTypePrefix('TypeError: x is undefined')).toEqual({ type: 'TypeError', message: 'x is undefined' });
    expect(splitTypePrefix('Uncaught (in promise) AbortError: aborted')).toEqual({
      type: 'AbortError',
      message: 'aborted',
    });
    expect(splitTypePrefix('Checkout: something odd').type).toBeUndefined();
  });
});

describe('fingerprints', () => {
  const key = (r: RawError, app = 'app_1', env = 'production') => fingerprint(app, env, errorSignature(r));

  it('takes the type from exception.type, else the message, else Error', () => {
    expect(errorSignature(raw('x is undefined', undefined, 'TypeError')).type).toBe('TypeError');
    expect(errorSignature(raw('RangeError: Invalid array length'))).toMatchObject({
      type: 'RangeError',
      message: 'Invalid array length',
    });
    expect(errorSignature(raw('checkout failed')).type).toBe('Error');
    // The SDK's log body repeats the type in front of the message; the two forms are one error.
    expect(key(raw('TypeError: x is undefined', CHROME, 'TypeError'))).toBe(
      key(raw('x is undefined', CHROME, 'TypeError')),
    );
  });

  it('is short, stable, and the same for every occurrence of one bug', () => {
    const first = key(raw('Failed to load cart 1234 for user 8c1e9f77-3b2a-4c6e-9d1f-0a2b3c4d5e6f', CHROME, 'Error'));
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(key(raw('Failed to load cart 99 for user 0b7d4c21-8e3f-4a9b-b2c1-d4e5f6a7b8c9', CHROME, 'Error'))).toBe(
      first,
    );
  });

  it('survives a redeploy that changes content hashes, queries and line numbers', () => {
    const redeployed = CHROME.replaceAll('checkout.3f9a1c2b.js:42:17', 'checkout.a7b8c9d0.js:57:3').replaceAll(
      '?v=7',
      '?v=8',
    );
    expect(key(raw('boom', redeployed, 'TypeError'))).toBe(key(raw('boom', CHROME, 'TypeError')));
  });

  it('tells apart different types, messages, frames, apps and environments', () => {
    const base = key(raw("Cannot read properties of undefined (reading 'id')", CHROME, 'TypeError'));
    const others = [
      key(raw("Cannot read properties of undefined (reading 'id')", CHROME, 'RangeError')),
      key(raw("Cannot read properties of undefined (reading 'name')", CHROME, 'TypeError')),
      key(
        raw(
          "Cannot read properties of undefined (reading 'id')",
          CHROME.replace('renderCart', 'renderTotals'),
          'TypeError',
        ),
      ),
      key(raw("Cannot read properties of undefined (reading 'id')", CHROME, 'TypeError'), 'app_2'),
      key(raw("Cannot read properties of undefined (reading 'id')", CHROME, 'TypeError'), 'app_1', 'staging'),
    ];
    expect(new Set([base, ...others]).size).toBe(6);
  });
});

import { describe, expect, it } from 'vitest';
import { looksRandom, redactBodyText, redactValues } from '../../src/replay/body-redact';
import { SHARED_HELPERS } from '../../src/replay/shared-helpers';
import { JWT, RANDOM_TOKEN, STRIPE_KEY, VISA } from '../support/secrets';

/**
 * Value redaction of recorded bodies (src/replay/body-redact.ts): what is removed whatever key it sits under (emails,
 * phone numbers, card numbers, JWTs, bearer tokens, API keys, long random strings) and, as much, what is kept (ids,
 * prices, years, dates, UUIDs, words, identifiers). The hooks that feed it run in Chromium (sdk-body-privacy.spec.ts).
 */

const R = '[REDACTED]';

describe('redactValues: what goes', () => {
  it.each([
    ['an email', 'write to ann.lee+shop@mail.example.co.uk today', `write to ${R} today`],
    ['an email in a path', '/users/bob@example.com/orders', `/users/${R}/orders`],
    ['an email after a form-like prefix', 'contact=bob@example.com', `contact=${R}`],
    ['a JWT', `token ${JWT} end`, `token ${R} end`],
    ['a bearer token', 'Authorization: Bearer abc123.def', `Authorization: Bearer ${R}`],
    ['a bearer token, any case', 'bearer Zm9vYmFy', `bearer ${R}`],
    ['a basic credential', 'Basic dXNlcjpwYXNz', `Basic ${R}`],
    ['a Stripe-style key', `key: ${STRIPE_KEY}`, `key: ${R}`],
    ['a short prefixed key', 'sk_test_4eC39HqL', R],
    ['a GitHub token', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a', R],
    ['a long random string', `secret ${RANDOM_TOKEN}!`, `secret ${R}!`],
    ['a base64 blob', 'dGhpcyBpcyBhIHRlc3Qgb2YgYmFzZTY0IGVuY29kaW5n', R],
    ['a card number with spaces', `card ${VISA} ok`, `card ${R} ok`],
    ['a card number with dashes', 'card 5555-5555-5555-4444.', `card ${R}.`],
    ['an international phone number', 'call +44 20 7946 0958 now', `call ${R} now`],
    ['an international phone number, compact', 'tel:+4915112345678', `tel:${R}`],
    ['a US phone number in parentheses', 'ring (555) 123-4567', `ring ${R}`],
    ['a US phone number with dashes', 'ring 555-123-4567', `ring ${R}`],
    ['a US phone number with dots', 'ring 555.123.4567', `ring ${R}`],
    ['a UK national number', 'office 020 7946 0958', `office ${R}`],
    ['a UK mobile', 'mobile 07700 900123', `mobile ${R}`],
    ['a French number', 'tél 01 23 45 67 89', `tél ${R}`],
  ])('%s', (_, text, expected) => {
    expect(redactValues(text, SHARED_HELPERS)).toBe(expected);
  });
});

describe('redactValues: what stays', () => {
  it.each([
    ['plain numbers: ids, prices, years, counts', 'order 123456789 costs 1299.99 in 2024, qty 3, id 5551234567'],
    ['timestamps', 'at 1732623000000 and 1732623000'],
    ['a Luhn-invalid 16-digit number', 'ref 4111 1111 1111 1112'],
    ['dates and times', 'due 2024-11-26, 26.11.2024, 01-02-2024 10:30, 11/26/2024'],
    ['a UUID', 'id 123e4567-e89b-12d3-a456-426614174000'],
    [
      'a SHA-256 hash and a trace id',
      'sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 trace 0af7651916cd43dd8448eb211c80319c',
    ],
    ['a traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'],
    [
      'long identifiers',
      'getUserProfileSettingsForAccount2024 order_2024_11_26_processing_summary_v2 customerSupportTicketEscalationPolicyV2',
    ],
    ['long words', 'internationalization_and_localization_settings'],
    ['an API path', '/api/v2/organizations/1234/projects/5678/issues?page=2'],
    ['a sentence about bearers', 'Bearer authentication uses a Basic plan'],
    ['an at-mention and a host without a dot', '@ann wrote to root@localhost'],
    ['arithmetic and versions', 'x+1 = 2, version 1.2.3, +5 points, +100.00 (0.5%)'],
    ['the marker itself', R],
  ])('%s', (_, text) => {
    expect(redactValues(text, SHARED_HELPERS)).toBe(text);
  });
});

describe('looksRandom', () => {
  it('tells random tokens from identifiers of the same length', () => {
    expect(looksRandom(RANDOM_TOKEN)).toBe(true);
    expect(looksRandom('AbCdEfGhIjKlMnOpQrStUvWxYz0123456789')).toBe(true);
    expect(looksRandom('ThisIsAVeryLongPascalCaseIdentifierName')).toBe(false);
    expect(looksRandom('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1')).toBe(false);
    expect(looksRandom(RANDOM_TOKEN.slice(0, 31)), 'shorter than 32').toBe(false);
  });
});

describe('redactBodyText: values in every body shape', () => {
  it('redacts JSON string values by value and keeps the document valid with the same keys', () => {
    const body = JSON.stringify({
      contact: 'ann@example.com',
      note: `call +1 (555) 123-4567`,
      auth: { jwt: JWT },
      card: VISA,
      items: [{ id: 42, sku: 'AB-12' }],
      price: 12.5,
    });
    const redacted = JSON.parse(redactBodyText(body, SHARED_HELPERS)) as Record<string, unknown>;
    expect(redacted).toEqual({
      contact: R,
      note: `call ${R}`,
      auth: R,
      card: R,
      items: [{ id: 42, sku: 'AB-12' }],
      price: 12.5,
    });
    expect(JSON.parse(redactBodyText(JSON.stringify({ list: [`x ${STRIPE_KEY}`, 'ok'] }), SHARED_HELPERS))).toEqual({
      list: [`x ${R}`, 'ok'],
    });
  });

  it('leaves a JSON body without secrets byte for byte as it was', () => {
    const body = '{"id": 12345678901234567890, "when": "2024-11-26", "uuid": "123e4567-e89b-12d3-a456-426614174000"}';
    expect(redactBodyText(body, SHARED_HELPERS)).toBe(body);
  });

  it('redacts JSON that does not parse by value too', () => {
    expect(redactBodyText('{"contact": "ann@example.com", "cut', SHARED_HELPERS)).toBe(`{"contact": "${R}", "cut`);
  });

  it('redacts form values by value, keeping names and encoding', () => {
    expect(redactBodyText('name=Ann&email=ann%40example.com&tel=%2B44+20+7946+0958&qty=2', SHARED_HELPERS)).toBe(
      `name=Ann&email=${encodeURIComponent(R)}&tel=${encodeURIComponent(R)}&qty=2`,
    );
  });

  it('redacts text bodies', () => {
    expect(
      redactBodyText(`GET /me\nAuthorization: Bearer ${RANDOM_TOKEN}\nFrom: ann@example.com`, SHARED_HELPERS),
    ).toBe(`GET /me\nAuthorization: Bearer ${R}\nFrom: ${R}`);
  });
});

describe('bounded work', () => {
  // Each input defeats a naive pattern (a scan restarted at every position); a quadratic pass over a megabyte would
  // not finish within the test's timeout.
  it.each([
    ['dots', '.'.repeat(1_000_000)],
    ['dotted words', 'a.'.repeat(500_000)],
    ['JWT starts', 'eyJ'.repeat(330_000)],
    ['email local parts', 'a'.repeat(1_000_000)],
    ['at signs', 'a@b.'.repeat(250_000)],
    ['digit groups', '1 '.repeat(500_000)],
    ['plus signs', '+1 '.repeat(330_000)],
    ['bearer words', 'Bearer '.repeat(140_000)],
  ])('stays linear on %s', (_, text) => {
    expect(typeof redactBodyText(text, SHARED_HELPERS)).toBe('string');
  });
});

import { describe, expect, it } from 'vitest';
import { REPLAY_LIMITS } from '../../wire/replay';
import { redactBodyText, redactCardNumbers, redactJsonValue, redactValues } from '../../src/replay/body-redact';
import {
  BODY_READ_CAP,
  isTextual,
  recordBodyValue,
  recordStreamBody,
  recordText,
  recordXhrResponse,
} from '../../src/replay/body-read';
import { redactRequestHeaders, selectResponseHeaders, toRecipeStep, type Exchange } from '../../src/replay/recipe';
import { SHARED_HELPERS } from '../../src/replay/shared-helpers';

/**
 * Recipe bodies and headers: what the SDK keeps of a request and its response (redacted, capped, or a placeholder).
 * Pure functions over the runtime's real fetch types (Node's Request, Response, Blob, FormData, ReadableStream);
 * the fetch and XHR hooks around them are tested in Chromium (test/e2e/sdk-recipes.spec.ts).
 */

/** Well-known test card numbers (Luhn-valid) and a Luhn-invalid neighbour. */
const VISA = '4111111111111111';
const AMEX = '378282246310005';
const NOT_LUHN = '4111111111111112';
const R = '[REDACTED]';

describe('redactCardNumbers', () => {
  it('removes Luhn-valid 13 to 19 digit numbers, with spaces or dashes between groups', () => {
    expect(redactCardNumbers(`card ${VISA} ok`, SHARED_HELPERS)).toBe(`card ${R} ok`);
    expect(redactCardNumbers('pay 4111 1111 1111 1111 now', SHARED_HELPERS)).toBe(`pay ${R} now`);
    expect(redactCardNumbers('pay 4111-1111-1111-1111.', SHARED_HELPERS)).toBe(`pay ${R}.`);
    expect(redactCardNumbers(`amex ${AMEX}`, SHARED_HELPERS)).toBe(`amex ${R}`);
    expect(redactCardNumbers(`x${VISA}y`, SHARED_HELPERS), 'inside a token').toBe(`x${R}y`);
  });

  it('finds a card number next to other digit groups', () => {
    expect(redactCardNumbers('order 12 4111 1111 1111 1111 qty 3', SHARED_HELPERS)).toBe(`order 12 ${R} qty 3`);
    expect(redactCardNumbers('4111 1111 1111 1111 123', SHARED_HELPERS)).toBe(`${R} 123`);
    expect(redactCardNumbers(`${VISA} ${AMEX}`, SHARED_HELPERS)).toBe(`${R} ${R}`);
  });

  it('keeps numbers that are not card numbers: Luhn-invalid, too short or long, timestamps, dates, phones', () => {
    for (const text of [
      NOT_LUHN,
      '411111111111',
      '41111111111111111111111',
      'at 1718000000006 ms',
      '2024-01-15',
      '+44 20 7946 0958',
      'id 1234567890123456789',
    ]) {
      expect(redactCardNumbers(text, SHARED_HELPERS), text).toBe(text);
    }
  });
});

describe('redactBodyText', () => {
  it('redacts JSON by key at any depth, arrays and JSON inside strings included, and card numbers in values', () => {
    const body = {
      user: 'alice',
      password: 'pw1',
      profile: { apiKey: 'k1', nested: [{ access_token: 't1', keep: 'yes' }, { cardNumber: { any: 'thing' } }] },
      note: `card ${VISA}`,
      amount: Number(VISA),
      embedded: JSON.stringify({ client_secret: 's1', visible: 'v' }),
      count: 3,
    };
    const redacted = JSON.parse(redactBodyText(JSON.stringify(body), SHARED_HELPERS)) as Record<string, unknown>;
    expect(redacted).toEqual({
      user: 'alice',
      password: R,
      profile: { apiKey: R, nested: [{ access_token: R, keep: 'yes' }, { cardNumber: R }] },
      note: `card ${R}`,
      amount: R,
      embedded: JSON.stringify({ client_secret: R, visible: 'v' }),
      count: 3,
    });
  });

  it('keeps a JSON document with nothing to redact byte for byte (large integers are not rounded)', () => {
    const text = '{ "id": 12345678901234567890, "items": [1, 2] }';
    expect(redactBodyText(text, SHARED_HELPERS)).toBe(text);
    expect(redactJsonValue([1, 'a', { b: null }], SHARED_HELPERS)).toEqual([1, 'a', { b: null }]);
  });

  it('redacts sensitive members of JSON that does not parse', () => {
    const text = '{"user":"bob","password":"pw\\"2","token": 12, "card": "4111 1111 1111 1111", "x":';
    expect(redactBodyText(text, SHARED_HELPERS)).toBe(
      `{"user":"bob","password":"${R}","token": "${R}", "card": "${R}", "x":`,
    );
  });

  it('redacts form fields by name (encoded names too) and card numbers in the other values', () => {
    expect(redactBodyText('username=bob&password=p%40ss&api%5Fkey=k&note=hello+world', SHARED_HELPERS)).toBe(
      `username=bob&password=${R}&api%5Fkey=${R}&note=hello+world`,
    );
    expect(redactBodyText(`holder=Bob&number=4111+1111+1111+1111`, SHARED_HELPERS)).toBe(
      `holder=Bob&number=${encodeURIComponent(R)}`,
    );
  });

  it('removes card numbers from any other text', () => {
    expect(redactBodyText(`Thanks!\nCharged to ${VISA}.`, SHARED_HELPERS)).toBe(`Thanks!\nCharged to ${R}.`);
    expect(redactBodyText('plain text', SHARED_HELPERS)).toBe('plain text');
  });
});

describe('recordText', () => {
  it('redacts before it cuts: the kept prefix never holds a secret that a whole-document parse would have found', () => {
    const max = REPLAY_LIMITS.maxRecipeBodyChars;
    const secret = 'S3CRET-VALUE';
    const text = JSON.stringify({ filler: 'x'.repeat(max - 20), password: secret });
    const { body, truncated } = recordText(text, SHARED_HELPERS);
    expect(truncated).toBe(true);
    expect(body).toHaveLength(max);
    expect(body).not.toContain(secret);
    expect(recordText('{"a":1}', SHARED_HELPERS)).toEqual({ body: '{"a":1}', truncated: false });
  });

  it('keeps nothing of a body above the read cap', () => {
    expect(recordText('y'.repeat(BODY_READ_CAP + 1), SHARED_HELPERS)).toEqual({ body: null, truncated: true });
  });
});

describe('recordBodyValue', () => {
  it('records strings, URLSearchParams and FormData text fields, redacted', () => {
    expect(recordBodyValue('{"token":"t","a":1}', SHARED_HELPERS)).toEqual({
      body: `{"token":"${R}","a":1}`,
      truncated: false,
    });
    expect(recordBodyValue(new URLSearchParams({ q: 'shoes', secret: 's' }), SHARED_HELPERS)).toEqual({
      body: `q=shoes&secret=${R}`,
      truncated: false,
    });
    const form = new FormData();
    form.append('name', 'Ann');
    form.append('password', 'pw');
    form.append('avatar', new Blob(['12345']), 'a.png');
    expect(recordBodyValue(form, SHARED_HELPERS)).toEqual({
      body: `name=Ann&password=${R}&avatar=%5Bfile+5+bytes%5D`,
      truncated: false,
    });
  });

  it('names binary bodies, streams and other objects by a placeholder without reading them', () => {
    expect(recordBodyValue(new Blob(['abc']), SHARED_HELPERS)).toEqual({ body: '[binary 3 bytes]', truncated: false });
    expect(recordBodyValue(new ArrayBuffer(8), SHARED_HELPERS)).toEqual({ body: '[binary 8 bytes]', truncated: false });
    expect(recordBodyValue(new Uint8Array(5), SHARED_HELPERS)).toEqual({ body: '[binary 5 bytes]', truncated: false });
    expect(recordBodyValue(new ReadableStream(), SHARED_HELPERS)).toEqual({ body: '[stream]', truncated: false });
    expect(recordBodyValue({ nodeType: 9 }, SHARED_HELPERS)).toEqual({ body: '[unreadable body]', truncated: false });
    expect(recordBodyValue(null, SHARED_HELPERS)).toBeUndefined();
    expect(recordBodyValue(undefined, SHARED_HELPERS)).toBeUndefined();
  });
});

describe('isTextual', () => {
  it('accepts JSON, text, XML, forms and JavaScript; refuses event streams, binary and unknown types', () => {
    for (const type of [
      'application/json',
      'application/problem+json; charset=utf-8',
      'text/html',
      'text/plain;charset=UTF-8',
      'application/xml',
      'image/svg+xml',
      'application/x-www-form-urlencoded',
      'application/javascript',
    ]) {
      expect(isTextual(type), type).toBe(true);
    }
    for (const type of [
      'text/event-stream',
      'application/octet-stream',
      'image/png',
      'multipart/form-data; boundary=x',
      null,
    ]) {
      expect(isTextual(type), String(type)).toBe(false);
    }
  });
});

describe('recordStreamBody (given a clone, as body-source.ts takes it)', () => {
  it('reads a textual response off a clone and redacts it; the original is still the app’s to read', async () => {
    const response = new Response(JSON.stringify({ session_token: 'abc', items: [1] }), {
      headers: { 'content-type': 'application/json' },
    });
    expect(await recordStreamBody(response.clone(), SHARED_HELPERS)).toEqual({
      body: `{"session_token":"${R}","items":[1]}`,
      truncated: false,
    });
    expect(await response.json()).toEqual({ session_token: 'abc', items: [1] });
  });

  it('names binary and event-stream responses by a placeholder', async () => {
    const png = new Response(new Uint8Array(123), {
      headers: { 'content-type': 'image/png', 'content-length': '123' },
    });
    expect(await recordStreamBody(png.clone(), SHARED_HELPERS)).toEqual({
      body: '[binary 123 bytes]',
      truncated: false,
    });
    expect((await png.arrayBuffer()).byteLength).toBe(123);
    const events = new Response('data: 1\n\n', { headers: { 'content-type': 'text/event-stream' } });
    expect(await recordStreamBody(events, SHARED_HELPERS)).toEqual({ body: '[event stream]', truncated: false });
    expect(await recordStreamBody(new Response(null, { status: 204 }), SHARED_HELPERS)).toBeUndefined();
  });

  it('gives up on a textual body larger than the read cap, announced or streamed, and leaves the original whole', async () => {
    const announced = new Response('x', {
      headers: { 'content-type': 'text/plain', 'content-length': String(BODY_READ_CAP + 1) },
    });
    expect(await recordStreamBody(announced.clone(), SHARED_HELPERS)).toEqual({ body: null, truncated: true });

    const chunk = new Uint8Array(64 * 1024).fill(120);
    const chunks = Math.ceil(BODY_READ_CAP / chunk.length) + 2;
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < chunks) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = new Response(stream, { headers: { 'content-type': 'text/plain' } });
    expect(await recordStreamBody(streamed.clone(), SHARED_HELPERS)).toEqual({ body: null, truncated: true });
    expect((await streamed.text()).length).toBe(chunks * chunk.length);
  });

  it('reads a Request body the same way', async () => {
    const request = new Request('http://example.test/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'user=a&pass_word=b',
    });
    expect(await recordStreamBody(request.clone(), SHARED_HELPERS)).toEqual({
      body: `user=a&pass_word=${R}`,
      truncated: false,
    });
    expect(await request.text()).toBe('user=a&pass_word=b');
  });
});

describe('recordXhrResponse', () => {
  it('records text of textual types and parsed JSON, and names the rest', () => {
    expect(
      recordXhrResponse({ response: '{"otp":"1"}', responseType: '', contentType: 'application/json' }, SHARED_HELPERS),
    ).toEqual({
      body: `{"otp":"${R}"}`,
      truncated: false,
    });
    expect(
      recordXhrResponse({ response: { pin: 1, ok: true }, responseType: 'json', contentType: null }, SHARED_HELPERS),
    ).toEqual({
      body: `{"pin":"${R}","ok":true}`,
      truncated: false,
    });
    expect(
      recordXhrResponse({ response: 'GIF89a', responseType: 'text', contentType: 'image/gif' }, SHARED_HELPERS),
    ).toEqual({
      body: '[binary]',
      truncated: false,
    });
    expect(
      recordXhrResponse(
        { response: new ArrayBuffer(4), responseType: 'arraybuffer', contentType: 'application/json' },
        SHARED_HELPERS,
      ),
    ).toEqual({ body: '[binary 4 bytes]', truncated: false });
    expect(
      recordXhrResponse({ response: '', responseType: '', contentType: 'text/plain' }, SHARED_HELPERS),
    ).toBeUndefined();
  });
});

describe('recipe headers and steps', () => {
  /** Value redaction as network-record.ts hands it to recipe steps. */
  const redactBodyValues = (text: string): string => redactValues(text, SHARED_HELPERS);

  it('redacts credential headers and any header whose name looks sensitive; keeps the others', () => {
    const headers = new Headers({
      authorization: 'Bearer a',
      'Proxy-Authorization': 'Basic b',
      'x-api-key': 'k',
      'X-Session-Token': 's',
      'x-csrf-token': 'c',
      accept: 'application/json',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(redactRequestHeaders(headers, redactBodyValues)).toEqual({
      accept: 'application/json',
      authorization: R,
      'proxy-authorization': R,
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      'x-api-key': R,
      'x-csrf-token': R,
      'x-session-token': R,
    });
    expect(
      redactRequestHeaders(
        [
          ['Cookie', 'sid=1'],
          ['X-Note', `card ${VISA}`],
        ],
        redactBodyValues,
      ),
    ).toEqual({ cookie: R, 'x-note': `card ${R}` });
  });

  it('keeps only the response headers a replay needs, never cookies', () => {
    expect(
      selectResponseHeaders([
        ['Content-Type', 'application/json'],
        ['Set-Cookie', 'sid=1'],
        ['ETag', '"1"'],
        ['server', 'x'],
      ]),
    ).toEqual({ 'content-type': 'application/json', etag: '"1"' });
  });

  it('builds a step with bodies only when there were bodies', () => {
    const exchange: Exchange = {
      startMs: 1000.4,
      method: 'POST',
      url: 'http://example.test/a',
      requestHeaders: [['authorization', 'x']],
      status: 201,
      responseHeaders: [['content-type', 'text/plain']],
      durationMs: 12.34567,
      traceId: '0af7651916cd43dd8448eb211c80319c',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      error: undefined,
      aborted: false,
    };
    expect(
      toRecipeStep(
        exchange,
        { request: { body: 'a', truncated: false }, response: { body: null, truncated: true } },
        redactBodyValues,
      ),
    ).toEqual({
      ts: 1000,
      method: 'POST',
      url: 'http://example.test/a',
      requestHeaders: { authorization: R },
      requestBody: 'a',
      requestBodyTruncated: false,
      status: 201,
      responseHeaders: { 'content-type': 'text/plain' },
      responseBody: null,
      responseBodyTruncated: true,
      durationMs: 12.346,
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      error: null,
    });
    const bare = toRecipeStep(exchange, { request: undefined, response: undefined }, redactBodyValues);
    expect(Object.keys(bare)).not.toContain('requestBody');
    expect(Object.keys(bare)).not.toContain('responseBody');
    expect(
      toRecipeStep(exchange, { request: undefined, response: undefined }).requestHeaders,
      'without the body module, no header values',
    ).toEqual({});
  });
});

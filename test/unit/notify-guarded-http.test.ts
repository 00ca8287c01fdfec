/**
 * The guarded HTTP client's decisions that need no socket (server/src/notify/http/guarded-http.ts): which targets may
 * be sent to, how Node's errors become the delivery log's classes, and the answer's headers. Requests over real
 * sockets, DNS and the SSRF refusals at connect time: test/integration/notify-webhook and the other notify suites.
 */
import { describe, expect, it } from 'vitest';
import { checkedTarget, classify, flatHeaders, HttpFailure } from '../../server/src/notify/http/guarded-http';
import { isBlockedAddress } from '../../server/src/notify/http/ssrf';

const publicOnly = (address: string) => !isBlockedAddress(address);
const failure = (value: URL | HttpFailure) => (value instanceof HttpFailure ? value.errorClass : 'sent');

describe('checkedTarget', () => {
  it('takes HTTP and HTTPS URLs, host names left to the lookup', () => {
    expect((checkedTarget('https://hooks.example.com/x?a=1', publicOnly) as URL).href).toBe(
      'https://hooks.example.com/x?a=1',
    );
    expect(failure(checkedTarget('http://localhost:8080/', publicOnly))).toBe('sent');
  });

  it('refuses what is not a URL and other schemes as invalid_url', () => {
    expect(checkedTarget('not a url', publicOnly)).toMatchObject({
      errorClass: 'invalid_url',
      message: 'not a valid URL',
    });
    expect(checkedTarget('ftp://example.com/', publicOnly)).toMatchObject({
      errorClass: 'invalid_url',
      message: 'unsupported scheme ftp:',
    });
  });

  it('refuses literal private addresses, IPv6 in brackets too, unless allowed', () => {
    expect(failure(checkedTarget('http://127.0.0.1:9/', publicOnly))).toBe('ssrf_blocked');
    expect(failure(checkedTarget('http://[::1]:9/', publicOnly))).toBe('ssrf_blocked');
    expect((checkedTarget('http://[::1]:9/', publicOnly) as HttpFailure).message).toMatch(/^::1 is a private/);
    expect(failure(checkedTarget('http://10.0.0.1/', () => true))).toBe('sent');
    expect(failure(checkedTarget('http://93.184.216.34/', publicOnly))).toBe('sent');
  });
});

describe('classify', () => {
  const coded = (code: string) => Object.assign(new Error(`failed with ${code}`), { code });

  it('names DNS, connection and TLS failures by their code, anything else network', () => {
    expect(classify(coded('ENOTFOUND')).errorClass).toBe('dns');
    expect(classify(coded('EAI_AGAIN')).errorClass).toBe('dns');
    expect(classify(coded('ECONNREFUSED')).errorClass).toBe('connect');
    expect(classify(coded('ECONNRESET')).errorClass).toBe('connect');
    expect(classify(coded('ERR_TLS_CERT_ALTNAME_INVALID')).errorClass).toBe('tls');
    expect(classify(coded('DEPTH_ZERO_SELF_SIGNED_CERT')).errorClass).toBe('tls');
    expect(classify(coded('EPROTO')).errorClass).toBe('network');
    expect(classify('gone').message).toBe('gone');
  });

  it('keeps a failure already classified', () => {
    const timeout = new HttpFailure('timeout', 'no complete answer within 5 ms');
    expect(classify(timeout)).toBe(timeout);
  });
});

describe('flatHeaders', () => {
  it('joins repeated headers with a comma and leaves out absent ones', () => {
    expect(flatHeaders({ 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'], age: undefined })).toEqual({
      'content-type': 'text/plain',
      'set-cookie': 'a=1, b=2',
    });
  });
});

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isBlockedAddress, PRIVATE_TARGETS_HINT } from './ssrf';

/** Why a request got no HTTP answer; the delivery log's `error_class`. */
export type HttpFailureClass = 'invalid_url' | 'ssrf_blocked' | 'dns' | 'connect' | 'tls' | 'timeout' | 'network';

export class HttpFailure extends Error {
  constructor(
    readonly errorClass: HttpFailureClass,
    message: string,
  ) {
    super(message);
  }
}

export interface HttpAnswer {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body as UTF-8, at most `maxBodyBytes` of it. */
  body: string;
  latencyMs: number;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole exchange: connecting, sending and reading the answer. */
  timeoutMs: number;
}

export interface GuardedHttp {
  /** Resolves with any HTTP answer (also 4xx and 5xx); rejects with {@link HttpFailure} when there is none. */
  request(url: string, init: HttpRequest): Promise<HttpAnswer>;
}

export interface GuardedHttpOptions {
  /** Lets notifications reach loopback and private networks: local development and tests (`--allow-private-targets`). */
  allowPrivateTargets: boolean;
  /** Bytes of an answer kept; the rest is not read. Default 64 KiB. */
  maxBodyBytes?: number;
}

/**
 * The HTTP client of every notification kind. The SSRF check happens when the socket connects, on the addresses DNS
 * returned for that connection (a name that resolves to a public address at validation time and a private one at
 * send time is still refused), and on literal IP targets before anything is sent. Redirects are not followed.
 */
export function createGuardedHttp(options: GuardedHttpOptions): GuardedHttp {
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const allowed = (address: string) => options.allowPrivateTargets || !isBlockedAddress(address);
  const lookup = guardedLookup(allowed);
  return {
    request(url, init) {
      const target = checkedTarget(url, allowed);
      return target instanceof HttpFailure ? Promise.reject(target) : exchange(target, init, lookup, maxBodyBytes);
    },
  };
}

/** A DNS lookup that keeps only the addresses `allowed` takes, and fails as `ssrf_blocked` when none is left. */
function guardedLookup(allowed: (address: string) => boolean): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const usable = addresses.filter((a) => allowed(a.address));
      if (usable.length === 0) {
        return callback(
          new HttpFailure(
            'ssrf_blocked',
            `${hostname} resolves only to private or reserved addresses: ${PRIVATE_TARGETS_HINT}`,
          ),
          '',
          0,
        );
      }
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

/** The URL to send to, or why nothing may be sent: not a URL, not HTTP(S), or a literal address `allowed` refuses. */
export function checkedTarget(url: string, allowed: (address: string) => boolean): URL | HttpFailure {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return new HttpFailure('invalid_url', 'not a valid URL');
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    return new HttpFailure('invalid_url', `unsupported scheme ${target.protocol}`);
  }
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0 && !allowed(literal)) {
    return new HttpFailure('ssrf_blocked', `${literal} is a private or reserved address: ${PRIVATE_TARGETS_HINT}`);
  }
  return target;
}

/** One request and its answer within `init.timeoutMs`, connecting only through `lookup`; redirects are not followed. */
function exchange(target: URL, init: HttpRequest, lookup: LookupFunction, maxBodyBytes: number): Promise<HttpAnswer> {
  return new Promise<HttpAnswer>((resolve, reject) => {
    const started = performance.now();
    const client = target.protocol === 'https:' ? https : http;
    const body = init.body === undefined ? undefined : Buffer.from(init.body);
    const headers = { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    const req = client.request(target, { method: init.method, headers, lookup, agent: false }, (res) => {
      readAnswer(
        res,
        maxBodyBytes,
        (answer) => {
          clearTimeout(timer);
          resolve({ ...answer, latencyMs: performance.now() - started });
        },
        (error) => fail(error),
      );
    });
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(classify(error));
    };
    const timer = setTimeout(
      () => req.destroy(new HttpFailure('timeout', `no complete answer within ${init.timeoutMs} ms`)),
      init.timeoutMs,
    );
    req.on('error', fail);
    req.end(body);
  });
}

/** Reads the answer's status, headers and at most `maxBodyBytes` of its body, then stops reading. */
function readAnswer(
  res: http.IncomingMessage,
  maxBodyBytes: number,
  done: (answer: Omit<HttpAnswer, 'latencyMs'>) => void,
  fail: (error: unknown) => void,
): void {
  const chunks: Buffer[] = [];
  let kept = 0;
  const finish = () => {
    done({
      status: res.statusCode ?? 0,
      headers: flatHeaders(res.headers),
      body: Buffer.concat(chunks).toString('utf8'),
    });
    res.destroy();
  };
  res.on('data', (chunk: Buffer) => {
    if (kept >= maxBodyBytes) return;
    chunks.push(chunk.subarray(0, maxBodyBytes - kept));
    kept += Math.min(chunk.length, maxBodyBytes - kept);
    // Enough for the log: stop reading a large answer.
    if (kept >= maxBodyBytes) finish();
  });
  res.on('end', finish);
  res.on('error', fail);
}

/** Node's answer headers as {@link HttpAnswer} has them: a repeated header's values joined with `, `. */
export function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** The delivery log's class of a request that got no answer, from Node's error code. */
export function classify(error: unknown): HttpFailure {
  if (error instanceof HttpFailure) return error;
  const code = (error as { code?: string }).code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return new HttpFailure('dns', message);
  if (['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE'].includes(code))
    return new HttpFailure('connect', message);
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED/.test(code))
    return new HttpFailure('tls', message);
  return new HttpFailure('network', message);
}

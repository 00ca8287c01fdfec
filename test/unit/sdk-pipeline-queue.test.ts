import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEEPALIVE_QUOTA_BYTES, createKeepaliveBudget } from '../../src/pipeline/keepalive-budget';
import { createBoundedQueue } from '../../src/pipeline/queue';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay, statusVerdict } from '../../src/pipeline/retry';
import { splitIntoChunks } from '../../src/pipeline/split';
import { postBody } from '../../src/pipeline/transport';
import { beaconUrl, handOver } from '../../src/pipeline/unload';
import { utf8Length } from '../../src/pipeline/utf8';
import { SYSTEM_CLOCK } from '../../src/pipeline/clock';

describe('BoundedQueue', () => {
  it('drops the oldest waiting record when full and counts it', () => {
    const q = createBoundedQueue<number>(3);
    for (const n of [1, 2, 3, 4, 5]) q.push(n);
    expect(q.dropped).toBe(2);
    expect(q.takeAll_()).toEqual([3, 4, 5]);
  });

  it('counts records on the wire against the bound until they settle', () => {
    const q = createBoundedQueue<number>(3);
    q.push(1);
    q.push(2);
    expect(q.takeAll_()).toEqual([1, 2]);
    expect(q.size).toBe(2);
    q.push(3);
    // Full: 2 on the wire + 1 waiting. The oldest *waiting* record goes.
    q.push(4);
    expect(q.dropped).toBe(1);
    expect(q.size).toBe(3);
    q.settle(2);
    expect(q.size).toBe(1);
    expect(q.takeAll_()).toEqual([4]);
  });

  it('drops the new record when every slot is on the wire', () => {
    const q = createBoundedQueue<number>(2);
    q.push(1);
    q.push(2);
    q.takeAll_();
    expect(q.push(3)).toBe(false);
    expect(q.dropped).toBe(1);
    expect(q.size).toBe(2);
  });

  it('puts failed records back at the front, in order, without exceeding the bound', () => {
    const q = createBoundedQueue<string>(4);
    q.push('a');
    q.push('b');
    const batch = q.takeAll_();
    q.push('c');
    q.push('d');
    q.requeue(batch);
    expect(q.size).toBe(4);
    expect(q.dropped).toBe(0);
    expect(q.takeAll_()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('never holds more than its capacity, and accounts for every record pushed', () => {
    type Op = { op: 'push' } | { op: 'take' } | { op: 'settle' } | { op: 'requeue' };
    const ops = fc.array(
      fc.oneof(
        fc.constant<Op>({ op: 'push' }),
        fc.constant<Op>({ op: 'take' }),
        fc.constant<Op>({ op: 'settle' }),
        fc.constant<Op>({ op: 'requeue' }),
      ),
      { maxLength: 200 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), ops, (capacity, sequence) => {
        const q = createBoundedQueue<number>(capacity);
        const batches: number[][] = [];
        let pushed = 0;
        let delivered = 0;
        for (const step of sequence) {
          if (step.op === 'push') q.push(pushed++);
          else if (step.op === 'take') batches.push(q.takeAll_());
          else {
            const batch = batches.shift();
            if (!batch) continue;
            if (step.op === 'settle') {
              q.settle(batch.length);
              delivered += batch.length;
            } else q.requeue(batch);
          }
          expect(q.size).toBeLessThanOrEqual(capacity);
        }
        const onWire = batches.reduce((n, b) => n + b.length, 0);
        expect(delivered + q.dropped + q.waitingCount + onWire).toBe(pushed);
      }),
    );
  });
});

describe('splitIntoChunks', () => {
  const encode = (items: readonly string[]) => JSON.stringify({ records: items });

  it('keeps a batch that fits in one body', () => {
    const chunks = splitIntoChunks(['a', 'b'], encode, 1000);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toEqual({ items: ['a', 'b'], body: encode(['a', 'b']), bytes: encode(['a', 'b']).length });
  });

  it('splits at record boundaries into bodies within the limit, keeping every record once and in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 300 }), { minLength: 1, maxLength: 300 }),
        (items) => {
          const chunks = splitIntoChunks(items, encode, 2000);
          expect(chunks.flatMap((c) => c.items)).toEqual(items);
          for (const c of chunks) {
            expect(c.bytes).toBe(Buffer.byteLength(c.body));
            if (c.items.length > 1) expect(c.bytes).toBeLessThanOrEqual(2000);
          }
        },
      ),
    );
  });

  it('fills bodies close to the limit rather than halving blindly', () => {
    const items = Array.from({ length: 1000 }, (_, i) => `record-${i}-${'x'.repeat(90)}`);
    const chunks = splitIntoChunks(items, encode, 60_000);
    const total = Buffer.byteLength(encode(items));
    expect(chunks.length).toBeLessThanOrEqual(Math.ceil(total / 60_000) + 1);
  });

  it('sends a record larger than the limit on its own', () => {
    const chunks = splitIntoChunks(['small', 'x'.repeat(5000), 'tiny'], encode, 1000);
    expect(chunks.map((c) => c.items)).toEqual([['small'], ['x'.repeat(5000)], ['tiny']]);
  });
});

describe('utf8Length', () => {
  it('equals the UTF-8 byte length, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8Length(s)).toBe(Buffer.byteLength(s, 'utf8'));
      }),
    );
    expect(utf8Length('é€😀')).toBe(2 + 3 + 4);
  });
});

describe('retry policy', () => {
  it('retries network-ish statuses only', () => {
    expect([200, 204].map(statusVerdict)).toEqual(['delivered', 'delivered']);
    expect([408, 429, 500, 502, 503, 504].map(statusVerdict)).toEqual(Array(6).fill('retry'));
    expect([400, 401, 403, 404, 413, 415, 422].map(statusVerdict)).toEqual(Array(7).fill('refused'));
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(new Date(now + 30_000).toUTCString(), now)).toBe(30_000);
    expect(parseRetryAfter(new Date(now - 30_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('waits a full-jitter delay under a doubling ceiling, or what the server asked for', () => {
    const p = DEFAULT_RETRY_POLICY;
    const max = () => 0.999999;
    expect([1, 2, 3, 4, 5, 6, 10].map((n) => retryDelay(n, undefined, max, p))).toEqual([
      999, 1999, 3999, 7999, 15999, 29999, 29999,
    ]);
    expect(retryDelay(3, undefined, () => 0, p)).toBe(0);
    expect(retryDelay(1, 12_000, max, p)).toBe(12_000);
    expect(retryDelay(1, 86_400_000, max, p)).toBe(p.maxRetryAfterMs);
  });
});

describe('keepalive budget and the unload hand-over', () => {
  it('reserves bytes only while they fit the 64 KiB quota', () => {
    const b = createKeepaliveBudget();
    expect(b.reserve_(60_000)).toBe(true);
    expect(b.reserve_(KEEPALIVE_QUOTA_BYTES - 60_000 + 1)).toBe(false);
    expect(b.reserve_(KEEPALIVE_QUOTA_BYTES - 60_000)).toBe(true);
    b.release_(60_000);
    expect(b.available_).toBe(60_000);
  });

  it('puts the key in the api_key query parameter of beacon URLs', () => {
    expect(beaconUrl('https://i.example/otlp/v1/logs', 'k+/=')).toBe(
      'https://i.example/otlp/v1/logs?api_key=k%2B%2F%3D',
    );
    expect(beaconUrl('https://i.example/x?a=1', 'k')).toBe('https://i.example/x?a=1&api_key=k');
  });

  it('uses keepalive fetch inside the budget and sendBeacon beyond it, handing each body over synchronously', async () => {
    const fetches: { url: string; keepalive: boolean | undefined }[] = [];
    const beacons: { url: string; body: unknown }[] = [];
    let beaconAnswer = true;
    const transport = {
      fetch: (async (url: string, init: RequestInit) => {
        fetches.push({ url, keepalive: init.keepalive });
        return new Response('{}', { status: 200 });
      }) as typeof fetch,
      apiKey: 'key',
      timeoutMs_: 1000,
      budget_: createKeepaliveBudget(),
      clock: SYSTEM_CLOCK,
    };
    const route = {
      transport,
      sendBeacon: (url: string, body: BodyInit) => (beacons.push({ url, body }), beaconAnswer),
    };
    const first = handOver(route, 'http://i/otlp/v1/logs', 'a'.repeat(10), 60_000);
    expect(first.via_).toBe('keepalive');
    expect(fetches).toEqual([{ url: 'http://i/otlp/v1/logs', keepalive: true }]);
    const second = handOver(route, 'http://i/otlp/v1/logs', 'b', 6_000);
    expect(second.via_).toBe('beacon');
    expect(beacons).toEqual([{ url: 'http://i/otlp/v1/logs?api_key=key', body: 'b' }]);
    beaconAnswer = false;
    expect(handOver(route, 'http://i/otlp/v1/logs', 'c', 6_000).via_).toBe('none');
    expect(first.via_ === 'keepalive' && (await first.result_).verdict_).toBe('delivered');
    // Settled: the budget is free again.
    expect(handOver(route, 'http://i/otlp/v1/logs', 'd', 60_000).via_).toBe('keepalive');
  });

  it('retries a keepalive request once without keepalive when the browser refuses it with a TypeError', async () => {
    const seen: (boolean | undefined)[] = [];
    const transport = {
      fetch: (async (_url: string, init: RequestInit) => {
        seen.push(init.keepalive);
        if (init.keepalive) throw new TypeError('Failed to fetch');
        return new Response('{}', { status: 200 });
      }) as typeof fetch,
      apiKey: 'key',
      timeoutMs_: 1000,
      budget_: createKeepaliveBudget(),
      clock: SYSTEM_CLOCK,
    };
    expect(await postBody(transport, 'http://i/x', '{}', 2, true)).toEqual({ verdict_: 'delivered' });
    expect(seen).toEqual([true, false]);
    expect(transport.budget_.available_).toBe(KEEPALIVE_QUOTA_BYTES);
  });
});

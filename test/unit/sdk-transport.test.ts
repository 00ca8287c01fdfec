import { describe, expect, it } from 'vitest';
import { SYSTEM_CLOCK } from '../../src/pipeline/clock';
import { createKeepaliveBudget, type KeepaliveBudget } from '../../src/pipeline/keepalive-budget';
import { postBody, type Transport } from '../../src/pipeline/transport';

/** A fetch that records each call and answers as `answer` says; a hung one settles only when aborted. */
function fakeNetwork(answer: (keepalive: boolean) => 'hang' | 'ok') {
  const calls: boolean[] = [];
  const fetch = ((_url: string, init: RequestInit) => {
    const keepalive = init.keepalive === true;
    calls.push(keepalive);
    if (answer(keepalive) === 'ok') return Promise.resolve(new Response('{}', { status: 200 }));
    return new Promise<Response>((_resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const transport = (fetch: typeof globalThis.fetch, budget: KeepaliveBudget): Transport => ({
  fetch,
  apiKey: 'k',
  timeoutMs_: 20,
  budget_: budget,
  clock: SYSTEM_CLOCK,
});

describe('transport keepalive budget', () => {
  it('gives the bytes of a settled keepalive request back', async () => {
    const budget = createKeepaliveBudget();
    const network = fakeNetwork(() => 'ok');
    expect(await postBody(transport(network.fetch, budget), 'http://ingest/otlp/v1/logs', '{}', 40_000, true)).toEqual({
      verdict_: 'delivered',
    });
    expect(network.calls).toEqual([true]);
    expect(budget.available_).toBe(64 * 1024);
  });

  it('keeps the bytes of a timed-out keepalive request reserved: the browser still counts the abandoned request', async () => {
    const budget = createKeepaliveBudget();
    const network = fakeNetwork(() => 'hang');
    const result = await postBody(transport(network.fetch, budget), 'http://ingest/otlp/v1/logs', '{}', 40_000, true);
    expect(result).toMatchObject({ verdict_: 'retry', reason_: 'timed out' });
    expect(budget.available_).toBe(64 * 1024 - 40_000);
    // The next 40 KB request no longer fits: it goes without keepalive instead of being refused by the browser.
    const next = fakeNetwork(() => 'ok');
    await postBody(transport(next.fetch, budget), 'http://ingest/otlp/v1/logs', '{}', 40_000, true);
    expect(next.calls).toEqual([false]);
  });
});

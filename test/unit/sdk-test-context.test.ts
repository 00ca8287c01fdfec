import { afterEach, describe, expect, it, vi } from 'vitest';
import { readEnvConfig } from '../../src/config/env';
import { resolveConfig } from '../../src/config/resolve';
import type { BrowserSDKConfig } from '../../src/config/types';
import type { PipelineClock } from '../../src/pipeline/clock';
import { createPipeline } from '../../src/pipeline/pipeline';
import { readTestContext, testOwner, underTest } from '../../src/core/test-context';
import { sessionSampling } from '../../src/session/sampling';
import { createSessionTracker } from '../../src/session/session';
import type { KeyValueStore } from '../../src/session/storage';

/**
 * A page under @svc/playwright (`globalThis.__SVC_TEST__`): the `test.*` attributes, hostile input, the environment
 * and sampling a test forces, a session per test attempt, and the pipeline's answered-request counts behind
 * `__SVC_TEST_SDK__.flush()` and `drain()` (the page side of them runs in test/e2e/sdk-test-context.spec.ts).
 */

const slot = globalThis as { __SVC_TEST__?: unknown };
const given = (value: unknown): void => {
  slot.__SVC_TEST__ = value;
};
afterEach(() => {
  delete slot.__SVC_TEST__;
  vi.unstubAllEnvs();
});

const fixture = {
  runId: 'run-1',
  testId: 'a1b2c3',
  title: 'adds to cart',
  titlePath: ['cart', 'checkout', 'adds to cart'],
  file: 'tests/cart.spec.ts',
  line: 12,
  project: 'chromium',
  retry: 1,
  worker: 0,
  commit: 'abc123',
  branch: 'main',
};

describe('readTestContext', () => {
  it('maps the fixture hand-over to test.* attributes, the title path joined', () => {
    given(fixture);
    expect(readTestContext()).toEqual({
      'test.run.id': 'run-1',
      'test.id': 'a1b2c3',
      'test.file': 'tests/cart.spec.ts',
      'test.project': 'chromium',
      'test.commit': 'abc123',
      'test.branch': 'main',
      'test.line': 12,
      'test.retry': 1,
      'test.worker': 0,
      'test.title': 'cart > checkout > adds to cart',
    });
  });

  it('is undefined outside a test, and without a string run id and test id', () => {
    expect(readTestContext()).toBeUndefined();
    for (const value of [
      null,
      'run-1',
      42,
      [],
      { runId: 'run-1' },
      { runId: 7, testId: 'a' },
      { runId: '', testId: 'a' },
    ]) {
      given(value);
      expect(readTestContext()).toBeUndefined();
    }
  });

  it('leaves out values of the wrong type or over 1,024 characters, and keeps 20 title parts at most', () => {
    const huge = 'x'.repeat(1025);
    given({
      runId: 'r',
      testId: 't',
      file: 42,
      project: huge,
      commit: { sha: 'abc' },
      line: '12',
      retry: -1,
      worker: 1.5,
      titlePath: [...Array.from({ length: 30 }, (_, i) => `p${i}`)],
    });
    const parts = Array.from({ length: 20 }, (_, i) => `p${i}`);
    expect(readTestContext()).toEqual({ 'test.run.id': 'r', 'test.id': 't', 'test.title': parts.join(' > ') });
    given({ runId: huge, testId: 't' });
    expect(readTestContext()).toBeUndefined();
    given({ runId: 'r', testId: 't', titlePath: ['a', 5, null, 'b'], title: 'ignored while titlePath is a list' });
    expect(readTestContext()?.['test.title']).toBe('a > b');
    given({ runId: 'r', testId: 't', title: 'only a title' });
    expect(readTestContext()?.['test.title']).toBe('only a title');
  });

  it('never throws: a getter or a Proxy that throws makes it count as no test', () => {
    given({
      runId: 'r',
      testId: 't',
      get file(): string {
        throw new Error('hostile');
      },
    });
    expect(readTestContext()).toBeUndefined();
    given(
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('hostile');
          },
        },
      ),
    );
    expect(readTestContext()).toBeUndefined();
    Object.defineProperty(slot, '__SVC_TEST__', {
      configurable: true,
      get: () => {
        throw new Error('hostile');
      },
    });
    expect(readTestContext()).toBeUndefined();
  });
});

describe('a page under test', () => {
  const config = (options: Partial<BrowserSDKConfig>) => resolveConfig({ apiKey: 'k', serviceName: 's', ...options });

  it('runs in environment test unless the app set one', () => {
    expect(underTest(config({})).env).toBe('test');
    expect(underTest(config({ env: 'staging' })).env).toBe('staging');
  });

  it('samples every session and records its replay in full, unless replay is off', () => {
    const rates = { sampleRate: 0, replay: { sampleRate: 0, onErrorSampleRate: 0 } };
    const id = 'f'.repeat(32);
    expect(sessionSampling(id, config(rates))).toEqual({ sampled: false, replay: 'off' });
    expect(sessionSampling(id, underTest(config(rates)))).toEqual({ sampled: true, replay: 'full' });
    expect(sessionSampling(id, underTest(config({ ...rates, replay: { enabled: false } })))).toEqual({
      sampled: true,
      replay: 'off',
    });
  });

  it('takes env test in the zero-config entries unless SVC_ENV is set (NODE_ENV does not count)', () => {
    vi.stubEnv('NODE_ENV', 'production');
    for (const prefix of ['VITE_', 'NEXT_PUBLIC_', 'REACT_APP_']) vi.stubEnv(`${prefix}SVC_ENV`, '');
    expect(readEnvConfig().env).toBe('production');
    given(fixture);
    expect(readEnvConfig().env).toBe('test');
    vi.stubEnv('NEXT_PUBLIC_SVC_ENV', 'staging');
    expect(readEnvConfig().env).toBe('staging');
  });
});

describe('a session per test attempt', () => {
  const store = (): KeyValueStore => {
    const data = new Map<string, string>();
    return { get: (key) => data.get(key) ?? null, set: (key, value) => void data.set(key, value) };
  };
  const owner = (retry: number) => testOwner({ 'test.run.id': 'run-1', 'test.id': 'a1b2c3', 'test.retry': retry });

  it("starts a new session over another test attempt's stored one, and keeps its own", () => {
    const shared = store();
    const fromSetUp = createSessionTracker('k', Date.now, shared).id();
    const first = createSessionTracker('k', Date.now, shared, owner(0)).id();
    expect(first).not.toBe(fromSetUp);
    expect(createSessionTracker('k', Date.now, shared, owner(0)).id()).toBe(first);
    const retried = createSessionTracker('k', Date.now, shared, owner(1)).id();
    expect(retried).not.toBe(first);
    // Outside a test, the stored session is taken up as always.
    expect(createSessionTracker('k', Date.now, shared).id()).toBe(retried);
  });
});

describe('pipeline answers, forced flush and drain', () => {
  const log = (body: string) =>
    ({ kind: 'log', timeMs: 1, level: 'info', body, sessionId: 's', attributes: {} }) as const;
  /** A pipeline whose timers never fire (only the flushes a test calls send), answering `statuses` in turn, then 200. */
  function pipelineAnswering(statuses: number[]) {
    const fetch = vi.fn(
      async (_url: string, _init: RequestInit) => new Response('{}', { status: statuses.shift() ?? 200 }),
    );
    const clock: PipelineClock = {
      now: () => 1_000_000,
      setTimeout: () => 0,
      clearTimeout: () => undefined,
      random: () => 0.5,
    };
    const pipeline = createPipeline({
      config: {
        apiKey: 'k',
        serviceName: 's',
        appId: undefined,
        env: undefined,
        serviceVersion: undefined,
        flushIntervalMs: 1000,
        maxQueueSize: 10,
        requestTimeoutMs: 1000,
      },
      resource: {},
      fetch: fetch as unknown as typeof globalThis.fetch,
      sendBeacon: undefined,
      ingestUrl: (path) => `http://ingest${path}`,
      debug: { warn: () => undefined, error: () => undefined },
      clock,
    });
    return { pipeline, fetch };
  }

  it('counts answered requests, and a forced flush sends during a retry wait', async () => {
    const { pipeline, fetch } = pipelineAnswering([200, 503, 200]);
    expect(await pipeline.postJson('/ingest/v1/replay/chunk', '{}')).toBe(true);
    expect(pipeline.answers).toEqual([1, 0]);
    pipeline.enqueue(log('hello'));
    await pipeline.flush();
    expect(pipeline.answers).toEqual([1, 1]);
    // The 503 started a retry wait: an ordinary flush leaves the record queued, a forced one sends it.
    await pipeline.flush();
    expect(fetch).toHaveBeenCalledTimes(2);
    await pipeline.flush(true);
    expect(pipeline.answers).toEqual([2, 1]);
    await pipeline.shutdown();
  });

  it('drain hands over every waiting record as one body per signal, which the page never sends itself', async () => {
    const { pipeline, fetch } = pipelineAnswering([]);
    pipeline.enqueue(log('one'));
    pipeline.enqueue(log('two'));
    pipeline.enqueue({ kind: 'metric', name: 'm', value: 1, unit: '', timeMs: 1, sessionId: 's', attributes: {} });
    const requests = pipeline.drain();
    expect(requests.map(([path]) => path)).toEqual(['/otlp/v1/logs', '/otlp/v1/metrics']);
    const logs = JSON.parse(requests[0]![1]) as {
      resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<{ body: { stringValue: string } }> }> }>;
    };
    expect(logs.resourceLogs[0]!.scopeLogs[0]!.logRecords.map((r) => r.body.stringValue)).toEqual(['one', 'two']);
    expect(pipeline.drain(), 'taken once').toEqual([]);
    await pipeline.shutdown();
    expect(fetch, 'nothing left for the page to send').not.toHaveBeenCalled();
  });
});

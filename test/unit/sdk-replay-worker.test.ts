import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startCompressionWorker, WORKER_SOURCE } from '../../src/replay/compression-worker';
import { undoIdDeltas } from '../../wire/replay';

// The replay compression worker (src/replay/compression-worker.ts): its program, run as a worker would run it, and
// the page side's hand-over and fallback against a stand-in `Worker`. That Chromium starts it from a blob: URL, and
// falls back when a Content-Security-Policy forbids that, is test/e2e/sdk-replay-worker.spec.ts.

const EVENTS = [
  '{"type":4,"timestamp":1,"data":{"href":"https://shop.test/"}}',
  '{"type":3,"timestamp":2,"data":{"source":1,"text":"é ✓ 😀"}}',
];

/** rrweb events with node ids: a full snapshot, added nodes, an input and the SDK's own event (left as it is). */
const WITH_IDS = [
  {
    type: 2,
    timestamp: 3,
    data: {
      node: {
        type: 0,
        id: 1,
        childNodes: [{ type: 2, tagName: 'li', attributes: { id: 'x' }, childNodes: [], id: 2 }],
      },
    },
  },
  {
    type: 3,
    timestamp: 4,
    data: {
      source: 0,
      removes: [{ parentId: 28, id: 80 }],
      adds: [
        { parentId: 28, nextId: null, node: { type: 2, tagName: 'li', attributes: {}, childNodes: [], id: 1495 } },
        { parentId: 28, nextId: 1495, node: { type: 2, tagName: 'li', attributes: {}, childNodes: [], id: 1496 } },
        { parentId: 28, nextId: 1496, previousId: 0.5, node: { type: 3, textContent: '7', id: 1497 } },
      ],
    },
  },
  { type: 3, timestamp: 5, data: { source: 5, text: '********', isChecked: false, id: 1496 } },
  { type: 5, timestamp: 6, data: { tag: 'network', payload: { id: 42 } } },
];

const unpack = (data: string): unknown[] =>
  JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as unknown[];

/** Runs WORKER_SOURCE in a fresh context with the globals a worker has, and sends it one message. */
function runWorkerProgram(message: unknown): Promise<{ i: number; d?: string }> {
  return new Promise((resolve) => {
    const scope: Record<string, unknown> = {
      Blob,
      Response,
      CompressionStream,
      Uint8Array,
      String,
      btoa,
      postMessage: resolve,
    };
    runInNewContext(WORKER_SOURCE, scope);
    (scope.onmessage as (event: { data: unknown }) => void)({ data: message });
  });
}

/** A stand-in for the browser's `Worker`: records what it is given and lets the test answer or fail. */
class FakeWorker {
  static last: FakeWorker | undefined;
  static failToConstruct = false;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: (() => void) | null = null;
  readonly posted: Array<{ i: number; e: string[] }> = [];
  terminated = false;
  constructor(readonly url: string) {
    if (FakeWorker.failToConstruct) throw new DOMException('Refused to create a worker', 'SecurityError');
    FakeWorker.last = this;
  }
  postMessage(message: { i: number; e: string[] }): void {
    this.posted.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  answer(id: number, data?: string): void {
    this.onmessage?.({ data: data === undefined ? { i: id } : { i: id, d: data } });
  }
}

describe('the compression worker program', () => {
  it('answers with the base64 gzip of the JSON array of the events, under the id it was given', async () => {
    const answer = await runWorkerProgram({ i: 7, e: EVENTS });
    expect(answer.i).toBe(7);
    expect(unpack(answer.d!)).toEqual(EVENTS.map((event) => JSON.parse(event)));
  });

  it('delta-encodes the node ids of snapshot events, which undoIdDeltas restores exactly', async () => {
    const answer = await runWorkerProgram({ i: 1, e: WITH_IDS.map((event) => JSON.stringify(event)) });
    const sent = unpack(answer.d!) as Array<{ data: { adds?: Array<{ node: { id: number } }> } }>;
    // Each id is sent as its difference with the event's previous id (the removed node's 80 first): consecutive added
    // nodes differ by 1.
    expect(sent[1]!.data.adds!.map((add) => add.node.id)).toEqual([1495 - 80, 1, 1]);
    undoIdDeltas(sent);
    expect(sent).toEqual(WITH_IDS);
  });

  it('answers without data when it cannot encode, so that the page sends the events inline', async () => {
    const answer = await runWorkerProgram({ i: 3, e: null });
    expect(answer).toEqual({ i: 3, d: undefined });
  });
});

describe('startCompressionWorker', () => {
  afterEach(() => {
    FakeWorker.last = undefined;
    FakeWorker.failToConstruct = false;
    vi.unstubAllGlobals();
  });

  it('starts the worker from an inline blob: URL, or from workerUrl when given', () => {
    vi.stubGlobal('Worker', FakeWorker);
    vi.stubGlobal('URL', Object.assign(Object.create(URL), { createObjectURL: () => 'blob:https://shop.test/1' }));
    startCompressionWorker(undefined);
    expect(FakeWorker.last?.url).toBe('blob:https://shop.test/1');
    startCompressionWorker('/static/svc-replay-worker.js');
    expect(FakeWorker.last?.url).toBe('/static/svc-replay-worker.js');
  });

  it('hands each chunk to the worker and resolves with its answer, matched by id', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const encode = startCompressionWorker('/w.js');
    const first = encode(['{"a":1}']);
    const second = encode(['{"b":2}']);
    const worker = FakeWorker.last!;
    expect(worker.posted).toEqual([
      { i: 0, e: ['{"a":1}'] },
      { i: 1, e: ['{"b":2}'] },
    ]);
    worker.answer(1, 'Qg==');
    worker.answer(0, 'QQ==');
    await expect(first).resolves.toBe('QQ==');
    await expect(second).resolves.toBe('Qg==');
  });

  it('resolves undefined for a chunk the worker could not encode; the worker stays in use', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const encode = startCompressionWorker('/w.js');
    const failed = encode(['{"a":1}']);
    FakeWorker.last!.answer(0);
    await expect(failed).resolves.toBeUndefined();
    void encode(['{"b":2}']);
    expect(FakeWorker.last!.posted).toHaveLength(2);
  });

  it('gives the worker up on its first error: chunks it held and every later one resolve undefined at once', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const encode = startCompressionWorker('/blocked.js');
    const held = encode(['{"a":1}']);
    const worker = FakeWorker.last!;
    worker.onerror?.();
    await expect(held).resolves.toBeUndefined();
    expect(worker.terminated).toBe(true);
    await expect(encode(['{"b":2}'])).resolves.toBeUndefined();
    expect(worker.posted).toHaveLength(1);
  });

  it('resolves undefined at once where no worker can be created (a CSP refusal, or no Worker at all)', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    FakeWorker.failToConstruct = true;
    await expect(startCompressionWorker(undefined)(['{"a":1}'])).resolves.toBeUndefined();
    vi.stubGlobal('Worker', undefined);
    await expect(startCompressionWorker(undefined)(['{"a":1}'])).resolves.toBeUndefined();
  });
});

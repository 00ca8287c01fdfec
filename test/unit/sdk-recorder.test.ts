import { record } from '@rrweb/record';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../src/config/resolve';
import { loadRecorder } from '../../src/replay/load-recorder';
import { RECORDER_LIMITS } from '../../src/replay/recorder';
import type { RecordedEvent, RecordingStopped } from '../../src/replay/types';
import { stubMutationObserver } from '../support/dom-change-observer';

// rrweb needs a real DOM; what is tested here is the SDK's side of the contract: which options reach rrweb, what the
// recorder does with the events rrweb emits, and when it stops on its own. Recording itself, and every privacy rule
// on real form fields, is covered by the browser end-to-end suite (test/e2e/sdk-replay-recording.spec.ts).
vi.mock('@rrweb/record', () => ({
  record: Object.assign(vi.fn(), {
    takeFullSnapshot: vi.fn(),
    freezePage: vi.fn(),
    addCustomEvent: vi.fn(),
    mirror: { getNode: vi.fn() },
  }),
}));

const config = resolveConfig({
  apiKey: 'k',
  serviceName: 'shop-web',
  replay: { blockClass: 'no-record', maskAllInputs: false, sampling: { mousemove: 40, input: 'all' } },
});

/** The parts of `document` the recorder reads before it hands over to rrweb. */
function stubDocument(elements: number): void {
  vi.stubGlobal('document', {
    readyState: 'complete',
    getElementsByTagName: () => ({ length: elements }),
    addEventListener: vi.fn(),
    removeEventListener: vi.fn(),
  });
  // The DOM change window (dom-change-window.ts) observes the document and listens on the window.
  vi.stubGlobal('window', { addEventListener: vi.fn(), removeEventListener: vi.fn() });
  stubMutationObserver((callback) => (domChanged = callback));
}

/** Tells the DOM change window (the one observer the recorder opens) that the document changed. */
let domChanged: () => void = () => undefined;

type RrwebOptions = { emit: (event: RecordedEvent) => void };

/** Starts the recorder over the mocked rrweb; returns what reached the timeline and what rrweb was given. */
async function startRecorder() {
  const stopRrweb = vi.fn();
  vi.mocked(record).mockReturnValue(stopRrweb);
  const emitted: RecordedEvent[] = [];
  const stops: RecordingStopped[] = [];
  const recording = (await loadRecorder())(
    config.replay,
    (event) => emitted.push(event),
    (detail) => stops.push(detail),
  );
  const rrweb = vi.mocked(record).mock.calls[0]?.[0] as RrwebOptions | undefined;
  return { recording, emitted, stops, stopRrweb, rrweb };
}

describe('the recorder', () => {
  beforeEach(() => {
    vi.mocked(record).mockReset();
    vi.mocked(record.takeFullSnapshot).mockReset();
    stubDocument(100);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('passes the replay options to rrweb and asks its own mask functions about every form field', async () => {
    await startRecorder();
    expect(record).toHaveBeenCalledWith(
      expect.objectContaining({
        blockClass: 'no-record',
        maskTextClass: 'ob-mask',
        maskInputOptions: { input: true, textarea: true, select: true },
        maskInputFn: expect.any(Function),
        maskTextFn: expect.any(Function),
        sampling: { mousemove: 40, scroll: 150, input: 'all' },
      }),
    );
    // `maskAllInputs` is decided by maskInputFn; rrweb's own flag would replace the field selection above.
    expect(vi.mocked(record).mock.calls[0]?.[0]).not.toHaveProperty('maskAllInputs');
  });

  it('sanitizes the page address of Meta events', async () => {
    const { rrweb, emitted } = await startRecorder();
    rrweb!.emit({
      type: 4,
      timestamp: 1,
      data: { href: 'https://u:p@shop.test/reset?token=abc123&lang=en#access_token=xyz', width: 1, height: 1 },
    });
    expect(emitted[0]?.data).toEqual({
      href: 'https://shop.test/reset?token=REDACTED&lang=en#access_token=REDACTED',
      width: 1,
      height: 1,
    });
  });

  it(`stops, without passing the batch on, when one mutation batch has over ${RECORDER_LIMITS.maxMutationsPerBatch} changes`, async () => {
    const { rrweb, emitted, stops, stopRrweb } = await startRecorder();
    const adds = Array.from({ length: RECORDER_LIMITS.maxMutationsPerBatch }, (_, id) => ({
      parentId: 1,
      nextId: null,
      node: { type: 3, id, textContent: 'x' },
    }));
    rrweb!.emit({ type: 3, timestamp: 2, data: { source: 0, adds, removes: [], texts: [], attributes: [] } });
    expect(emitted).toHaveLength(1);
    rrweb!.emit({
      type: 3,
      timestamp: 3,
      data: { source: 0, adds, removes: [{ parentId: 1, id: 9 }], texts: [], attributes: [] },
    });
    expect(emitted).toHaveLength(1);
    expect(stops).toEqual([
      {
        reason: 'mutation_limit',
        measured: RECORDER_LIMITS.maxMutationsPerBatch + 1,
        limit: RECORDER_LIMITS.maxMutationsPerBatch,
      },
    ]);
    expect(stopRrweb).toHaveBeenCalledTimes(1);
    rrweb!.emit({ type: 3, timestamp: 4, data: { source: 1, positions: [] } });
    expect(emitted).toHaveLength(1);
  });

  it(`does not start rrweb on a document of over ${RECORDER_LIMITS.maxDomElements} elements`, async () => {
    stubDocument(RECORDER_LIMITS.maxDomElements + 1);
    const { stops } = await startRecorder();
    expect(record).not.toHaveBeenCalled();
    expect(stops).toEqual([
      { reason: 'dom_too_large', measured: RECORDER_LIMITS.maxDomElements + 1, limit: RECORDER_LIMITS.maxDomElements },
    ]);
  });

  it('takes a new full snapshot once the last one is older than the checkout interval, unless the DOM grew too large', async () => {
    const { rrweb, recording } = await startRecorder();
    rrweb!.emit({
      type: 2,
      timestamp: 1_000,
      data: { node: { type: 0, id: 1, childNodes: [] }, initialOffset: { top: 0, left: 0 } },
    });
    rrweb!.emit({ type: 3, timestamp: 1_000 + RECORDER_LIMITS.checkoutIntervalMs, data: { source: 1, positions: [] } });
    expect(record.takeFullSnapshot).not.toHaveBeenCalled();
    rrweb!.emit({ type: 3, timestamp: 1_001 + RECORDER_LIMITS.checkoutIntervalMs, data: { source: 1, positions: [] } });
    expect(record.takeFullSnapshot).toHaveBeenCalledWith(true);

    stubDocument(RECORDER_LIMITS.maxDomElements + 1);
    recording.takeFullSnapshot();
    expect(record.takeFullSnapshot).toHaveBeenCalledTimes(1);
  });

  it('stamps held DOM changes when they happened, but never before an event already passed on', async () => {
    vi.useFakeTimers({ now: 10_000, toFake: ['Date'] });
    try {
      const { emitted, rrweb } = await startRecorder();
      domChanged();
      // While the change is held, rrweb emits a batch of mouse positions (it does not resume rrweb) ...
      rrweb!.emit({ type: 3, timestamp: 10_040, data: { source: 1, positions: [] } });
      // ... and a mutation released later, stamped by rrweb at its release.
      rrweb!.emit({
        type: 3,
        timestamp: 10_100,
        data: { source: 0, adds: [], removes: [], texts: [], attributes: [] },
      });
      expect(emitted.map((e) => e.timestamp)).toEqual([10_040, 10_040]);

      // With nothing recorded in between, a released change is stamped when it happened.
      vi.setSystemTime(20_000);
      domChanged();
      rrweb!.emit({
        type: 3,
        timestamp: 20_100,
        data: { source: 0, adds: [], removes: [], texts: [], attributes: [] },
      });
      expect(emitted.at(-1)!.timestamp).toBe(20_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('returns a recording whose stop stops rrweb once and never throws', async () => {
    const { recording, stopRrweb } = await startRecorder();
    stopRrweb.mockImplementation(() => {
      throw new Error('document is gone');
    });
    expect(() => recording.stop()).not.toThrow();
    recording.stop();
    expect(stopRrweb).toHaveBeenCalledTimes(1);
  });

  it('reports recorder_unavailable when rrweb could not start', async () => {
    const stops: RecordingStopped[] = [];
    vi.mocked(record).mockReturnValue(undefined);
    (await loadRecorder())(
      config.replay,
      () => {},
      (detail) => stops.push(detail),
    );
    expect(stops).toEqual([{ reason: 'recorder_unavailable' }]);
  });

  it('shares one load between callers', async () => {
    const [first, second] = await Promise.all([loadRecorder(), loadRecorder()]);
    expect(first).toBe(second);
  });
});

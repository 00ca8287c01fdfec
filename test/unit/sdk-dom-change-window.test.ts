import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DOM_CHANGE_WINDOW_MAX_MS,
  DOM_CHANGE_WINDOW_MS,
  openDomChangeWindow,
  RELEASE_TAG,
} from '../../src/replay/dom-change-window';
import { stubMutationObserver } from '../support/dom-change-observer';

// The window's timing, on fake timers: when held changes are released, and what releases them early. That rrweb
// really holds and serializes what the window says is covered in real Chromium (test/e2e/sdk-replay-recording.spec.ts).

class FakeNode {}
const known = new FakeNode();
const fresh = new FakeNode();

let domChanged: () => void = () => undefined;
const listeners = new Map<string, (event: Event) => void>();

function stubBrowser(): void {
  vi.stubGlobal('Node', FakeNode);
  vi.stubGlobal('document', { getSelection: () => null });
  vi.stubGlobal('window', {
    addEventListener: (type: string, listener: (event: Event) => void) => listeners.set(type, listener),
    removeEventListener: (type: string) => listeners.delete(type),
  });
  stubMutationObserver((callback) => (domChanged = callback));
}

/** A window over a fake rrweb; `released` holds the times (fake `Date.now()`) at which it released held changes. */
function openWindow() {
  const released: number[] = [];
  const rrweb = {
    freezePage: vi.fn(),
    addCustomEvent: vi.fn((tag: string) => {
      if (tag === RELEASE_TAG) released.push(Date.now());
    }),
    mirror: { getId: (node: unknown) => (node === known ? 7 : -1) },
  };
  const window = openDomChangeWindow(rrweb as unknown as Parameters<typeof openDomChangeWindow>[0]);
  return { window, released };
}

/** The DOM changes every `everyMs` until `untilMs` (fake time from 0). */
function churn(everyMs: number, untilMs: number): void {
  for (let at = 0; at < untilMs; at += everyMs) {
    vi.setSystemTime(at);
    domChanged();
    vi.advanceTimersByTime(everyMs);
  }
}

/** A DOM event dispatched to the window's capture listener, with `target` as its target. */
function dispatch(type: string, target: FakeNode): void {
  listeners.get(type)!({ type, composedPath: () => [target] } as unknown as Event);
}

describe('the DOM-change window', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0, toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    listeners.clear();
    stubBrowser();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it(`grows from ${DOM_CHANGE_WINDOW_MS} ms to at most ${DOM_CHANGE_WINDOW_MAX_MS} ms while the DOM keeps changing`, () => {
    const { released } = openWindow();
    churn(20, 3_000);
    const lengths = released.map((at, i) => at - (i === 0 ? 0 : released[i - 1]!));
    // Each window opens with the first change after the last one ended, and is twice as long, up to the cap.
    expect(lengths).toEqual([100, 200, 400, 800, 800]);
    // Without growing, 3 s of changes every 20 ms took 25 serializations.
    expect(released.length).toBeLessThanOrEqual(6);
  });

  it(`starts again at ${DOM_CHANGE_WINDOW_MS} ms once the DOM has been quiet for a window`, () => {
    const { released } = openWindow();
    churn(20, 1_000);
    vi.advanceTimersByTime(2_000);
    const before = released.length;
    vi.setSystemTime(10_000);
    domChanged();
    vi.advanceTimersByTime(DOM_CHANGE_WINDOW_MS);
    expect(released.slice(before)).toEqual([10_000 + DOM_CHANGE_WINDOW_MS]);
  });

  it(`lets a person pointing at a known node see changes held over ${DOM_CHANGE_WINDOW_MS} ms, never those younger`, () => {
    const { released } = openWindow();
    churn(20, 800); // the current window now runs longer than the base one
    const held = released.length;
    vi.advanceTimersByTime(DOM_CHANGE_WINDOW_MS - 20);
    dispatch('mousedown', known);
    expect(released.length).toBe(held + 1);
    // Changes made since, younger than a base window: a press on a known node leaves them held ...
    domChanged();
    vi.advanceTimersByTime(50);
    dispatch('pointerdown', known);
    expect(released.length).toBe(held + 1);
    // ... and key presses, scrolling and focus never release, however old the changes; an event on a node rrweb does
    // not know always does.
    vi.advanceTimersByTime(DOM_CHANGE_WINDOW_MS);
    for (const type of ['input', 'scroll', 'focus']) dispatch(type, known);
    expect(released.length).toBe(held + 1);
    dispatch('input', fresh);
    expect(released.length).toBe(held + 2);
  });
});

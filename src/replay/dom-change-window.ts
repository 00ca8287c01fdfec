import type { record } from '@rrweb/record';

/**
 * How long DOM changes are held before rrweb serializes them. Content that lives for less than this (a list re-rendered
 * twice, a skeleton swapped for its content, a node added and removed on the next frame) is never serialized; a change
 * that stays reaches the replay at most this late. docs/sdk-replay.md, "DOM changes", says why 100 ms.
 */
export const DOM_CHANGE_WINDOW_MS = 100;

/**
 * The longest a window grows to while the DOM keeps changing: each window that starts within
 * {@link DOM_CHANGE_WINDOW_MS} of the last one's end is twice as long as that one, up to this. A page that re-renders
 * without pause (a live grid, a ticker) is then serialized a few times a second instead of ten, and plays back at that
 * rate; a person pointing at it still sees it at most {@link DOM_CHANGE_WINDOW_MS} late (`POINTING`).
 */
export const DOM_CHANGE_WINDOW_MAX_MS = 800;

/** The custom event that makes rrweb emit what it held; the recorder drops it before the timeline sees it. */
export const RELEASE_TAG = 'svc.release_dom_changes';

/**
 * Events from which rrweb reads a node id off the event target (mouse, touch, focus, form, scroll, media and selection
 * observers). A node added during the window has no id until rrweb serialized it, so such an event on such a node
 * releases the held changes first: listening on `window` in the capture phase runs before rrweb's listeners on
 * `document`. An event on a node rrweb knows does not: typing into a field or clicking a button while the page
 * re-renders elsewhere leaves the window whole (the bundled rrweb does not resume for these events either).
 */
const TARGET_EVENTS = [
  'pointerdown',
  'mousedown',
  'mouseup',
  'click',
  'dblclick',
  'contextmenu',
  'touchstart',
  'touchend',
  'focus',
  'blur',
  'input',
  'change',
  'scroll',
  'play',
  'pause',
  'seeked',
  'volumechange',
  'ratechange',
  'selectionchange',
] as const;

/**
 * A person pointing at something (`pointerdown`, `mousedown`; a touch is a pointer too): such an event releases changes
 * held for longer than {@link DOM_CHANGE_WINDOW_MS} even on a node rrweb knows, so that what a replay shows under a
 * press is never staler than a window of the usual length. Key presses, mouse moves and scrolling do not: they come many
 * times a second.
 */
const POINTING = /down$/;

export interface DomChangeWindow {
  /** Emits the held changes now (before a flush, a full snapshot or the page leaving). */
  release(): void;
  /**
   * While changes are held or being released: when the last DOM change was seen (`Date.now()`, rrweb's clock). rrweb
   * stamps a mutation event when it emits it, which for held changes is up to the window late; the DOM it describes is
   * the one of this moment. `undefined` otherwise: what rrweb emits then, it emits as it happens.
   */
  lastChangeAt(): number | undefined;
  stop(): void;
}

type Rrweb = Pick<typeof record, 'freezePage' | 'addCustomEvent' | 'mirror'>;

/** The nodes rrweb reads an id off for this event: its target (inside a shadow root too), or a selection's ends. */
function nodesOf(event: Event): unknown[] {
  const selection = event.type === 'selectionchange' && document.getSelection();
  return selection ? [selection.anchorNode, selection.focusNode] : [event.composedPath()[0]];
}

/**
 * Coalesces DOM changes into windows of `windowMs`, through rrweb's own pause (`freezePage`): a paused rrweb still
 * notes which nodes were added and removed, but serializes only the ones still in the document when it resumes. On a
 * page that churns the DOM this is most of the recorder's main-thread time, heap and bytes. While the DOM keeps
 * changing, windows grow up to `maxWindowMs` ({@link DOM_CHANGE_WINDOW_MAX_MS}).
 *
 * Must be opened before rrweb starts recording: mutation observers are called in the order they were created, so this
 * one pauses rrweb before rrweb's observer sees the same changes.
 */
export function openDomChangeWindow(
  rrweb: Rrweb,
  windowMs = DOM_CHANGE_WINDOW_MS,
  maxWindowMs = DOM_CHANGE_WINDOW_MAX_MS,
): DomChangeWindow {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastChange = 0;
  let releasing = false;
  let openedAt = 0;
  let span = windowMs;
  let endedAt = -Infinity;
  const release = (): void => {
    // Changes made earlier in this task are not delivered to observers yet: held too, so that what is released (and
    // a timeline event recorded next) includes them.
    if (observer.takeRecords().length > 0) hold();
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    endedAt = Date.now();
    releasing = true;
    try {
      // Any event other than a mutation resumes a paused rrweb; a custom event is the one rrweb lets us emit.
      rrweb.addCustomEvent(RELEASE_TAG, null);
    } catch {
      // rrweb throws only when it is not recording: nothing is held then.
    } finally {
      releasing = false;
    }
  };
  const hold = (): void => {
    lastChange = Date.now();
    // Every time, not once per window: rrweb resumes by itself on any event it records (a mouse move, say).
    rrweb.freezePage();
    if (timer !== undefined) return;
    // The DOM still changing right after the last window: this one is twice as long; after a pause, back to windowMs.
    span = lastChange - endedAt < windowMs ? Math.min(2 * span, maxWindowMs) : windowMs;
    openedAt = lastChange;
    timer = setTimeout(release, span);
  };
  // Only a node rrweb has not serialized lacks an id (the window object is no node: rrweb reads no id off it).
  const releaseForEvent = (event: Event): void => {
    // Only a press reads the clock: input, selection and focus events come many times a second.
    const pressOnHeldLong = POINTING.test(event.type) && timer !== undefined && Date.now() - openedAt > windowMs;
    if (pressOnHeldLong || nodesOf(event).some((node) => node instanceof Node && rrweb.mirror.getId(node) === -1))
      release();
  };
  const observer = new MutationObserver(hold);
  observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  const listening = { capture: true, passive: true } as const;
  for (const type of TARGET_EVENTS) window.addEventListener(type, releaseForEvent, listening);
  return {
    release,
    lastChangeAt: () => (timer !== undefined || releasing ? lastChange : undefined),
    stop() {
      observer.disconnect();
      for (const type of TARGET_EVENTS) window.removeEventListener(type, releaseForEvent, listening);
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

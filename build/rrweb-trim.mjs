import MagicString from 'magic-string';

/**
 * Bundles `@rrweb/record` into the SDK's builds without the recording features the SDK never turns on, and with two
 * memory fixes (below, in EDITS) that upstream has not released.
 *
 * Why: issue 4's budget (everything with replay loaded ≤ 65 KB min+gzip) and because every byte of the recorder is
 * fetched by every recorded page. rrweb cannot leave these out by itself: `record()` constructs its canvas manager
 * (with an inline image-bitmap worker held as a string) and its cross-origin iframe relay whatever the options say, so
 * no bundler can tree-shake them. Sentry does the same with its rrweb fork (`__RRWEB_EXCLUDE_CANVAS__`,
 * `__RRWEB_EXCLUDE_IFRAME__` build flags). Measured with esbuild, minified, gzip level 9: rrweb 22,805 B as published,
 * 19,120 B trimmed (docs/sdk-build.md has the current figures).
 *
 * What goes, and why it is never reached (src/replay/recorder.ts sets none of these options):
 * - canvas recording (`recordCanvas`): the canvas manager, its WebGL/2D observers and its worker;
 * - cross-origin iframe recording (`recordCrossOriginIframes`): the `postMessage` relay that re-maps ids of events
 *   sent up by recorders inside cross-origin frames. Same-origin iframes are still recorded;
 * - canvas contents and inlined images in snapshots (`recordCanvas`, `inlineImages`);
 * - web fonts loaded through the FontFace API (`collectFonts`);
 * - `hooks` (`mergeHooks`): callbacks around each observer, an option the SDK does not expose;
 * - `plugins` and `packFn`, and rrweb's own `checkoutEveryNth`/`checkoutEveryNms` (the recorder takes its full
 *   snapshots itself, after checking the DOM's size);
 * - the number-to-name half of rrweb's enums, which rrweb never reads.
 *
 * Each edit replaces one exact piece of the pinned rrweb version (package.json pins it exactly). If a piece is not
 * found exactly once, the build fails rather than shipping an untrimmed or broken recorder.
 */

/** The module of `@rrweb/record` that bundlers resolve for `import` (its package.json `exports`). */
const RECORD_MODULE = /[\\/]@rrweb[\\/]record[\\/]dist[\\/]record\.js$/;

const LICENSE_BANNER =
  '/*! rrweb, trimmed | MIT License | Copyright (c) 2018 Contributors ' +
  '(https://github.com/rrweb-io/rrweb/graphs/contributors) and SmartX Inc. */\n';

/**
 * The reverse (number to name) entries of rrweb's compiled TypeScript enums, e.g.
 * `EventType2[EventType2["Meta"] = 4] = "Meta";`. rrweb only ever looks its enums up by name (and its one
 * `Object.keys(MouseInteractions)` skips numeric keys), so `EventType2["Meta"] = 4;` is all it needs.
 */
const REVERSE_ENUM_ENTRY = /(\w+)\[\1\["(\w+)"\] = (\d+)\] = "\2";/g;

/**
 * `from` and `to` delimit the removed code: from the first text (included) to the second (kept); without `to`, `from`
 * itself is what is replaced. `with` takes its place.
 */
const EDITS = [
  {
    what: 'fix: a hidden iframe realm kept alive for the whole recording (rrweb-io/rrweb#1802)',
    // rrweb checks that DOM accessors are native before using them, but lists the methods querySelector and
    // querySelectorAll among Element's accessors: the check always fails, and rrweb borrows Element.prototype from a
    // throwaway iframe, whose whole JavaScript realm (about 0.35 MB of heap) then lives as long as the page. Checked
    // as methods, as the upstream fix does, they pass on every page that has not patched them.
    from: 'Element: ["shadowRoot", "querySelector", "querySelectorAll"],',
    with: 'Element: ["shadowRoot"],',
  },
  {
    what: 'fix, continued: querySelector and querySelectorAll checked as the methods they are',
    from: '  Element: [],\n  MutationObserver: ["constructor"]',
    with: '  Element: ["querySelector", "querySelectorAll"],\n  MutationObserver: ["constructor"]',
  },
  {
    what: 'fix: serialized elements turned into slow dictionary objects',
    // `delete` on each serialized element (kept in rrweb's mirror for as long as the node lives) switches it to V8's
    // dictionary mode, about 0.2 KB of heap per element. An undefined property serializes the same: JSON leaves it out.
    from: 'delete serializedNode.needBlock;',
    with: 'serializedNode.needBlock = void 0;',
  },
  {
    what: 'perf: mutation records held while frozen, processed once when rrweb resumes',
    // rrweb's pause (`freezePage`, the SDK's DOM-change window) only defers serialization: each mutation record is
    // still walked as it arrives (every added subtree, every removal), so content added and removed again within the
    // window costs as much as content that stays. Held records are processed once, against the DOM of that moment,
    // as if the MutationObserver had delivered them in one callback (which rrweb handles: a long task does that).
    from: '    __publicField(this, "processMutations", (mutations) => {\n      mutations.forEach(this.processMutation);\n      this.emit();\n    });',
    with:
      '    __publicField(this, "held", []);\n' +
      '    __publicField(this, "processMutations", (mutations) => {\n' +
      '      if (this.frozen) {\n        for (const m of mutations) this.held.push(m);\n        return;\n      }\n' +
      '      const held = this.held;\n      this.held = [];\n      held.forEach(this.processMutation);\n' +
      '      mutations.forEach(this.processMutation);\n      this.emit();\n    });',
  },
  {
    what: 'perf, continued: resuming processes the held records and those not delivered yet (and emits)',
    // The SDK resumes rrweb in the middle of a task (a timeline event, a flush), when the DOM may be ahead of the
    // records delivered so far: a node added earlier whose next sibling was added since would be emitted against a
    // sibling rrweb does not know, and dropped ("Couldn't find mirror id for nextSibling"). Taking the observer's
    // pending records first makes what is emitted match the DOM of that moment.
    from: '  unfreeze() {\n    this.frozen = false;\n    this.canvasManager.unfreeze();\n    this.emit();\n  }',
    with: '  unfreeze() {\n    this.frozen = false;\n    this.processMutations(this.observer.takeRecords());\n  }',
  },
  {
    what: 'perf, continued: each mutation buffer knows its observer, for its pending records',
    from: '  observer.observe(rootEl, {\n    attributes: true,',
    with: '  mutationBuffer.observer = observer;\n  observer.observe(rootEl, {\n    attributes: true,',
  },
  {
    what: 'perf, continued: a new node already gone from the document is not walked',
    // Such a node (added, then removed before its records were processed) is never emitted: emit() drops added nodes
    // without a parent. Walking its subtree only filled rrweb's sets; its removal returns early (never serialized).
    from: '    __publicField(this, "genAdds", (n, target) => {\n',
    with: '    __publicField(this, "genAdds", (n, target) => {\n      if (!n.isConnected && !this.mirror.hasNode(n)) return;\n',
  },
  {
    what: 'perf, continued: the removal of a node never serialized returns before any other check',
    // It returned anyway (`!isSerialized(n)`), after looking up its parent and testing the parent against the block
    // class: on a page that replaces a block every few milliseconds, most held removals are of such nodes.
    from: '            const nodeId = this.mirror.getId(n);\n            const parentId = isShadowRoot(m.target)',
    with: '            const nodeId = this.mirror.getId(n);\n            if (nodeId < 0) return;\n            const parentId = isShadowRoot(m.target)',
  },
  {
    what: "fix: a removed node's mirror entry let go when its removal is recorded",
    // rrweb drops a removed node's id from its id-to-node map but keeps the node's entry in its node-to-meta WeakMap
    // until the garbage collector finds the node dead. DOM nodes die only in a full collection, so on a page that
    // re-renders a few hundred nodes many times a second the WeakMap grows to the nodes serialized between two of
    // them, and V8 never shrinks a WeakMap's table that the collector emptied (only a `delete` does): 0.5 MB of heap
    // for the rest of the page's life on bench:overhead's typing-churn workload. Deleting the entry here is what
    // rrweb does with the id already: a removed node moved back later is a new node to rrweb, serialized under a new
    // id after its removal under the old one, which plays back the same.
    from: '    this.idNodeMap.delete(id);\n    if (n.childNodes) {',
    with: '    this.idNodeMap.delete(id);\n    this.nodeMetaMap.delete(n);\n    if (n.childNodes) {',
  },
  {
    what: 'perf: what the user does (pointer, keys, scroll, media, selection) does not resume a frozen rrweb',
    // rrweb resumes (serializes what it holds) before any event it records other than a mutation. For the events of
    // user input that buys nothing: the event already carries the node id it read off its target, and resuming cannot
    // give an id to a node rrweb has not serialized. The SDK's DOM-change window resumes rrweb itself, before rrweb's
    // listeners run, when the target is such a node; otherwise resuming here only cut the window short, and a page
    // that re-renders while the user types, moves the mouse or scrolls was serialized at every key press and batch of
    // mouse positions. Sources: Mutation 0, MouseMove 1, MouseInteraction 2, Scroll 3, Input 5, TouchMove 6,
    // MediaInteraction 7, Drag 12, Selection 14 (the others, style sheets among them, still resume).
    from: 'e.type !== EventType.FullSnapshot && !(e.type === EventType.IncrementalSnapshot && e.data.source === IncrementalSource.Mutation)',
    with: 'e.type !== EventType.FullSnapshot && !(e.type === EventType.IncrementalSnapshot && [0, 1, 2, 3, 5, 6, 7, 12, 14].includes(e.data.source))',
  },
  {
    what: 'fidelity: a mouse position over a node not recorded yet names its nearest recorded ancestor',
    // rrweb stamps each position with the id of the node under the pointer, -1 for a node it has not serialized, and
    // rrweb's player skips a position whose node it cannot find: the cursor froze wherever the page had re-rendered
    // under it within the SDK's DOM-change window (up to DOM_CHANGE_WINDOW_MAX_MS on a page that keeps changing).
    // The player places the cursor by the position's coordinates and only uses the node for its frame and hover, so
    // the nearest ancestor rrweb knows (same document) plays back the same place.
    from: '          id: mirror2.getId(target),\n          timeOffset: nowTimestamp() - timeBaseline',
    with: '          id: recordedAncestorId(mirror2, target),\n          timeOffset: nowTimestamp() - timeBaseline',
  },
  {
    what: 'fidelity, continued: the nearest recorded ancestor',
    from: 'function initMoveObserver({',
    with:
      'function recordedAncestorId(mirror2, node) {\n' +
      '  let id = mirror2.getId(node);\n' +
      '  while (id === -1 && node.parentNode) id = mirror2.getId((node = node.parentNode));\n' +
      '  return id;\n}\nfunction initMoveObserver({',
  },
  {
    what: "the relay of a frame's events to its parent recorder (`recordCrossOriginIframes`)",
    from: '  const inEmittingFrame = recordCrossOriginIframes ? window.parent === window : true;',
    to: '  if (mousemoveWait !== void 0 && sampling.mousemove === void 0) {',
    with: '  if (!emit) {\n    throw new Error("emit function is required");\n  }\n',
  },
  {
    what: "plugins' and `packFn`'s processing of every event",
    from: '  const eventProcessor = (e) => {',
    to: '  wrappedEmit = (r, isCheckout) => {',
    with: '',
  },
  {
    what: 'the relay, continued; and `checkoutEveryNth`/`checkoutEveryNms` (the recorder checks out itself)',
    from: '    if (inEmittingFrame) {\n      emit == null ? void 0 : emit(eventProcessor(e), isCheckout);',
    to: '  const wrappedMutationEmit = (m) => {',
    with: '    emit(e, isCheckout);\n  };\n',
  },
  {
    what: 'the checkout counters, continued',
    from: '  let lastFullSnapshotEvent;\n  let incrementalSnapshotCount = 0;\n',
    with: '',
  },
  {
    what: 'plugins: their mirrors',
    from: '  for (const plugin of plugins || []) {\n    if (plugin.getMirror)',
    to: '  const processedNodeManager = new ProcessedNodeManager();',
    with: '',
  },
  {
    what: 'plugins: their observers',
    from: '          plugins: ((_a2 = plugins == null ? void 0 : plugins.filter((p) => p.observer))',
    to: '        },\n        hooks\n      );',
    with: '          plugins: []\n',
  },
  {
    what: 'the deprecated module-level `mirror` stand-in, which nothing reads (rrweb exports `record.mirror`)',
    from: 'const DEPARTED_MIRROR_ACCESS_WARNING = ',
    to: 'function throttle(func, wait, options = {}) {',
    with: '',
  },
  {
    what: "rrdom's base node, only ever an `instanceof` test (the recorder never sees rrdom nodes)",
    from: 'class BaseRRNode {',
    to: 'function on(type, fn, target = document) {',
    with: 'class BaseRRNode {\n}\n',
  },
  {
    what: 'a NodeList/DOMTokenList forEach polyfill for browsers older than the SDK supports (ES2018)',
    from: 'function polyfill(win = window) {',
    to: 'function isSerializedIframe(n, mirror2) {',
    with: 'function polyfill() {}\n',
  },
  {
    what: 'canvas recording: the image-bitmap worker source, its loader and the canvas manager',
    from: 'const jsContent = ',
    to: 'class StylesheetManager {',
    // The methods MutationBuffer and record() call on the canvas manager, doing nothing.
    with: 'class CanvasManager {\n  reset() {}\n  freeze() {}\n  unfreeze() {}\n  lock() {}\n  unlock() {}\n}\n',
  },
  {
    what: "cross-origin iframe recording: the relay of child recorders' events and their id re-mapping",
    from: '  handleMessage(message) {',
    to: 'class ShadowDomManager {',
    // Only added as a `message` listener when `recordCrossOriginIframes` is set.
    with: '  handleMessage() {}\n}\n',
  },
  {
    what: 'canvas recording in snapshots, and inlining images as data URLs (`inlineImages`)',
    from: '  if (tagName === "canvas" && recordCanvas) {',
    to: '  if (["audio", "video"].includes(tagName)) {',
    with: '',
  },
  {
    what: 'web font recording (`collectFonts`)',
    from: 'function initFontObserver({ fontCb, doc }) {',
    to: 'function initSelectionObserver(param) {',
    // Only called when `collectFonts` is set.
    with: 'function initFontObserver() {\n  return () => {};\n}\n',
  },
  {
    what: 'the id mirror of cross-origin iframes, only read by the relay above',
    from: 'class CrossOriginIframeMirror {',
    to: 'class IframeManager {',
    with: 'class CrossOriginIframeMirror {}\n',
  },
  {
    what: 'observer hooks',
    from: 'function mergeHooks(o, hooks) {',
    to: 'function initObservers(o, hooks = {}) {',
    with: 'function mergeHooks() {}\n',
  },
];

function indexOnce(code, text, what) {
  const at = code.indexOf(text);
  if (at === -1 || code.indexOf(text, at + 1) !== -1) {
    throw new Error(`rrweb-trim (${what}): expected exactly one "${text}" in @rrweb/record; was rrweb upgraded?`);
  }
  return at;
}

/**
 * Applies EDITS to the source of @rrweb/record's ES module; a MagicString so that the source map still points into
 * rrweb's code.
 */
export function trimRrwebSource(code) {
  const trimmed = new MagicString(code);
  for (const edit of EDITS) {
    const start = indexOnce(code, edit.from, edit.what);
    const end = edit.to === undefined ? start + edit.from.length : indexOnce(code, edit.to, edit.what);
    if (end <= start) throw new Error(`rrweb-trim (${edit.what}): "${edit.to}" comes before "${edit.from}"`);
    trimmed.overwrite(start, end, edit.with);
  }
  let enumEntries = 0;
  for (const match of code.matchAll(REVERSE_ENUM_ENTRY)) {
    trimmed.overwrite(match.index, match.index + match[0].length, `${match[1]}["${match[2]}"] = ${match[3]};`);
    enumEntries++;
  }
  if (enumEntries === 0) throw new Error('rrweb-trim: no enum entries found in @rrweb/record; was rrweb upgraded?');
  return trimmed.prepend(LICENSE_BANNER);
}

/** Rollup plugin: trims @rrweb/record as it is loaded; fails the build if the module was never part of it. */
export function trimRrweb() {
  let trimmed = false;
  return {
    name: 'rrweb-trim',
    transform(code, id) {
      if (!RECORD_MODULE.test(id)) return null;
      trimmed = true;
      try {
        const trimmedCode = trimRrwebSource(code);
        return { code: trimmedCode.toString(), map: trimmedCode.generateMap({ hires: true, source: id }) };
      } catch (error) {
        this.error(error instanceof Error ? error.message : String(error));
      }
    },
    buildEnd(error) {
      if (!error && !trimmed) this.error('@rrweb/record was not part of the build; the recorder would not be trimmed');
    },
  };
}

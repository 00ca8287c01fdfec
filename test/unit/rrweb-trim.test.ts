import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without declarations.
import { trimRrwebSource } from '../../build/rrweb-trim.mjs';

// What the SDK's builds bundle instead of @rrweb/record as published (build/rrweb-trim.mjs). That the trimmed recorder
// still records, masks and replays is what every replay end-to-end test checks, since they all run the built files.
const trim = trimRrwebSource as (code: string) => { toString(): string };
const published = readFileSync(
  createRequire(import.meta.url)
    .resolve('@rrweb/record')
    .replace(/record\.c?js$/, 'record.js'),
  'utf8',
);

describe('rrweb trim', () => {
  const trimmed = trim(published).toString();

  it('leaves out the canvas worker, the cross-origin iframe relay, fonts and hooks', () => {
    for (const gone of [
      'const jsContent',
      'new Worker(',
      'transformCrossOriginEvent',
      'initCanvasFPSObserver',
      'win.FontFace',
      'is2DCanvasBlank(n)',
    ]) {
      expect(published, `${gone} in the published rrweb`).toContain(gone);
      expect(trimmed, `${gone} in the trimmed rrweb`).not.toContain(gone);
    }
    expect(trimmed.length).toBeLessThan(published.length * 0.9);
  });

  it('keeps what the recorder calls and the name-to-number half of the enums', () => {
    for (const kept of [
      'record.freezePage = ',
      'record.addCustomEvent = ',
      'record.takeFullSnapshot = ',
      'class MutationBuffer',
      'EventType2["Meta"] = 4;',
    ]) {
      expect(trimmed).toContain(kept);
    }
    expect(trimmed).not.toContain('] = "Meta"');
  });

  it('checks querySelector and querySelectorAll as methods (no borrowed iframe realm), never deletes from serialized nodes, lets removed nodes go', () => {
    expect(trimmed).toContain('Element: ["shadowRoot"],');
    expect(trimmed).toContain('Element: ["querySelector", "querySelectorAll"],');
    expect(trimmed).not.toContain('delete serializedNode.needBlock');
    // A removed node's entry leaves the node-to-meta WeakMap with its id (V8 never shrinks a table the collector
    // emptied).
    expect(trimmed).toContain('this.idNodeMap.delete(id);\n    this.nodeMetaMap.delete(n);');
    expect(trimmed.startsWith('/*! rrweb, trimmed | MIT License')).toBe(true);
  });

  it('holds mutation records while frozen and processes them, with the undelivered ones, once when resuming', () => {
    // What this changes in a real page (content gone within the window never walked, nothing that stays lost) is
    // test/e2e/sdk-replay-recording.spec.ts and sdk-replay-worker.spec.ts; its cost, docs/benchmarks.md.
    expect(trimmed).toContain('if (this.frozen) {\n        for (const m of mutations) this.held.push(m);');
    expect(trimmed).toContain('this.processMutations(this.observer.takeRecords());');
    expect(trimmed).toContain('mutationBuffer.observer = observer;');
    expect(trimmed).toContain('if (!n.isConnected && !this.mirror.hasNode(n)) return;');
    expect(trimmed).toContain('const nodeId = this.mirror.getId(n);\n            if (nodeId < 0) return;');
    // User input does not resume: the SDK's window does, when the target is a node rrweb has not serialized.
    expect(trimmed).toContain(
      'e.type === EventType.IncrementalSnapshot && [0, 1, 2, 3, 5, 6, 7, 12, 14].includes(e.data.source)',
    );
    for (const gone of ['DEPARTED_MIRROR_ACCESS_WARNING', 'RRDomException', 'NodeList.prototype.forEach = '])
      expect(trimmed).not.toContain(gone);
  });

  it('fails loudly when rrweb no longer has a piece it cuts (an upgrade)', () => {
    expect(() => trim(published.replace('class StylesheetManager {', 'class StyleSheetManager {'))).toThrow(
      /class StylesheetManager \{.*upgraded/,
    );
    expect(() => trim(`${published}\nfunction mergeHooks(o, hooks) {}`)).toThrow(/exactly one "function mergeHooks/);
  });
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { DEBUG_ID_PATTERN, debugIdFor } from '../../bundler-plugin/src/core/debug-id';
import { debugIdSnippet, injectFile } from '../../bundler-plugin/src/core/inject';
import { removeMaps } from '../../bundler-plugin/src/core/remove-maps';

const root = mkdtempSync(join(tmpdir(), 'svc-inject-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;

/** Writes `files` (name → content) into a fresh directory; returns its path. */
function fixture(files: Record<string, string>): string {
  const dir = join(root, String(count++));
  mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), content);
  }
  return dir;
}
const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');
const mapOf = (dir: string, name: string) => JSON.parse(read(dir, name)) as Record<string, unknown>;
const MAP = JSON.stringify({ version: 3, sources: ['a.ts'], names: [], mappings: 'AAAA' });
const SENTRY_ID = 'b2a1c3d4-1e2f-4a5b-8c6d-7e8f9a0b1c2d';

describe('injectFile', () => {
  it('adds the snippet and the comment before the sourceMappingURL, leaves every line of code in place, and writes the id into the map', async () => {
    const code = 'function f(){throw new Error("x")}\nf();\n';
    const original = `${code}//# sourceMappingURL=app.js.map\n`;
    const dir = fixture({ 'app.js': original, 'app.js.map': MAP });
    const result = await injectFile(join(dir, 'app.js'));
    expect(result).toEqual({
      file: join(dir, 'app.js'),
      map: join(dir, 'app.js.map'),
      debugId: debugIdFor(original),
      injected: true,
    });
    expect(result.debugId).toMatch(DEBUG_ID_PATTERN);
    expect(result.debugId[14]).toBe('4');
    expect('89ab').toContain(result.debugId[19]);
    expect(read(dir, 'app.js')).toBe(
      `${code}${debugIdSnippet(result.debugId)}\n//# debugId=${result.debugId}\n//# sourceMappingURL=app.js.map\n`,
    );
    expect(mapOf(dir, 'app.js.map')).toEqual({ ...JSON.parse(MAP), debugId: result.debugId });
  });

  it('gives identical content the same id, and different content another', () => {
    expect(debugIdFor('a();\n')).toBe(debugIdFor('a();\n'));
    expect(debugIdFor('a();\n')).not.toBe(debugIdFor('b();\n'));
  });

  it('injects a file without a map, and leaves the map null', async () => {
    const dir = fixture({ 'plain.js': 'console.log(1);\n' });
    const result = await injectFile(join(dir, 'plain.js'));
    expect(result.map).toBeNull();
    expect(read(dir, 'plain.js')).toMatch(
      new RegExp(`^console\\.log\\(1\\);\\n;!function.*\\n//# debugId=${result.debugId}\\n$`),
    );
  });

  it('finds a hidden map (no sourceMappingURL comment) beside the file as <file>.map', async () => {
    const dir = fixture({ 'hidden.js': 'x();\n', 'hidden.js.map': MAP });
    const result = await injectFile(join(dir, 'hidden.js'));
    expect(result.map).toBe(join(dir, 'hidden.js.map'));
    expect(mapOf(dir, 'hidden.js.map').debugId).toBe(result.debugId);
    expect(read(dir, 'hidden.js').endsWith(`//# debugId=${result.debugId}\n`)).toBe(true);
  });

  it('changes nothing the second time: same id, same bytes in the file and its map', async () => {
    const dir = fixture({ 'twice.js': 'y();\n//# sourceMappingURL=twice.js.map', 'twice.js.map': MAP });
    const first = await injectFile(join(dir, 'twice.js'));
    const [js, map] = [read(dir, 'twice.js'), read(dir, 'twice.js.map')];
    const second = await injectFile(join(dir, 'twice.js'));
    expect(second).toEqual({ ...first, injected: false });
    expect(read(dir, 'twice.js')).toBe(js);
    expect(read(dir, 'twice.js.map')).toBe(map);
  });

  it("keeps the id of a file Sentry's tools injected, and the map's debug_id", async () => {
    const sentry = `a();\n!function(){try{var e="undefined"!=typeof window?window:{},n=(new e.Error).stack;n&&(e._sentryDebugIds=e._sentryDebugIds||{},e._sentryDebugIds[n]="${SENTRY_ID}")}catch(e){}}();\n//# debugId=${SENTRY_ID}\n//# sourceMappingURL=s.js.map\n`;
    const sentryMap = JSON.stringify({ ...JSON.parse(MAP), debug_id: SENTRY_ID });
    const dir = fixture({
      's.js': sentry,
      's.js.map': sentryMap,
      'bare.js': sentry.replaceAll('s.js.map', 'bare.js.map'),
      'bare.js.map': MAP,
    });
    expect(await injectFile(join(dir, 's.js'))).toMatchObject({ debugId: SENTRY_ID, injected: false });
    expect(read(dir, 's.js')).toBe(sentry);
    expect(read(dir, 's.js.map')).toBe(sentryMap);
    // A map that lost its id (rebuilt by another tool) gets the file's.
    await injectFile(join(dir, 'bare.js'));
    expect(mapOf(dir, 'bare.js.map').debugId).toBe(SENTRY_ID);
  });

  it("replaces a map's stale id when the file has none", async () => {
    const dir = fixture({
      'stale.js': 'z();\n',
      'stale.js.map': JSON.stringify({ ...JSON.parse(MAP), debugId: SENTRY_ID, debug_id: SENTRY_ID }),
    });
    const { debugId } = await injectFile(join(dir, 'stale.js'));
    expect(mapOf(dir, 'stale.js.map')).toMatchObject({ debugId, debug_id: debugId });
  });

  it('keeps CRLF line endings', async () => {
    const dir = fixture({ 'crlf.js': 'a();\r\nb();\r\n//# sourceMappingURL=crlf.js.map\r\n', 'crlf.js.map': MAP });
    const { debugId } = await injectFile(join(dir, 'crlf.js'));
    const text = read(dir, 'crlf.js');
    expect(text).toBe(
      `a();\r\nb();\r\n${debugIdSnippet(debugId)}\r\n//# debugId=${debugId}\r\n//# sourceMappingURL=crlf.js.map\r\n`,
    );
    expect(text.replaceAll('\r\n', '')).not.toContain('\n');
  });

  it('puts the snippet on a line of its own when the file ends without a newline, even after a line comment', async () => {
    const dir = fixture({ 'end.js': 'globalThis.ran = true // no newline' });
    const { debugId } = await injectFile(join(dir, 'end.js'));
    expect(read(dir, 'end.js')).toBe(
      `globalThis.ran = true // no newline\n${debugIdSnippet(debugId)}\n//# debugId=${debugId}\n`,
    );
  });

  it('runs: the snippet records its stack against its id in _svcDebugIds, and the code still runs', async () => {
    const dir = fixture({ 'run.js': 'globalThis.ran = true // no newline' });
    const { debugId } = await injectFile(join(dir, 'run.js'));
    const context = vm.createContext({});
    vm.runInContext(read(dir, 'run.js'), context, { filename: 'https://shop.example/assets/run.js' });
    const registry = context._svcDebugIds as Record<string, string>;
    expect(context.ran).toBe(true);
    expect(Object.values(registry)).toEqual([debugId]);
    expect(Object.keys(registry)[0]).toContain('https://shop.example/assets/run.js');
  });

  it('refuses a map that is not JSON, naming it', async () => {
    const dir = fixture({ 'bad.js': 'q();\n//# sourceMappingURL=bad.js.map\n', 'bad.js.map': '{not json' });
    await expect(injectFile(join(dir, 'bad.js'))).rejects.toThrow(
      `${join(dir, 'bad.js.map')} is not a JSON source map`,
    );
  });
});

describe('removeMaps', () => {
  it('deletes the map and the sourceMappingURL comment, and keeps the debug ID', async () => {
    const dir = fixture({
      'gone.js': 'w();\n//# sourceMappingURL=gone.js.map\n',
      'gone.js.map': MAP,
      'keep.js': 'k();\n',
    });
    const files = [await injectFile(join(dir, 'gone.js')), await injectFile(join(dir, 'keep.js'))];
    expect(await removeMaps(files)).toEqual([join(dir, 'gone.js.map')]);
    expect(existsSync(join(dir, 'gone.js.map'))).toBe(false);
    const text = read(dir, 'gone.js');
    expect(text).not.toContain('sourceMappingURL');
    expect(text.endsWith(`//# debugId=${files[0]!.debugId}\n`)).toBe(true);
  });
});

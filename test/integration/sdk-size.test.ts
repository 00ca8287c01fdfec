/**
 * Size budgets of what users download. Sizes are gzip (level 9, zlib), which is deterministic for a given input, so
 * a failure means the output grew, not that the measurement drifted. The budgets sit about 3 % above the last
 * measurement: enough for a small fix, not for a new dependency or a signal's worth of code to slip in unnoticed.
 * When a budget is exceeded on purpose, re-measure, set it ~3 % above the new figure and say why in the commit.
 *
 * These are the SDK's own files. What an application pays, dependencies included and minified, is checked by
 * sdk-budget.test.ts (a real Vite build against issue 3's 40 KB).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureSdkBuilt } from '../support/build-sdk';
import { esmGraph } from '../support/dist-graph';

/**
 * Budgets in gzip bytes, each the measurement + 3 %. Measured with the SDK runtime (initBrowserSDK and every signal):
 * ESM core 25,818 B, CDN 60,211 B. Before the runtime (config and recorder loader only) they were 3,502 and 24,875.
 */
const BUDGETS = {
  /**
   * dist/esm/index.js plus every module it imports statically (what an app pays before replay starts), unminified,
   * dependencies (OpenTelemetry, web-vitals) excluded: they stay external in the ESM build.
   */
  esmCore: 26_590,
  /** dist/cdn/svc.min.js: minified, every dependency inlined, rrweb included. */
  cdn: 62_020,
};

const esm = join(ROOT, 'dist', 'esm');

function gzipSize(buffer: Buffer): number {
  return gzipSync(buffer, { level: 9 }).length;
}

/** The eagerly loaded files of an ESM entry, concatenated as a bundler would put them in one chunk. */
function esmEntrySize(entry: string): { files: string[]; raw: number; gzip: number } {
  const { eager } = esmGraph(esm, entry);
  const code = Buffer.concat(eager.map((file) => readFileSync(join(esm, file))));
  return { files: eager, raw: code.length, gzip: gzipSize(code) };
}

beforeAll(async () => {
  await ensureSdkBuilt();
}, 180_000);

describe('SDK size budgets', () => {
  it('keeps the ESM core entry within budget', () => {
    const core = esmEntrySize('index.js');
    for (const entry of ['auto.js', 'react.js', 'replay/recorder.js']) {
      const size = esmEntrySize(entry);
      console.log(`dist/esm/${entry} (eager graph): ${size.raw} B raw, ${size.gzip} B gzip`);
    }
    console.log(`dist/esm/index.js (eager graph, ${core.files.length} files): ${core.raw} B raw, ${core.gzip} B gzip; budget ${BUDGETS.esmCore}`);
    expect(core.files).toContain('config/resolve.js');
    expect(core.gzip).toBeLessThanOrEqual(BUDGETS.esmCore);
  });

  it('keeps the CDN bundle within budget', () => {
    const code = readFileSync(join(ROOT, 'dist', 'cdn', 'svc.min.js'));
    const gzip = gzipSize(code);
    console.log(`dist/cdn/svc.min.js: ${code.length} B minified, ${gzip} B gzip; budget ${BUDGETS.cdn}`);
    expect(gzip).toBeLessThanOrEqual(BUDGETS.cdn);
  });
});

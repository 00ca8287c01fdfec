import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSdkBuilt } from '../../test/support/build-sdk';
import { childEnv } from '../../test/support/child-env';
import { serveFiles, type LocalServer } from '../../test/support/local-server';
import type { TestServer } from '../../test/support/svc-server';
import { median } from './stats';

const ROOT = process.cwd();
const PLAYWRIGHT_CLI = join(ROOT, 'node_modules/@playwright/test/cli.js');
const SUITE_CONFIG = join(ROOT, 'bench/playwright/suite/playwright.config.ts');

export type Mode = 'plain' | 'svc';

/** The static page: the SDK's script tag (the built dist/cdn/svc.min.js), and a script that says it ran. */
export function servePage(svc: Pick<TestServer, 'url' | 'ingestKey'>): Promise<LocalServer> {
  // Read once: a rebuild of dist/ meanwhile must not reach the pages.
  const sdk = readFileSync(join(ROOT, 'dist/cdn/svc.min.js'));
  const recorder = readFileSync(join(ROOT, 'dist/cdn/svc-recorder.min.js'));
  const page =
    '<!doctype html><html><head><title>bench</title></head><body><p id="out"></p>' +
    `<script src="/svc.min.js" data-api-key="${svc.ingestKey}" data-ingest-url="${svc.url}" data-service-version="bench@1.0.0"></script>` +
    "<script>document.getElementById('out').textContent = 'ready';</script></body></html>";
  return serveFiles({ '/': () => page, '/svc.min.js': () => sdk, '/svc-recorder.min.js': () => recorder });
}

interface JsonSuite {
  specs: Array<{ title: string; tests: Array<{ results: Array<{ status: string; duration: number }> }> }>;
  suites?: JsonSuite[];
}

export interface SuiteRun {
  mode: Mode;
  /** Test title → its duration (Playwright's JSON reporter: the test with its fixtures and hooks), ms. */
  durations: Map<string, number>;
  /** Wall time of the whole `playwright test` process, ms. */
  wallMs: number;
  failed: number;
}

function collect(suite: JsonSuite, into: Map<string, number>, failed: { n: number }): void {
  for (const spec of suite.specs) {
    for (const t of spec.tests) {
      for (const r of t.results) {
        into.set(spec.title, r.duration);
        if (r.status !== 'passed') failed.n++;
      }
    }
  }
  for (const s of suite.suites ?? []) collect(s, into, failed);
}

/** One run of the suite's `mode` project to its end. */
export async function runSuite(
  mode: Mode,
  pageUrl: string,
  svc: Pick<TestServer, 'url' | 'controlKey'>,
): Promise<SuiteRun> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pw-'));
  const resultsFile = join(dir, 'results.json');
  try {
    const started = performance.now();
    const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'test', '-c', SUITE_CONFIG, '--project', mode], {
      cwd: ROOT,
      env: childEnv({
        PAGE_URL: pageUrl,
        SVC_URL: svc.url,
        SVC_CONTROL_KEY: svc.controlKey,
        RESULTS_FILE: resultsFile,
        OUTPUT_DIR: join(dir, 'out'),
        BENCH_MODE: mode,
        CI: '',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const wallMs = performance.now() - started;
    const report = JSON.parse(readFileSync(resultsFile, 'utf8')) as { suites: JsonSuite[] };
    const durations = new Map<string, number>();
    const failed = { n: 0 };
    for (const s of report.suites) collect(s, durations, failed);
    if (code !== 0 || failed.n > 0 || durations.size === 0)
      throw new Error(`the ${mode} suite failed (exit ${code}, ${failed.n} failed):\n${output}`);
    return { mode, durations, wallMs, failed: failed.n };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface FixtureFigures {
  repetitions: number;
  tests: number;
  plainMedian: number;
  svcMedian: number;
  /** Median over tests of (the test's median with the fixture − its median without). */
  addedMedian: number;
  /** The same, without each repetition's first test (which starts the worker's browser). */
  addedMedianWarm: number;
  plainWall: number;
  svcWall: number;
}

/** `repetitions` runs of each, alternating (plain, svc, plain, svc, ...), after one warm-up of each. */
export async function measureFixture(
  svc: Pick<TestServer, 'url' | 'controlKey' | 'ingestKey'>,
  repetitions: number,
  log: (m: string) => void,
): Promise<FixtureFigures> {
  // As the integration tests do: builds dist/ (under their lock) when missing or older than the sources.
  await ensureSdkBuilt();
  const page = await servePage(svc);
  try {
    log('fixture: warm-up runs');
    await runSuite('plain', page.origin, svc);
    await runSuite('svc', page.origin, svc);
    const runs: Record<Mode, SuiteRun[]> = { plain: [], svc: [] };
    for (let r = 0; r < repetitions; r++) {
      for (const mode of r % 2 === 0 ? (['plain', 'svc'] as const) : (['svc', 'plain'] as const)) {
        const run = await runSuite(mode, page.origin, svc);
        runs[mode].push(run);
        log(
          `fixture: repetition ${r + 1} ${mode}: median ${median([...run.durations.values()]).toFixed(1)} ms per test, ${(run.wallMs / 1000).toFixed(1)} s in all`,
        );
      }
    }
    const titles = [...runs.plain[0]!.durations.keys()];
    const perTest = (mode: Mode, title: string) => median(runs[mode].map((r) => r.durations.get(title)!));
    const added = titles.map((t) => perTest('svc', t) - perTest('plain', t));
    const warm = titles.filter((t) => t !== 'trivial 0').map((t) => perTest('svc', t) - perTest('plain', t));
    const all = (mode: Mode) => runs[mode].flatMap((r) => [...r.durations.values()]);
    return {
      repetitions,
      tests: titles.length,
      plainMedian: median(all('plain')),
      svcMedian: median(all('svc')),
      addedMedian: median(added),
      addedMedianWarm: median(warm),
      plainWall: median(runs.plain.map((r) => r.wallMs)),
      svcWall: median(runs.svc.map((r) => r.wallMs)),
    };
  } finally {
    await page.close();
  }
}

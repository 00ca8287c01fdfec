import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSdkBuilt, ROOT } from '../support/build-sdk';
import { childEnv } from '../support/child-env';
import { serveFiles, type LocalServer } from '../support/local-server';
import { ensurePackageBuilt } from '../support/playwright-package';
import { controlGet, startCliServer, type CliServer } from '../support/svc-server';

/**
 * @svc/playwright as a user runs it: a nested Playwright (test/fixtures/playwright-suite) with the fixture and the
 * reporter against the built `svc-server start`, in Chromium. The shop project has a passing test, a test failing on
 * an app error, and a flaky one (fails on its first try, retries: 1); the inject project is an app without the SDK.
 * What the Vite example's suite proves (test/e2e/examples/vite-react-playwright.spec.ts: the run's counts, the
 * matcher's symbolicated message, svc stopped) is not repeated here.
 */
const SUITE_CONFIG = join(ROOT, 'test/fixtures/playwright-suite/playwright.config.ts');
const PLAYWRIGHT_CLI = join(ROOT, 'node_modules/@playwright/test/cli.js');

/**
 * The app, with a real bug (a cart without its coupon), written in TypeScript and served compiled (esbuild) as
 * `app.js`; its source map is uploaded for release RELEASE, so stacks name src/cart.ts.
 */
const CART_TS = `interface Cart {
  total: number;
  coupon?: { percent: number };
}

function applyCoupon(cart: Cart): number {
  return cart.total * (1 - cart.coupon!.percent / 100);
}

document.getElementById('ok')!.onclick = () => {
  document.getElementById('out')!.textContent = 'ok';
};
document.getElementById('buy')!.onclick = () => {
  document.getElementById('out')!.textContent = String(applyCoupon({ total: 10 }));
};
`;
const RELEASE = 'shop@1.0.0';
const APP = transformSync(CART_TS, { loader: 'ts', sourcemap: 'external', sourcefile: 'src/cart.ts' });

/** Uploads app.js's map for RELEASE (matched by release and URL, any origin). */
async function uploadMap(svc: CliServer): Promise<void> {
  const res = await fetch(`${svc.url}/control-plane/sourcemaps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.controlKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ release: RELEASE, maps: [{ map: APP.map, url: '~/app.js' }] }),
  });
  if (res.status !== 201) throw new Error(`source map upload answered ${res.status}: ${await res.text()}`);
}

const body = '<button id="ok">Ok</button><button id="buy">Buy</button><p id="out"></p>';
const html = (sdk: string) =>
  `<!doctype html><html><head><title>shop</title></head><body>${body}${sdk}<script src="/app.js"></script></body></html>`;

/** The shop's origin: `/` with the SDK's script tag, `/plain` without, the app and the built script-tag files. */
function serveShop(svc: Pick<CliServer, 'url' | 'ingestKey'>): Promise<LocalServer> {
  // Read now, once: a rebuild of dist/ meanwhile (rollup empties it first) must not reach the pages.
  const sdk = readFileSync(join(ROOT, 'dist/cdn/svc.min.js'));
  const recorder = readFileSync(join(ROOT, 'dist/cdn/svc-recorder.min.js'));
  const files: Record<string, () => string | Buffer> = {
    '/': () =>
      html(
        `<script src="/svc.min.js" data-api-key="${svc.ingestKey}" data-ingest-url="${svc.url}" data-service-version="${RELEASE}"></script>`,
      ),
    '/plain': () => html(''),
    '/app.js': () => APP.code,
    '/svc.min.js': () => sdk,
    '/svc-recorder.min.js': () => recorder,
  };
  return serveFiles(files);
}

interface JsonReport {
  suites: Array<{
    specs: Array<{
      title: string;
      tests: Array<{
        projectName: string;
        status: string;
        annotations: Array<{ type: string; description?: string }>;
        results: Array<{
          status: string;
          errors: Array<{ message?: string }>;
          annotations?: Array<{ type: string; description?: string }>;
        }>;
      }>;
    }>;
  }>;
}

interface NestedRun {
  code: number | null;
  output: string;
  /** `project > title` → Playwright's outcome (expected, unexpected, flaky). */
  outcomes: Record<string, string>;
  report: JsonReport;
}

/** Runs the suite to its end with these variables; what it printed, its exit code and its JSON report. */
async function runSuite(env: Record<string, string>, args: string[] = []): Promise<NestedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pw-suite-'));
  const resultsFile = join(dir, 'results.json');
  try {
    const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'test', '-c', SUITE_CONFIG, ...args], {
      cwd: ROOT,
      env: childEnv({ ...env, RESULTS_FILE: resultsFile, OUTPUT_DIR: join(dir, 'out'), CI: '' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const report = JSON.parse(readFileSync(resultsFile, 'utf8')) as JsonReport;
    const outcomes: Record<string, string> = {};
    for (const suite of report.suites)
      for (const spec of suite.specs)
        for (const t of spec.tests) outcomes[`${t.projectName} > ${spec.title}`] = t.status;
    return { code, output, outcomes, report };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SHOP_OUTCOMES = {
  'shop > checkout works': 'expected',
  'shop > buying with a coupon': 'unexpected',
  'shop > flaky: fails on its first try': 'flaky',
};

describe('@svc/playwright in a nested Playwright run', () => {
  let svc: CliServer;
  let shop: LocalServer;
  beforeAll(async () => {
    await ensureSdkBuilt();
    ensurePackageBuilt();
    svc = await startCliServer();
    await uploadMap(svc);
    shop = await serveShop(svc);
  }, 120_000);
  afterAll(async () => {
    await shop?.close();
    await svc?.close();
  });

  it('reports each attempt with its session (test and retry, env `test`) and the failure annotation; the inject project reports the page', async () => {
    const runId = `pw-${randomBytes(4).toString('hex')}`;
    const run = await runSuite({
      SVC_URL: svc.url,
      SVC_INGEST_KEY: svc.ingestKey,
      SVC_CONTROL_KEY: svc.controlKey,
      SVC_RUN_ID: runId,
      PAGE_URL: shop.origin,
    });
    expect(run.outcomes, run.output).toEqual({
      ...SHOP_OUTCOMES,
      'inject > the injected SDK reports the page and its error': 'expected',
    });
    expect(run.code).toBe(1);
    expect(run.output).not.toMatch(/svc: .*(unreachable|answered|gave up)/);
    // toHaveNoErrors' message, the run's counts and the suite with svc stopped are proven on the Vite example
    // (test/e2e/examples/vite-react-playwright.spec.ts).

    // The failed attempt with its session and the fixture's console link.
    const { status, body } = await controlGet<any>(svc, `/test-runs/${runId}`);
    expect(status).toBe(200);
    const buying = body.tests.find((t: any) => t.title_path.at(-1) === 'buying with a coupon');
    expect(buying).toMatchObject({ outcome: 'unexpected', status: 'failed', file: 'shop.spec.ts', project: 'shop' });
    const [first, second] = buying.attempts.map((a: any) => a.sessions[0]);
    expect(buying.attempts[0].annotations).toContainEqual({
      type: 'svc',
      description: expect.stringMatching(new RegExp(`^${svc.url}/session/${first}\\?t=\\d+$`)),
    });

    // Each attempt's session carries its test and retry, in env `test`.
    const sessions = await controlGet<any>(svc, `/sessions?test_run=${runId}&test_id=${buying.test_id}`);
    const byRetry = sessions.body.data.map((s: any) => [s.test?.retry, s.env, s.session_id]).sort();
    expect(byRetry).toEqual([
      [0, 'test', first],
      [1, 'test', second],
    ]);

    // What a passing test's page queued last, handed over as it ended, was stored by the time the run was; once.
    const checkout = body.tests.find((t: any) => t.title_path.at(-1) === 'checkout works');
    const [session] = checkout.attempts[0].sessions;
    const logs = await controlGet<any>(svc, `/logs?session_id=${session}&limit=100`);
    expect(logs.body.data.map((l: any) => l.body).filter((b: unknown) => b === 'thanks for your order')).toHaveLength(
      1,
    );
  }, 120_000);
});

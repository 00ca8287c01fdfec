import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { ROOT, ensureSdkBuilt } from '../support/build-sdk';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, hex, test } from './fixtures';

/**
 * The replay compression worker in Chromium (src/replay/compression-worker.ts): by default a dedicated worker started
 * from a `blob:` URL compresses the chunks; under a Content-Security-Policy whose `worker-src` leaves `blob:` out,
 * no worker starts and the page compresses them itself; with `replay.workerUrl` pointing at the shipped
 * `svc-replay-worker.js` on the page's origin, the worker runs under that policy. In every case the reference server
 * stores every chunk, seq after seq, with every event. The SDK is the script-tag build (dist/cdn).
 */

let app: SdkPageServer;
test.beforeAll(async () => {
  test.setTimeout(300_000);
  await ensureSdkBuilt();
  app = await startSdkPage();
  app.setScript('/svc-replay-worker.js', readFileSync(join(ROOT, 'dist/cdn/svc-replay-worker.js'), 'utf8'));
});
test.afterAll(() => app.close());

interface StoredChunk {
  replay_id: string;
  seq: number;
  events: Array<{ type: number; data: Record<string, unknown> }>;
}

const NONCE = 'r3play';

/** The page: a list the test fills, the SDK started from its script tag, and the given policy (if any). */
function pageHtml(ingest: TestServer, csp: string | undefined, replay: Record<string, unknown> = {}): string {
  const config = {
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl: ingest.url,
    debug: true,
    replay: { flushIntervalMs: 60_000, ...replay },
  };
  const policy = csp === undefined ? '' : `<meta http-equiv="Content-Security-Policy" content="${csp}">`;
  return `<!doctype html><html><head><title>worker</title>${policy}</head><body><ul id="list"></ul>
<script src="/svc.min.js" nonce="${NONCE}"></script>
<script nonce="${NONCE}">window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script></body></html>`;
}

/**
 * Records three rounds of changes (a list item that stays, and a timeline event), each sent as its own chunk, and
 * returns the session id and the texts that must arrive. Call once recording has started: the recorder starts the
 * worker (or is refused it) in the same task as rrweb's first full snapshot, so the worker's appearance, or the
 * policy's refusal, says the snapshot is taken.
 */
async function recordRounds(page: Page): Promise<{ sessionId: string; expected: string[] }> {
  const texts = [1, 2, 3].map((round) => `round-${round}-${hex(6)}`);
  const sessionId = await page.evaluate(async (rounds) => {
    const sdk = (
      window as unknown as {
        sdk: { sessionId: string; flushReplay(): Promise<void>; captureReplayEvent(t: string, p: unknown): void };
      }
    ).sdk;
    for (const text of rounds) {
      document.getElementById('list')!.insertAdjacentHTML('beforeend', `<li>${text}</li>`);
      sdk.captureReplayEvent('round', { text });
      await sdk.flushReplay();
    }
    return sdk.sessionId;
  }, texts);
  return { sessionId, expected: texts };
}

/** Every chunk the server stored for the session once each expected text is in one; seqs must be 0, 1, 2, … */
async function storedChunks(ingest: TestServer, sessionId: string, expected: string[]): Promise<StoredChunk[]> {
  let chunks: StoredChunk[] = [];
  await expect
    .poll(
      async () => {
        const res = await controlGet<{ data: StoredChunk[] }>(
          ingest,
          `/replay/chunks?session_id=${sessionId}&limit=100`,
        );
        chunks = res.body.data.sort((a, b) => a.seq - b.seq);
        const text = JSON.stringify(chunks);
        return expected.every((item) => text.includes(item));
      },
      { message: 'replay chunks stored', timeout: 20_000 },
    )
    .toBe(true);
  expect(chunks.map((chunk) => chunk.seq)).toEqual(chunks.map((_, i) => i));
  expect(new Set(chunks.map((chunk) => chunk.replay_id)).size).toBe(1);
  return chunks;
}

/** What must be in the stored chunks: the full snapshot, each round's added item and its timeline event, once. */
function expectEverything(chunks: StoredChunk[], expected: string[]): void {
  const events = chunks.flatMap((chunk) => chunk.events);
  expect(events.filter((event) => event.type === 2)).toHaveLength(1);
  for (const text of expected) {
    const added = events.filter(
      (event) => event.type === 3 && event.data.source === 0 && JSON.stringify(event.data.adds).includes(text),
    );
    const round = events.filter(
      (event) => event.type === 5 && event.data.tag === 'round' && JSON.stringify(event.data.payload).includes(text),
    );
    expect([added.length, round.length], text).toEqual([1, 1]);
  }
}

test('by default the chunks are compressed on a worker started from a blob: URL', async ({ page, ingest }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  app.setHtml(pageHtml(ingest, undefined));
  const worker = page.waitForEvent('worker');
  await page.goto(app.origin);
  expect((await worker).url()).toMatch(/^blob:/);
  const { sessionId, expected } = await recordRounds(page);
  expectEverything(await storedChunks(ingest, sessionId, expected), expected);
  expect(errors).toEqual([]);
});

test('a Content-Security-Policy that forbids blob: workers: no worker, the page compresses, nothing is lost', async ({
  page,
  ingest,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('worker', (worker) => errors.push(`unexpected worker ${worker.url()}`));
  app.setHtml(pageHtml(ingest, `script-src 'self' 'nonce-${NONCE}'; worker-src 'self'`));
  // Chromium reports the refusal on the console: the policy did refuse the worker, so the chunks below were
  // compressed by the page's fallback.
  const refused = page.waitForEvent(
    'console',
    (message) => /Content Security Policy/i.test(message.text()) && message.text().includes('blob:'),
  );
  await page.goto(app.origin);
  await refused;
  const { sessionId, expected } = await recordRounds(page);
  expectEverything(await storedChunks(ingest, sessionId, expected), expected);
  expect(errors).toEqual([]);
});

test('under that policy, replay.workerUrl on the page origin runs the shipped svc-replay-worker.js', async ({
  page,
  ingest,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  app.setHtml(
    pageHtml(ingest, `script-src 'self' 'nonce-${NONCE}'; worker-src 'self'`, { workerUrl: '/svc-replay-worker.js' }),
  );
  const worker = page.waitForEvent('worker');
  await page.goto(app.origin);
  expect((await worker).url()).toBe(`${app.origin}/svc-replay-worker.js`);
  const { sessionId, expected } = await recordRounds(page);
  expectEverything(await storedChunks(ingest, sessionId, expected), expected);
  expect(errors).toEqual([]);
});

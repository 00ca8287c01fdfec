/**
 * The session-replay half of the example scenario (issue 4): the recording of a session arrives in sequence and
 * decompresses, carries the navigation, network and custom events, its recipes match the requests the page made, it
 * plays in the reference server's console, and, for one example, its exported Playwright spec runs green against
 * the app with the network served from the recipes.
 */
import { expect, type BrowserContext } from '@playwright/test';
import { controlGet, type TestServer } from '../../support/svc-server';
import { runGeneratedSpec } from '../support/run-spec';

interface RecordedEvent {
  type: number;
  timestamp: number;
  data: { href?: string; tag?: string; payload?: Record<string, unknown> };
}
interface ReplayPage {
  events: RecordedEvent[];
  chunks: Array<{ replay_id: string; seq: number }>;
  gaps: Array<{ replay_id: string; missing_seq: number[] }>;
  next_cursor: string | null;
}
interface StoredStep {
  method: string;
  url: string;
  status: number;
  responseBody?: string | null;
  traceparent?: string | null;
}

const META = 4;
const FULL_SNAPSHOT = 2;
const CUSTOM = 5;

/** Every page of a session's replay, merged. */
async function readReplay(ingest: TestServer, sessionId: string): Promise<ReplayPage> {
  const merged: ReplayPage = { events: [], chunks: [], gaps: [], next_cursor: null };
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
    const res = await controlGet<ReplayPage>(ingest, `/sessions/${sessionId}/replay${query}`);
    expect(res.status, `GET /control-plane/sessions/${sessionId}/replay`).toBe(200);
    merged.events.push(...res.body.events);
    merged.chunks.push(...res.body.chunks);
    merged.gaps = res.body.gaps;
    cursor = res.body.next_cursor;
  } while (cursor);
  return merged;
}

const customEvents = (replay: ReplayPage, tag: string) =>
  replay.events.filter((e) => e.type === CUSTOM && e.data.tag === tag).map((e) => e.data.payload ?? {});

export interface ReplayExpectations {
  origin: string;
  sessionId: string;
  /** Trace ids the app's `/api/echo` received from the fetch and the XHR. */
  fetchTraceId: string;
  xhrTraceId: string;
}

/** Chunks in sequence, decompressed, with the page's navigation, network and custom events and matching recipes. */
export async function checkRecording(ingest: TestServer, expected: ReplayExpectations): Promise<void> {
  const { origin, sessionId } = expected;
  let replay: ReplayPage = { events: [], chunks: [], gaps: [], next_cursor: null };
  await expect
    .poll(
      async () => {
        replay = await readReplay(ingest, sessionId);
        return customEvents(replay, 'navigation').some((p) => String(p.url).endsWith('/about'));
      },
      { message: `the replay of session ${sessionId} reached the navigation to /about`, timeout: 20_000, intervals: [250, 500, 1000] },
    )
    .toBe(true);

  expect(replay.gaps, 'no chunk missing').toEqual([]);
  const seqsByReplay = new Map<string, number[]>();
  for (const chunk of replay.chunks) seqsByReplay.set(chunk.replay_id, [...(seqsByReplay.get(chunk.replay_id) ?? []), chunk.seq]);
  for (const [replayId, seqs] of seqsByReplay) {
    expect(seqs, `chunks of replay ${replayId} in sequence from 0`).toEqual(seqs.map((_, i) => i));
  }
  const timestamps = replay.events.map((e) => e.timestamp);
  expect(timestamps, 'events in playback order').toEqual([...timestamps].sort((a, b) => a - b));
  const meta = replay.events.find((e) => e.type === META);
  expect(meta?.data.href, 'the recording starts at the app').toMatch(new RegExp(`^${origin}/`));
  expect(replay.events.some((e) => e.type === FULL_SNAPSHOT), 'a full snapshot of the DOM').toBe(true);

  const network = customEvents(replay, 'network');
  for (const via of ['fetch', 'xhr']) {
    expect(network, `a network event for the ${via} request`).toContainEqual(
      expect.objectContaining({ method: 'GET', url: `${origin}/api/echo?via=${via}`, status: 200 }),
    );
  }
  expect(customEvents(replay, 'cart_updated'), 'the app’s own replay event').toContainEqual({ items: 3 });

  // The recipe steps travel in their own request, which may land after the chunks above: wait for both steps.
  const echoUrls = ['fetch', 'xhr'].map((via) => `${origin}/api/echo?via=${via}`);
  let steps: StoredStep[] = [];
  await expect
    .poll(
      async () => {
        const recipes = await controlGet<{ data: StoredStep[] }>(ingest, `/sessions/${sessionId}/recipes`);
        expect(recipes.status).toBe(200);
        steps = recipes.body.data;
        return echoUrls.filter((url) => steps.some((s) => s.url === url)).length;
      },
      { message: `the recipe steps of session ${sessionId} for both requests`, timeout: 20_000, intervals: [250, 500, 1000] },
    )
    .toBe(echoUrls.length);
  for (const [via, traceId] of [['fetch', expected.fetchTraceId], ['xhr', expected.xhrTraceId]] as const) {
    const step = steps.find((s) => s.url === `${origin}/api/echo?via=${via}`);
    expect(step, `a recipe step for the ${via} request: ${JSON.stringify(steps.map((s) => s.url))}`).toBeDefined();
    expect(step).toMatchObject({ method: 'GET', status: 200 });
    expect(step!.traceparent, `the ${via} step carries the traceparent the API received`).toContain(traceId);
    expect(step!.responseBody, `the ${via} step keeps the response the app got`).toContain(`via=${via}`);
  }
}

/** Opens the session in the reference server's console (signed in by a `#key=` link) and checks that the recorded DOM renders in the player. */
export async function checkConsoleReplay(context: BrowserContext, ingest: TestServer, sessionId: string): Promise<void> {
  const tab = await context.newPage();
  try {
    await tab.goto(`${ingest.url}/session/${encodeURIComponent(sessionId)}#key=${encodeURIComponent(ingest.controlKey)}`);
    const replayed = tab.frameLocator('iframe').first();
    await expect(replayed.getByRole('heading', { name: /^Shop/ }), 'the recorded page renders in the console').toBeVisible({ timeout: 15_000 });
  } finally {
    await tab.close();
  }
}

/**
 * Exports the session as a Playwright spec, and runs it with Playwright's own CLI against the running app. The spec is
 * written under test-results/ so that it resolves `@playwright/test` from the repository's node_modules.
 */
export async function checkExportedSpecRuns(ingest: TestServer, sessionId: string, origin: string): Promise<void> {
  const res = await fetch(`${ingest.url}/control-plane/sessions/${sessionId}/playwright`, {
    headers: { authorization: `Bearer ${ingest.controlKey}` },
  });
  expect(res.status, 'GET /control-plane/sessions/{id}/playwright').toBe(200);
  const run = await runGeneratedSpec(`exported/${sessionId}`, 'session.spec.ts', await res.text(), origin);
  const { output } = run;
  expect(run.status, `the exported spec runs green:\n${output.slice(-4000)}`).toBe(0);
}

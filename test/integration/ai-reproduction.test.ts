import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagePattern } from '../../server/src/ai/reproduction-error';
import { reproductionTest, type ReproductionTest } from '../../server/src/ai/reproduction';
import { normalizeMessage } from '../../server/src/incidents/detect/normalize-message';
import type { LogItem } from '../../src/pipeline/items';
import { ENCODE_BODY } from '../../src/pipeline/otlp-json';
import { chunkBody, eventsJson } from '../../src/replay/encode';
import { describeException, exceptionAttributes, exceptionBody } from '../../src/signals/exception';
import { INGEST_PATHS } from '../../wire/paths';
import type { RecipeStep } from '../../wire/replay';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import type { IssuePage } from '../support/issues';
import { click, el, pageLoad, txt, type RrwebEvent } from '../support/rrweb';
import { postIngest, startTestServer, type TestServer } from '../support/server';
import { specTypeErrors } from '../support/spec-typecheck';

/**
 * The reproduction test of an issue (server/src/ai/reproduction.ts) from sessions ingested as the SDK sends them
 * (replay chunks and recipes, and the error log, encoded by the SDK's own encoders), grouped into an issue by the
 * detector: the newest affected session with a replay, its steps up to the error, its recorded network, and the
 * assertion that the error does not happen, in a spec that type-checks under strict TypeScript against Playwright.
 */

const kinds = await databaseKinds();

/** The error's time in the session the test is made from. */
const T = 1_750_000_000_000;
const LOYALTY_ERROR = "Cannot read properties of undefined (reading 'total')";

/** The shop: a button that fetches the loyalty points, and one that goes to the about page. */
const SHOP = [
  el(4, 'button', {}, txt(5, 'Show loyalty points')),
  el(6, 'button', { 'data-testid': 'about' }, txt(7, 'About')),
];

const recipe = (ts: number, path: string, status: number, body: string): RecipeStep => ({
  ts,
  method: 'GET',
  url: `http://shop.test${path}`,
  requestHeaders: {},
  status,
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: body,
  durationMs: 8,
});

function errorLog(sessionId: string, message: string, timeMs: number): LogItem {
  const info = describeException(new TypeError(message));
  const attributes = { 'log.source': 'unhandledrejection', ...exceptionAttributes(info), 'session.id': sessionId };
  return { kind: 'log', timeMs, level: 'error', body: exceptionBody(info), sessionId, attributes };
}

interface Session {
  id: string;
  /** Replay events, one chunk each; none for a session recorded without replay. */
  chunks: RrwebEvent[][];
  recipes: RecipeStep[];
  errors: LogItem[];
}

/** The session the test must come from: a click fetches the points (a 500), the error follows; then more clicks. */
const loyalty: Session = {
  id: 's-loyalty',
  chunks: [
    pageLoad('http://shop.test/account?tab=points', T - 5_000, ...SHOP),
    [click(5, T - 1_000)],
    [click(7, T + 500), click(5, T + 900)],
  ],
  recipes: [
    recipe(T - 990, '/api/loyalty', 500, '{"error":"loyalty service unavailable"}'),
    recipe(T + 910, '/api/loyalty', 500, '{"error":"still down"}'),
  ],
  errors: [errorLog('s-loyalty', LOYALTY_ERROR, T), errorLog('s-loyalty', LOYALTY_ERROR, T + 950)],
};
/** Hit later, but without a replay: it cannot be replayed. */
const unrecorded: Session = {
  id: 's-unrecorded',
  chunks: [],
  recipes: [],
  errors: [errorLog('s-unrecorded', LOYALTY_ERROR, T + 60_000)],
};
/** Hit earlier, with a replay: an older session than s-loyalty. */
const older: Session = {
  id: 's-older',
  chunks: [pageLoad('http://shop.test/old', T - 120_000, ...SHOP), [click(7, T - 119_000)]],
  recipes: [],
  errors: [errorLog('s-older', LOYALTY_ERROR, T - 118_000)],
};
/** Another issue, whose only session has no replay. */
const other: Session = {
  id: 's-other',
  chunks: [],
  recipes: [],
  errors: [errorLog('s-other', 'points is not iterable', T)],
};

describe.each(kinds)('the reproduction test of an issue on %s', (kind) => {
  let t: TestServer;
  const clock = { now: () => T + 120_000 };
  let issues: IssuePage['data'];
  let made: ReproductionTest | null;

  const post = (path: string, body: string) => postIngest(t, path, body);

  async function send(session: Session): Promise<void> {
    for (const [seq, events] of session.chunks.entries()) {
      const payload = eventsJson(events.map((e) => JSON.stringify(e)));
      const at = events.map((e) => e.timestamp);
      await post(
        INGEST_PATHS.replayChunk,
        chunkBody(
          'web-app',
          { sessionId: session.id, replayId: `r-${session.id}`, nextSeq: seq + 1 },
          seq,
          at,
          payload,
        ),
      );
    }
    if (session.recipes.length > 0) {
      await post(
        INGEST_PATHS.replayRecipes,
        JSON.stringify({
          serviceName: 'web-app',
          sessionId: session.id,
          replayId: `r-${session.id}`,
          steps: session.recipes,
        }),
      );
    }
    await post(INGEST_PATHS.logs, ENCODE_BODY.logs(session.errors, { 'service.name': 'web-app' }));
  }

  const issueOf = (message: string) => issues.find((i) => i.message === message)!;

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
    for (const session of [older, loyalty, unrecorded, other]) await send(session);
    await issueDetector(t, clock).runOnce();
    const res = await fetch(`${t.url}/control-plane/issues`, { headers: { authorization: `Bearer ${t.controlKey}` } });
    issues = ((await res.json()) as IssuePage).data;
    expect(issues.map((i) => i.message).sort()).toEqual([LOYALTY_ERROR, 'points is not iterable']);
    made = await reproductionTest(t.server.database.db, { projectId: t.projectId, issueId: issueOf(LOYALTY_ERROR).id });
  });
  afterAll(() => t?.close());

  it('is made from the newest affected session that has a replay, named after the issue', () => {
    const id = issueOf(LOYALTY_ERROR).id;
    expect(made).toMatchObject({ path: `tests/svc/repro-${id}.spec.ts`, sessionId: 's-loyalty' });
    expect(made!.content).toContain(`// Reproduction test of issue ${id}`);
  });

  it('replays the steps before the error and none after it', () => {
    const steps = made!.content.split('\n').filter((line) => /^ {2}await page\.(goto|getBy|locator)/.test(line));
    expect(steps).toEqual([
      "  await page.goto('/account?tab=points');",
      "  await page.getByRole('button', { name: 'Show loyalty points', exact: true }).click();",
    ]);
    expect(made!.content).not.toContain("getByTestId('about')");
  });

  it('serves the recorded responses, the failed request among them', () => {
    expect(made!.content).toContain(`'GET /api/loyalty': [`);
    expect(made!.content).toContain(
      `{ status: 500, headers: { 'content-type': 'application/json' }, body: '{"error":"loyalty service unavailable"}' },`,
    );
  });

  it("fails when the page throws the issue's error, waiting as long as it took to come plus a margin", () => {
    const { content } = made!;
    expect(content).toContain("page.on('pageerror', (error) => {");
    const declared = /^const ISSUE_ERROR = \{ name: 'TypeError', message: new RegExp\(('(?:[^'\\]|\\.)*')\) \};$/m.exec(
      content,
    );
    expect(declared, "the issue's error declared").not.toBeNull();
    const pattern = new RegExp(runInNewContext(declared![1]!) as string);
    expect(pattern.test(LOYALTY_ERROR)).toBe(true);
    expect(pattern.test("Cannot read properties of undefined (reading 'points')")).toBe(false);
    expect(content).toContain('const ERROR_WAIT_MS = 6000;');
    expect(content).toContain(
      `test('issue ${issueOf(LOYALTY_ERROR).id}: TypeError: Cannot read properties of undefined (reading \\'total\\') does not happen'`,
    );
  });

  it("runs with @svc/playwright's fixture, annotated svc-issue with the issue's id so the reporter links its runs to the issue", () => {
    const { content } = made!;
    expect(content).toContain("import { test, expect } from '@svc/playwright';");
    expect(content).not.toContain("import { test, expect, type Page } from '@playwright/test';");
    expect(content).toContain(
      `  test.info().annotations.push({ type: 'svc-issue', description: '${issueOf(LOYALTY_ERROR).id}' });`,
    );
  });

  it('type-checks under strict TypeScript against @playwright/test and @svc/playwright', () => {
    expect(specTypeErrors(made!.content)).toEqual([]);
  });

  it('is null for an issue none of whose sessions has a replay, and for an unknown issue or another project', async () => {
    const db = t.server.database.db;
    expect(
      await reproductionTest(db, { projectId: t.projectId, issueId: issueOf('points is not iterable').id }),
    ).toBeNull();
    expect(await reproductionTest(db, { projectId: t.projectId, issueId: 'ffffffffffffffff' })).toBeNull();
    expect(await reproductionTest(db, { projectId: 'another-project', issueId: issueOf(LOYALTY_ERROR).id })).toBeNull();
  });
});

describe('the message pattern of an issue', () => {
  const matches = (message: string, other: string) => new RegExp(messagePattern(normalizeMessage(message))).test(other);

  it('matches every occurrence of the bug, whatever its numbers, ids, quoted values and addresses', () => {
    expect(matches(LOYALTY_ERROR, LOYALTY_ERROR)).toBe(true);
    expect(
      matches(
        'Order 1234 of user 0xdeadbeef failed at https://shop.test/a?b=1',
        'Order 99 of user 0xbeef failed at http://x.test/',
      ),
    ).toBe(true);
    expect(
      matches(
        'Unknown coupon "SPRING-24" for 9f1c2d3e-aaaa-4bbb-8ccc-0123456789ab',
        "Unknown coupon 'X' for 00000000-0000-4000-8000-000000000000",
      ),
    ).toBe(true);
    expect(matches('a  b\tc', 'a b c')).toBe(true);
  });

  it('does not match another error, nor the message with more around it', () => {
    expect(matches(LOYALTY_ERROR, "Cannot read properties of undefined (reading 'points')")).toBe(false);
    expect(matches(LOYALTY_ERROR, `Uncaught ${LOYALTY_ERROR}`)).toBe(false);
    expect(matches('x is not a function (a.b+c)', 'x is not a function (abbc)')).toBe(false);
  });

  it('matches any ending of a message cut at the normalisation limit', () => {
    const long = `${'word '.repeat(60)}end`;
    expect(normalizeMessage(long).endsWith('…')).toBe(true);
    expect(matches(long, `${'word '.repeat(60)}different ending`)).toBe(true);
  });
});

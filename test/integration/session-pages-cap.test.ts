import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_PAGES_MAX } from '../../server/src/ingest/sessions';
import { SESSION_FACT_LIMITS } from '../../server/src/otlp/session-facts';
import { databaseKinds } from '../support/databases';
import { resourceAttrs, str, TRACE_ID } from '../support/otlp';
import { controlGet, startTestServer, type TestServer } from '../support/server';

/**
 * The pages a session showed are stored up to SESSION_PAGES_MAX distinct paths (issue 33, docs/api.md `url`): the
 * first ones stored stay searchable, later new ones are not stored, a stored one is refreshed, and neither a retried
 * batch nor two batches of one session at once pass the cap.
 */
const kinds = await databaseKinds();
const PER_BATCH = SESSION_FACT_LIMITS.maxPages;
const T0 = Date.UTC(2027, 4, 1, 9, 0, 0);
const path = (i: number) => `/item-${String(i).padStart(4, '0')}`;

/** One click span per path, a second apart from `first`'s. */
const pagesBody = (sessionId: string, paths: number[]) => ({
  resourceSpans: [
    {
      resource: { attributes: resourceAttrs('web-app', sessionId) },
      scopeSpans: [
        {
          scope: { name: '@svc/browser' },
          spans: paths.map((i) => ({
            traceId: TRACE_ID,
            spanId: randomBytes(8).toString('hex'),
            name: 'click',
            kind: 1,
            startTimeUnixNano: `${T0 + i * 1000}000000`,
            endTimeUnixNano: `${T0 + i * 1000 + 5}000000`,
            attributes: [
              str('session.id', sessionId),
              str('url.full', `https://app.example.com${path(i)}`),
              str('event_type', 'click'),
            ],
          })),
        },
      ],
    },
  ],
});
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe.each(kinds)('session pages capped per session on %s', (kind) => {
  let t: TestServer;
  let now = T0;

  beforeAll(async () => {
    t = await startTestServer(kind, { detection: false, clock: { now: () => now } });
  });
  afterAll(() => t?.close());

  const post = async (body: unknown) => {
    const res = await fetch(`${t.url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const stored = async (sessionId: string) =>
    (
      await sql<{ path: string; received_ms: number | string }>`select path, received_ms from session_pages
        where session_id = ${sessionId} order by path`.execute(t.server.database.db)
    ).rows.map((r) => ({ path: r.path, received: Number(r.received_ms) }));
  const matching = async (text: string) => {
    const res = await controlGet<{ data: { session_id: string }[] }>(t, `/sessions?url=${encodeURIComponent(text)}`);
    expect(res.status).toBe(200);
    return res.body.data.map((s) => s.session_id);
  };

  it('stores the first distinct paths up to the cap, refreshes stored ones, and stores a retried batch once', async () => {
    const batches = range(0, Math.ceil((SESSION_PAGES_MAX + 60) / PER_BATCH)).map((b) =>
      pagesBody('spa', range(b * PER_BATCH, (b + 1) * PER_BATCH)),
    );
    for (const body of batches) await post(body);
    // A retried batch, at the cap.
    await post(batches[0]);
    const pages = await stored('spa');
    expect(pages.map((p) => p.path)).toEqual(range(0, SESSION_PAGES_MAX).map(path));
    expect(await matching(path(SESSION_PAGES_MAX - 1))).toEqual(['spa']);
    expect(await matching(path(SESSION_PAGES_MAX))).toEqual([]);

    // Later, a batch with a stored path and a new one: the stored one's receipt moves on, the new one is not stored.
    now = T0 + 3_600_000;
    await post(pagesBody('spa', [3, SESSION_PAGES_MAX + 100]));
    const after = await stored('spa');
    expect(after).toHaveLength(SESSION_PAGES_MAX);
    expect(after.find((p) => p.path === path(3))!.received).toBe(now);
    expect(after.find((p) => p.path === path(4))!.received).toBe(T0);
  });

  it('lets two batches of one session at once fill the cap, never pass it', async () => {
    const near = SESSION_PAGES_MAX - 10;
    for (let b = 0; b * PER_BATCH < near; b++)
      await post(pagesBody('race', range(b * PER_BATCH, Math.min((b + 1) * PER_BATCH, near))));
    expect(await stored('race')).toHaveLength(near);
    // Each batch has 20 new paths; together they have room for 10.
    await Promise.all([post(pagesBody('race', range(1000, 1020))), post(pagesBody('race', range(2000, 2020)))]);
    const pages = await stored('race');
    expect(pages).toHaveLength(SESSION_PAGES_MAX);
    expect(pages.filter((p) => p.path >= path(1000))).toHaveLength(10);
  });
});

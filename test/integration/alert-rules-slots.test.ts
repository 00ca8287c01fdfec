import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRule } from '../../server/src/alerts/query/index';
import { RELEASES_REUSE_MS } from '../../server/src/alerts/query/releases';
import { REREAD_MS, SlotCache } from '../../server/src/alerts/query/slot-cache';
import { slotBuckets, WindowHistogram } from '../../server/src/alerts/query/slot-histogram';
import { SETTLE_MS, SLOT_MS, planSlots } from '../../server/src/alerts/query/slots';
import type { AlertQuery, RuleQuery } from '../../server/src/alerts/rule';
import { RELATIVE_ERROR } from '../../server/src/vitals/rollup/histogram';
import { nearestRank } from '../../server/src/vitals/summary';
import { databaseKinds } from '../support/databases';
import { str } from '../support/otlp';
import { postIngest, startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/until';

/**
 * Windows of an hour or more are read in ten-minute slots, the settled ones kept between evaluations
 * (alerts/query/slots.ts, docs/alerts.md "Cost"): on the real server over SQLite and PostgreSQL, a two-hour window's
 * count and error rate are exactly the hand-computed ones and its percentiles within the histogram's bound; a
 * record that arrives late in a kept slot counts once the slot is read again, one in a slot still settling at once.
 */
const kinds = await databaseKinds();

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** The evaluation's now: 4 minutes past a slot boundary, so the window's edges are ragged. */
const NOW = Date.UTC(2027, 5, 7, 12, 4, 0);
const W = { fromMs: NOW - 2 * HOUR, toMs: NOW };
const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

interface Span {
  atMs: number;
  durationMs: number;
  failed: boolean;
}

/** Spans every 13 s from 2.5 h before NOW to NOW, durations 1..997 ms, every seventh failing. */
const SPANS: Span[] = Array.from({ length: Math.floor((2.5 * HOUR) / 13_000) }, (_, i) => ({
  atMs: NOW - 2.5 * HOUR + i * 13_000,
  durationMs: 1 + ((i * 7919) % 997),
  failed: i % 7 === 0,
}));

let serial = 0;
const spansBody = (spans: Span[], session?: string, release?: string) => ({
  resourceSpans: [
    {
      resource: {
        attributes: [
          str('service.name', 'web-app'),
          ...(session === undefined ? [] : [str('session.id', session)]),
          ...(release === undefined ? [] : [str('service.version', release)]),
        ],
      },
      scopeSpans: [
        {
          spans: spans.map((s) => {
            serial += 1;
            return {
              traceId: serial.toString(16).padStart(32, '0'),
              spanId: serial.toString(16).padStart(16, '0'),
              name: 'GET /api/cart',
              kind: 3,
              startTimeUnixNano: nanos(s.atMs),
              endTimeUnixNano: nanos(s.atMs + s.durationMs),
              status: { code: s.failed ? 2 : 1 },
            };
          }),
        },
      ],
    },
  ],
});

const inWindow = (spans: Span[], w: { fromMs: number; toMs: number }) =>
  spans.filter((s) => s.atMs >= w.fromMs && s.atMs < w.toMs);

describe.each(kinds)('alert rules over long windows in slots on %s', (kind) => {
  let t: TestServer;
  const clock = { now: () => NOW };
  const rule = (query: AlertQuery, windowSeconds = 7200): RuleQuery => ({
    projectId: t.projectId,
    signal: 'spans',
    query,
    windowSeconds,
    condition: { type: 'threshold', op: 'above', value: 0 },
    recovery: null,
    forSeconds: 0,
  });
  const value = (query: AlertQuery, w = W, nowMs = NOW) => evaluateRule(t.server.database.db, rule(query), w, nowMs);
  /** Ingest stores in the background: waits until the database holds `count` spans. */
  const spansStored = (count: number) =>
    eventually(`${count} spans stored`, async () => {
      const { n } = await t.server.database.db
        .selectFrom('spans')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return Number(n) >= count || undefined;
    });

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
    await postIngest(t, '/otlp/v1/traces', JSON.stringify(spansBody(SPANS)));
  });
  afterAll(() => t?.close());

  it('stores what was sent (ingest writes in the background)', async () => {
    await spansStored(SPANS.length);
  });

  it('count and error rate are exact; percentiles within the histogram bound of nearest rank', async () => {
    const inside = inWindow(SPANS, W);
    // Twice: the first reads every slot, the second the kept ones and the edges.
    for (const pass of [1, 2]) {
      expect(await value({ aggregate: 'count' }), `pass ${pass}`).toBe(inside.length);
      expect(await value({ aggregate: 'error_rate' }), `pass ${pass}`).toBe(
        inside.filter((s) => s.failed).length / inside.length,
      );
      for (const p of [50, 95, 99] as const) {
        const exact = nearestRank(
          inside.map((s) => s.durationMs),
          p,
        )!;
        const got = (await value({ aggregate: `p${p}` }))!;
        expect(Math.abs(got - exact) / exact, `p${p} ${got} against ${exact}, pass ${pass}`).toBeLessThanOrEqual(
          RELATIVE_ERROR + 1e-9,
        );
      }
    }
    // A filter is another statement, so other slots: nothing here is named so.
    expect(await value({ aggregate: 'count', filter: { name: 'documentLoad' } })).toBe(0);
  });

  it('a late record in a kept slot counts once the slot is read again; one in a settling slot at once', async () => {
    const count = { aggregate: 'count' } as const;
    const before = inWindow(SPANS, W).length;
    expect(await value(count)).toBe(before);
    const late: Span = { atMs: NOW - HOUR, durationMs: 5, failed: false };
    const settling: Span = { atMs: NOW - 2 * MINUTE, durationMs: 5, failed: false };
    await postIngest(t, '/otlp/v1/traces', JSON.stringify(spansBody([late, settling])));
    await spansStored(SPANS.length + 2);
    // The late one's slot was kept: only the settling one counts yet.
    expect(await value(count)).toBe(before + 1);
    // An hour on (the same window), every kept slot is read again.
    expect(await value(count, W, NOW + REREAD_MS)).toBe(before + 2);
  });

  it('sessions seen in a window: those that ended soon after it and those that lasted longer than 4 hours', async () => {
    const at = (atMs: number): Span => ({ atMs, durationMs: 1, failed: false });
    // Over [NOW - 6 h, NOW - 5 h): `long` began before it and was active until 10 minutes ago (read by its duration),
    // `short` inside it, `later` began after it.
    const sessions: Array<[string, Span[]]> = [
      ['long', [at(NOW - 7 * HOUR), at(NOW - 10 * MINUTE)]],
      ['short', [at(NOW - 5.5 * HOUR)]],
      ['later', [at(NOW - 3 * HOUR)]],
    ];
    for (const [id, spans] of sessions) await postIngest(t, '/otlp/v1/traces', JSON.stringify(spansBody(spans, id)));
    await eventually('3 sessions stored', async () => {
      const { n } = await t.server.database.db
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return Number(n) >= 3 || undefined;
    });
    const sessionsRule = { ...rule({ aggregate: 'count' }, 3600), signal: 'sessions' as const };
    const inHour = { fromMs: NOW - 6 * HOUR, toMs: NOW - 5 * HOUR };
    expect(await evaluateRule(t.server.database.db, sessionsRule, inHour, NOW)).toBe(2);
    // Over [NOW - 3.5 h, NOW - 2.5 h): `long` (now read by its last time, within 4 hours of the end) and `later`.
    const later = { fromMs: NOW - 3.5 * HOUR, toMs: NOW - 2.5 * HOUR };
    expect(await evaluateRule(t.server.database.db, sessionsRule, later, NOW)).toBe(2);
  });

  it("a previous-release rule reuses its scope's releases for a minute, then sees the new one", async () => {
    const { db } = t.server.database;
    const sessionsStored = (count: number) =>
      eventually(`${count} sessions with a release`, async () => {
        const { n } = await db
          .selectFrom('sessions')
          .where('release', 'is not', null)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        return Number(n) >= count || undefined;
      });
    const at = (atMs: number): Span => ({ atMs, durationMs: 1, failed: false });
    const release = async (id: string, version: string, spans: Span[]) =>
      postIngest(t, '/otlp/v1/traces', JSON.stringify(spansBody(spans, id, version)));
    await release('r1', '1.0', [at(NOW - 100 * MINUTE)]);
    await release('r2', '2.0', [at(NOW - 90 * MINUTE)]);
    await sessionsStored(2);
    const watching: RuleQuery = {
      ...rule({ aggregate: 'count' }),
      condition: { type: 'change', op: 'above', percent: 50, compare_to: 'previous_release' },
    };
    // The newest release, 2.0: its one span.
    expect(await evaluateRule(db, watching, W, NOW)).toBe(1);
    await release('r3', '3.0', [at(NOW - 30 * MINUTE), at(NOW - 20 * MINUTE)]);
    await sessionsStored(3);
    expect(await evaluateRule(db, watching, W, NOW + RELEASES_REUSE_MS - 1)).toBe(1);
    // A minute on, 3.0 is the newest: its two spans.
    expect(await evaluateRule(db, watching, W, NOW + RELEASES_REUSE_MS)).toBe(2);
  });
});

describe('ten-minute slots of a window', () => {
  it('keeps only whole, settled slots and reads the rest in runs of adjacent slots', () => {
    const w = { fromMs: 5 * SLOT_MS + MINUTE, toMs: 12 * SLOT_MS + 4 * MINUTE };
    const nowMs = 12 * SLOT_MS + 4 * MINUTE;
    // Slots 6..10 are whole and settled (slot 11 ended 4 minutes before now, less than SETTLE_MS).
    expect(11 * SLOT_MS + SLOT_MS > nowMs - SETTLE_MS).toBe(true);
    const cold = planSlots(w, nowMs, () => false);
    expect(cold.kept).toEqual([]);
    expect(cold.keepable).toEqual([6, 7, 8, 9, 10]);
    expect(cold.runs).toEqual([{ fromMs: w.fromMs, toMs: w.toMs }]);
    const warm = planSlots(w, nowMs, (slot) => slot !== 8);
    expect(warm.kept).toEqual([6, 7, 9, 10]);
    expect(warm.keepable).toEqual([8]);
    expect(warm.runs).toEqual([
      { fromMs: w.fromMs, toMs: 6 * SLOT_MS },
      { fromMs: 8 * SLOT_MS, toMs: 9 * SLOT_MS },
      { fromMs: 11 * SLOT_MS, toMs: w.toMs },
    ]);
  });

  it('a percentile is the bucket of its rank, held within the least and greatest value the bucket saw', () => {
    const h = new WindowHistogram();
    // Two slots: 6000 ms three times and 1500 once, then 6000 once more.
    h.add(
      slotBuckets([
        { index: Math.ceil(Math.log(6000) / Math.log(1.02)), count: 3, low: 6000, high: 6000 },
        { index: Math.ceil(Math.log(1500) / Math.log(1.02)), count: 1, low: 1500, high: 1500 },
      ]),
    );
    h.add(slotBuckets([{ index: Math.ceil(Math.log(6000) / Math.log(1.02)), count: 1, low: 6000, high: 6000 }]));
    expect(h.percentile(75)).toBe(6000);
    expect(h.percentile(20)).toBe(1500);
    // Values ≤ 0 share a bucket: a CLS of 0 is 0.
    const zeros = new WindowHistogram();
    zeros.add(slotBuckets([{ index: null, count: 4, low: 0, high: 0 }]));
    expect(zeros.percentile(75)).toBe(0);
    expect(new WindowHistogram().percentile(75)).toBeNull();
  });

  it('the cache forgets a slot after REREAD_MS, and the least recently used first when full', () => {
    const cache = new SlotCache(3 * 8);
    for (const key of ['a', 'b', 'c']) cache.set(key, { n: 1, sum: 0 }, 0);
    expect(cache.get('a', 1)).toEqual({ n: 1, sum: 0 });
    cache.set('d', { n: 2, sum: 0 }, 2);
    // b was used longest ago.
    expect(cache.get('b', 3)).toBeUndefined();
    expect(cache.size).toBe(3);
    expect(cache.get('a', REREAD_MS - 1)).toBeDefined();
    expect(cache.get('a', REREAD_MS)).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetention } from '../../server/src/index';
import { createDetector, type Detector } from '../../server/src/incidents/detect/detector';
import type { DetectionOptions } from '../../server/src/incidents/detect/thresholds';
import type { IncidentStore } from '../../server/src/incidents/store';
import { errorEvidence } from '../../server/src/incidents/types';
import { databaseKinds } from '../support/databases';
import { detectionIncidentStore } from '../support/incident-store';
import { CART_ERROR, chromeStack, errorLog, resource, type ErrorInput } from '../support/error-logs';
import { str } from '../support/otlp';
import { startTestServer, type TestServer } from '../support/server';

const kinds = await databaseKinds();

const MINUTE = 60_000;
const T0 = 1_800_000_000_000;

interface SpanInput {
  traceId: string;
  name: string;
  atMs: number;
  sessionId?: string;
  env?: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
  statusCode?: number;
  exception?: { message: string; stack: string };
}

const int = (key: string, value: number) => ({ key, value: { intValue: value } });

function spanBody(s: SpanInput) {
  return {
    resourceSpans: [
      {
        resource: resource(s),
        scopeSpans: [
          {
            scope: { name: '@opentelemetry/instrumentation-fetch' },
            spans: [
              {
                traceId: s.traceId,
                spanId: s.traceId.slice(0, 16),
                name: s.name,
                kind: 3,
                startTimeUnixNano: `${s.atMs}000000`,
                endTimeUnixNano: `${s.atMs + 40}000000`,
                attributes: s.attributes ?? [],
                events: s.exception
                  ? [
                      {
                        timeUnixNano: `${s.atMs + 10}000000`,
                        name: 'exception',
                        attributes: [
                          str('exception.type', 'TypeError'),
                          str('exception.message', s.exception.message),
                          str('exception.stacktrace', s.exception.stack),
                        ],
                      },
                    ]
                  : [],
                status: { code: s.statusCode ?? 0 },
              },
            ],
          },
        ],
      },
    ],
  };
}

const replayChunk = (sessionId: string, atMs: number) => {
  const events = [
    { type: 4, timestamp: atMs, data: { href: 'https://shop.example.com/cart', width: 1280, height: 720 } },
  ];
  return {
    serviceName: 'web-app',
    sessionId,
    replayId: `replay-${sessionId}`,
    seq: 0,
    startTs: atMs,
    endTs: atMs,
    eventCount: 1,
    encoding: 'json',
    data: JSON.stringify(events),
  };
};

describe.each(kinds)('incident detection on %s', (kind) => {
  let t: TestServer;
  let now = T0;
  const clock = { now: () => now };
  let store: IncidentStore;

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const sendErrors = async (count: number, e: Omit<ErrorInput, 'atMs'>) => {
    for (let i = 0; i < count; i++) await post('/otlp/v1/logs', errorLog({ ...e, atMs: now }));
  };
  const detector = (options: Partial<DetectionOptions> = {}): Detector =>
    createDetector({
      db: t.server.database.db,
      clock,
      commands: store,
      publicUrl: t.server.publicUrl,
      box: t.server.notify.box,
      options,
    });
  const openIncidents = async () => store.listOpen(t.projectId);

  beforeAll(async () => {
    t = await startTestServer(kind, { clock });
    store = detectionIncidentStore(t, clock);
  });
  afterAll(() => t?.close());

  it('opens one incident when a group reaches the threshold, with its evidence and root cause', async () => {
    // A replay for the first session, and the requests around the errors: two fail, two do not.
    await post('/ingest/replay/chunk', replayChunk('sess-1', now));
    const failing = '4bf92f3577b34da6a3ce929d0e0e4736';
    const url = (path: string) => str('url.full', `https://shop.example.com${path}`);
    await post(
      '/otlp/v1/traces',
      spanBody({
        traceId: failing,
        name: 'HTTP POST',
        atMs: now - 2000,
        sessionId: 'sess-1',
        statusCode: 2,
        attributes: [url('/api/cart'), int('http.status_code', 502)],
      }),
    );
    await post(
      '/otlp/v1/traces',
      spanBody({
        traceId: 'a'.repeat(32),
        name: 'HTTP GET',
        atMs: now - 3000,
        sessionId: 'sess-2',
        statusCode: 2,
        attributes: [url('/api/prices')],
      }),
    );
    await post(
      '/otlp/v1/traces',
      spanBody({
        traceId: 'b'.repeat(32),
        name: 'HTTP GET',
        atMs: now - 2500,
        attributes: [url('/api/user'), int('http.response.status_code', 404)],
        statusCode: 2,
      }),
    );
    await post(
      '/otlp/v1/traces',
      spanBody({
        traceId: 'c'.repeat(32),
        name: 'HTTP GET',
        atMs: now - 2400,
        attributes: [url('/api/menu'), int('http.response.status_code', 200)],
      }),
    );
    // Neither a warning nor another environment's errors count.
    await post('/otlp/v1/logs', errorLog({ atMs: now, sessionId: 'sess-9' }, 13));
    await sendErrors(2, { sessionId: 'sess-9', env: 'production' });

    await sendErrors(1, { sessionId: 'sess-1' });
    await sendErrors(1, { sessionId: 'sess-2' });
    now += 20_000;
    await sendErrors(1, { sessionId: 'sess-3' });
    // A request that failed in an affected session after its error did not cause it.
    await post(
      '/otlp/v1/traces',
      spanBody({
        traceId: 'e'.repeat(32),
        name: 'HTTP GET',
        atMs: now + 10_000,
        sessionId: 'sess-3',
        statusCode: 2,
        attributes: [url('/api/later')],
      }),
    );
    // An exception recorded on a span counts like an error log.
    await post(
      '/otlp/v1/traces',
      spanBody({
        traceId: 'd'.repeat(32),
        name: 'checkout',
        atMs: now,
        sessionId: 'sess-4',
        exception: { message: CART_ERROR, stack: chromeStack(CART_ERROR) },
      }),
    );
    const belowThreshold = await detector().runOnce();
    expect(belowThreshold).toMatchObject({ errors: 6, opened: [] });
    expect(await openIncidents()).toEqual([]);

    // The fifth, from the next release: a new content hash and line keep the group.
    now += 20_000;
    await sendErrors(1, { sessionId: 'sess-5', release: '1.4.3', stack: chromeStack(CART_ERROR, 'a7b8c9d0', 57) });
    const report = await detector().runOnce();
    expect(report.opened).toHaveLength(1);
    const incident = await store.get(t.projectId, report.opened[0]!);
    const viewer = `${t.server.publicUrl}/session/`;
    expect(incident).toMatchObject({
      title: `TypeError: ${CART_ERROR} in checkout.js`,
      severity: 'high',
      status: 'detected',
      env: 'staging',
      services: ['web-app'],
      source: 'detector',
      detected_at: new Date(now).toISOString(),
    });
    expect(incident!.evidence).toMatchObject({
      error_type: 'TypeError',
      message: CART_ERROR,
      top_frame: 'renderCart (checkout.js:42)',
      error_count: 5,
      first_seen_release: '1.4.2',
      first_seen_at: new Date(T0).toISOString(),
      burst_started_at: new Date(T0).toISOString(),
      affected_sessions: 5,
    });
    // Sessions with a replay come first in the sample.
    expect(errorEvidence(incident!.evidence)!.sessions[0]).toEqual({
      session_id: 'sess-1',
      replay_url: `${viewer}sess-1`,
    });
    expect(
      errorEvidence(incident!.evidence)!
        .sessions.slice(1)
        .map((s) => s.replay_url),
    ).toEqual([null, null, null, null]);
    expect(errorEvidence(incident!.evidence)!.failing_requests).toEqual([
      {
        trace_id: failing,
        span_id: failing.slice(0, 16),
        name: 'HTTP POST',
        url: 'https://shop.example.com/api/cart',
        status: 502,
        at: new Date(T0 - 2000).toISOString(),
        replay_url: `${viewer}sess-1`,
      },
      {
        trace_id: 'a'.repeat(32),
        span_id: 'a'.repeat(16),
        name: 'HTTP GET',
        url: 'https://shop.example.com/api/prices',
        status: null,
        at: new Date(T0 - 3000).toISOString(),
        replay_url: null,
      },
    ]);
    expect(incident!.root_cause_summary).toBe(
      // From the first error's time to the last's, as the errors say: not the detection window.
      `TypeError: ${CART_ERROR} at renderCart (checkout.js:42), 5 times in 40 seconds across 5 sessions. ` +
        'First seen in release 1.4.2. ' +
        '2 failing requests correlate: POST /api/cart → 502 (trace 4bf9…). ' +
        `Replay of an affected session: ${viewer}sess-1.`,
    );

    // Running again changes nothing: one open incident per group.
    expect(await detector().runOnce()).toMatchObject({ errors: 0, opened: [], escalated: [] });
    expect((await openIncidents()).map((i) => i.id)).toEqual([incident!.id]);
    now += 31 * MINUTE;
    expect((await detector().runOnce()).resolved).toEqual([incident!.id]);
  });

  it('does not open an incident for errors spread wider than the window', async () => {
    await sendErrors(4, { message: 'Slow drip 1' });
    now += 6 * MINUTE;
    await sendErrors(4, { message: 'Slow drip 2' });
    expect((await detector().runOnce()).opened).toEqual([]);
    now += 6 * MINUTE;
    await sendErrors(4, { message: 'Slow drip 3' });
    expect((await detector().runOnce()).opened).toEqual([]);
  });

  it('counts each error once and opens one incident when detectors run at once', async () => {
    const message = 'Concurrent burst 42';
    // Another user's failing request at the same moment is not this error's cause.
    await post(
      '/otlp/v1/traces',
      spanBody({
        traceId: 'f'.repeat(32),
        name: 'HTTP GET',
        atMs: now - 1000,
        sessionId: 'sess-other',
        statusCode: 2,
        attributes: [str('url.full', 'https://shop.example.com/nothing-here')],
      }),
    );
    await sendErrors(6, { message, sessionId: 'sess-c' });
    const reports = await Promise.all([detector().runOnce(), detector().runOnce(), detector().runOnce()]);
    expect(reports.flatMap((r) => r.opened)).toHaveLength(1);
    expect(reports.reduce((n, r) => n + r.errors, 0)).toBe(6);
    const [incident] = await openIncidents();
    // Six errors from one session: one user stuck, not an outage.
    expect(incident).toMatchObject({
      severity: 'medium',
      evidence: { error_count: 6, affected_sessions: 1, failing_requests: [] },
    });
    expect(incident!.root_cause_summary).toBe(
      'TypeError: Concurrent burst 42 at renderCart (checkout.js:42), 6 times within a second across 1 session. First seen in release 1.4.2. No failing request preceded it in its sessions or trace.',
    );
    now += 31 * MINUTE;
    await detector().runOnce();
  });

  it("correlates a backend error with the failing request of its own trace, before it; not with another trace's", async () => {
    const traceId = '1'.repeat(32);
    const stack = chromeStack('Stock service said no');
    const upstream = (id: string, atMs: number) => {
      const body = spanBody({
        traceId: id,
        name: 'HTTP POST',
        atMs,
        statusCode: 2,
        attributes: [str('url.full', 'https://stock.internal/reserve'), int('http.status_code', 503)],
      });
      body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.spanId = 'abcdef0123456789';
      return body;
    };
    await post('/otlp/v1/traces', upstream('2'.repeat(32), now - 500));
    await post('/otlp/v1/traces', {
      resourceSpans: [
        ...upstream(traceId, now - 100).resourceSpans,
        ...spanBody({ traceId, name: 'checkout', atMs: now, exception: { message: 'Stock service said no', stack } })
          .resourceSpans,
      ],
    });
    for (let i = 0; i < 4; i++)
      await post(
        '/otlp/v1/traces',
        spanBody({
          traceId: `9${i}`.padEnd(32, '0'),
          name: 'checkout',
          atMs: now - 200,
          exception: { message: 'Stock service said no', stack },
        }),
      );
    const [id] = (await detector().runOnce()).opened;
    const incident = await store.get(t.projectId, id!);
    expect(errorEvidence(incident!.evidence)!.failing_requests.map((r) => r.trace_id)).toEqual([traceId]);
    expect(incident!.root_cause_summary).toContain('1 failing request correlates: POST /reserve → 503 (trace 1111…).');
    now += 31 * MINUTE;
    await detector().runOnce();
  });

  it('escalates once when the group keeps growing, resolves after the quiet period, and reopens on a new burst', async () => {
    const message = 'Checkout total is NaN';
    await sendErrors(5, { message });
    const opened = (await detector().runOnce()).opened;
    expect(opened).toHaveLength(1);
    const id = opened[0]!;

    now += MINUTE;
    await sendErrors(6, { message });
    const growing = await detector().runOnce();
    expect(growing).toMatchObject({ escalated: [id], updated: [id] });
    const escalated = await store.get(t.projectId, id);
    expect(escalated).toMatchObject({
      status: 'escalated',
      escalated_at: new Date(now).toISOString(),
      evidence: { error_count: 11 },
    });
    expect(escalated!.root_cause_summary).toMatch(
      /^TypeError: Checkout total is NaN at renderCart \(checkout\.js:42\), 11 times in 60 seconds\./,
    );

    now += MINUTE;
    await sendErrors(20, { message });
    const more = await detector().runOnce();
    expect(more).toMatchObject({ escalated: [], updated: [id] });
    expect(errorEvidence((await store.get(t.projectId, id))!.evidence)!.error_count).toBe(31);

    // 29 minutes without an error: still open. 30: resolved by the detector.
    now += 29 * MINUTE;
    expect((await detector().runOnce()).resolved).toEqual([]);
    now += MINUTE;
    expect((await detector().runOnce()).resolved).toEqual([id]);
    expect(await store.get(t.projectId, id)).toMatchObject({
      status: 'resolved',
      resolved_by: 'detector',
      resolved_at: new Date(now).toISOString(),
    });

    now += MINUTE;
    await sendErrors(5, { message });
    const reopened = (await detector().runOnce()).opened;
    expect(reopened).toHaveLength(1);
    expect(reopened[0]).not.toBe(id);
    expect(errorEvidence((await store.get(t.projectId, reopened[0]!))!.evidence)!.error_count).toBe(5);
    now += 31 * MINUTE;
    await detector().runOnce();
  });

  it('escalates an incident whose errors persist', async () => {
    const message = 'Payment widget failed to mount';
    await sendErrors(5, { message });
    const id = (await detector().runOnce()).opened[0]!;
    for (let minutes = 6; minutes <= 30; minutes += 6) {
      now += 6 * MINUTE;
      await sendErrors(1, { message });
      expect((await detector().runOnce()).escalated, `${minutes} minutes`).toEqual(minutes >= 30 ? [id] : []);
    }
    now += 31 * MINUTE;
    expect((await detector().runOnce()).resolved).toEqual([id]);
  });

  it('does not reopen an incident a person resolved until a new burst', async () => {
    const message = 'Coupon code rejected';
    await sendErrors(5, { message });
    const id = (await detector().runOnce()).opened[0]!;
    await store.resolve(t.projectId, id, 'jane');
    // The window still holds five errors, but they belong to the resolved incident.
    expect((await detector().runOnce()).opened).toEqual([]);
    now += MINUTE;
    await sendErrors(4, { message });
    expect((await detector().runOnce()).opened).toEqual([]);
    await sendErrors(1, { message });
    const reopened = (await detector().runOnce()).opened;
    expect(reopened).toHaveLength(1);
    expect(reopened[0]).not.toBe(id);
    now += 31 * MINUTE;
    await detector().runOnce();
  });

  it('keeps detecting after retention deleted every row (SQLite then reuses row ids)', async () => {
    const { db } = t.server.database;
    const issueFacts = async () => ({
      sessions: (
        await db.selectFrom('issue_sessions').select('session_id').where('project_id', '=', t.projectId).execute()
      ).length,
      hours: (await db.selectFrom('issue_hours').select('hour_ms').where('project_id', '=', t.projectId).execute())
        .length,
      issues: (
        await db.selectFrom('detection_groups').select('fingerprint').where('project_id', '=', t.projectId).execute()
      ).length,
    });
    const before = await issueFacts();
    expect(before.sessions).toBeGreaterThan(0);
    expect(before.hours).toBeGreaterThan(0);
    now += 40 * 86_400_000;
    const { deleted } = await applyRetention(db, clock, 30);
    // The issues stay (status, counts, first and last seen); the sessions and hours they were read from go.
    expect(await issueFacts()).toEqual({ sessions: 0, hours: 0, issues: before.issues });
    expect(deleted).toMatchObject({ issue_sessions: before.sessions, issue_hours: before.hours });
    await sendErrors(5, { message: 'After a long silence' });
    expect((await detector().runOnce()).opened).toHaveLength(1);
  });
});

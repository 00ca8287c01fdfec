import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { exportLines } from '../../server/src/export/lines';
import { createKey } from '../../server/src/index';
import { API_KEY_HEADER } from '../../wire/paths';
import { databaseKinds } from '../support/databases';
import { str } from '../support/otlp';
import { controlGet, expectBadRequests, startTestServer, type TestServer } from '../support/server';

/**
 * The export (issue 32, docs/governance.md "Export") through the real server over HTTP on SQLite and PostgreSQL: a
 * project's records ingested through the API come out of `GET /control-plane/export` as OTLP/JSON export requests and
 * replay chunks, one per line, which ingest takes back as they are: exported again from a second project, they read the
 * same. A line's cursor resumes with exactly the rest; pages are read as the lines are taken; no key is in an export.
 */
const kinds = await databaseKinds();

/** Every record of the test lies in [T0, T0 + 1 h); ingest stores it whatever its age. */
const T0 = Date.UTC(2026, 0, 5, 10);
const ns = (ms: number) => `${ms}000000`;
const RANGE = `from=${new Date(T0).toISOString()}&to=${new Date(T0 + 3_600_000).toISOString()}`;
const SIGNALS = ['spans', 'logs', 'metrics', 'replay'] as const;
type Signal = (typeof SIGNALS)[number];

interface Project {
  url: string;
  ingestKey: string;
  controlKey: string;
}

/** Attribute values of every kind ingest keeps: text, whole and fractional numbers, booleans, lists and maps. */
const richAttributes = (i: number) => [
  str('http.method', 'GET'),
  { key: 'http.status_code', value: { intValue: String(200 + i) } },
  { key: 'ratio', value: { doubleValue: 0.25 + i } },
  { key: 'cached', value: { boolValue: i % 2 === 0 } },
  { key: 'tags', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '7' }] } } },
  { key: 'user', value: { kvlistValue: { values: [str('id', `user-${i}`)] } } },
];

const resource = (app: string, session: string) => ({
  attributes: [str('service.name', app), str('session.id', session), str('deployment.environment', 'prod')],
});

const hex12 = (n: number) => n.toString(16).padStart(12, '0');

function spans(count: number, at: number) {
  return {
    resourceSpans: [
      {
        resource: resource('web-app', 'sess-export'),
        scopeSpans: [
          {
            scope: { name: '@svc/browser', version: '1.2.3', attributes: [str('scope.kind', 'auto')] },
            spans: Array.from({ length: count }, (_, i) => ({
              traceId: `${hex12(at + i)}${'ab'.repeat(10)}`,
              spanId: `${hex12(at + i)}cdcd`,
              ...(i > 0 && { parentSpanId: `${hex12(at)}cdcd` }),
              name: `GET /items/${i}`,
              kind: 3,
              startTimeUnixNano: ns(at + i),
              endTimeUnixNano: `${at + i + 5}123456`,
              attributes: richAttributes(i),
              events: [{ timeUnixNano: ns(at + i), name: 'retry', attributes: [str('attempt', '2')] }],
              links: [{ traceId: 'ef'.repeat(16), spanId: '12'.repeat(8), traceState: 'k=v', attributes: [] }],
              status: i % 3 === 0 ? { code: 2, message: 'boom' } : { code: 1 },
            })),
          },
        ],
      },
    ],
  };
}

function logs(count: number, at: number) {
  return {
    resourceLogs: [
      {
        resource: resource('web-app', 'sess-export'),
        scopeLogs: [
          {
            scope: { name: '@svc/browser' },
            logRecords: Array.from({ length: count }, (_, i) => ({
              timeUnixNano: ns(at + i),
              observedTimeUnixNano: ns(at + i + 1),
              severityNumber: 17,
              severityText: 'ERROR',
              body: i % 2 ? { stringValue: `failed ${i}` } : { kvlistValue: { values: [str('message', `m${i}`)] } },
              eventName: 'app.error',
              traceId: 'ab'.repeat(16),
              spanId: 'cd'.repeat(8),
              attributes: [str('log.record.uid', `uid-${at}-${i}`), ...richAttributes(i)],
            })),
          },
        ],
      },
    ],
  };
}

function metrics(at: number) {
  const point = { timeUnixNano: ns(at), startTimeUnixNano: ns(at - 1000), attributes: [str('route', '/items')] };
  return {
    resourceMetrics: [
      {
        resource: resource('web-app', 'sess-export'),
        scopeMetrics: [
          {
            scope: { name: '@svc/browser' },
            metrics: [
              {
                name: 'lcp',
                unit: 'ms',
                gauge: {
                  dataPoints: [
                    { ...point, attributes: [...point.attributes, str('svc.point.uid', 'p-1')], asDouble: 1234.5 },
                  ],
                },
              },
              {
                name: 'clicks',
                description: 'clicks made',
                sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ ...point, asInt: '3' }] },
              },
              {
                name: 'http.client.duration',
                unit: 'ms',
                histogram: {
                  aggregationTemporality: 2,
                  dataPoints: [
                    {
                      ...point,
                      count: '3',
                      sum: 30.5,
                      bucketCounts: ['1', '2', '0'],
                      explicitBounds: [5, 10],
                      min: 1,
                      max: 20,
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

const replayChunk = (seq: number, at: number) => ({
  serviceName: 'web-app',
  sessionId: 'sess-export',
  replayId: 'replay-1',
  seq,
  startTs: at,
  endTs: at + 10,
  eventCount: 2,
  events: [
    { type: 4, data: { href: 'https://shop.example/items', width: 800, height: 600 }, timestamp: at },
    { type: 5, data: { tag: 'checkpoint', payload: { seq } }, timestamp: at + 10 },
  ],
});

const INGEST_PATH: Record<Signal, string> = {
  spans: '/otlp/v1/traces',
  logs: '/otlp/v1/logs',
  metrics: '/otlp/v1/metrics',
  replay: '/ingest/replay/chunk',
};

async function ingest(p: Project, signal: Signal, body: unknown): Promise<void> {
  const res = await fetch(`${p.url}${INGEST_PATH[signal]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [API_KEY_HEADER]: p.ingestKey },
    body: JSON.stringify(body),
  });
  expect(res.status, `${INGEST_PATH[signal]}: ${await res.clone().text()}`).toBe(200);
}

/** The export of one signal as its raw text. */
async function exportText(p: Project, query: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${p.url}/control-plane/export?${query}`, {
    headers: { authorization: `Bearer ${p.controlKey}` },
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

type Line = Record<string, unknown> & { cursor: string };
const linesOf = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);

async function exported(p: Project, signal: Signal, extra = ''): Promise<Line[]> {
  const res = await exportText(p, `signal=${signal}&${RANGE}${extra}`);
  expect(res.status, res.text).toBe(200);
  expect(res.type).toMatch(/^application\/x-ndjson/);
  return linesOf(res.text);
}

const withoutCursor = ({ cursor: _cursor, ...rest }: Line) => rest;

describe.each(kinds)('export (%s)', (kind) => {
  let t: TestServer;
  let second: Project;

  beforeAll(async () => {
    t = await startTestServer(kind);
    await ingest(t, 'spans', spans(7, T0 + 1000));
    await ingest(t, 'logs', logs(5, T0 + 2000));
    await ingest(t, 'metrics', metrics(T0 + 3000));
    for (const seq of [0, 1, 2]) await ingest(t, 'replay', replayChunk(seq, T0 + 4000 + seq * 100));
    // Outside the range: never exported.
    await ingest(t, 'spans', spans(1, T0 - 10_000));
    const admin = await createKey(t.server.database.db, systemClock, { projectId: t.projectId, scope: 'admin' });
    const res = await fetch(`${t.url}/control-plane/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'restored' }),
    });
    const made = (await res.json()) as { ingest_key: { key: string }; control_key: { key: string } };
    second = { url: t.url, ingestKey: made.ingest_key.key, controlKey: made.control_key.key };
  });
  afterAll(() => t?.close());

  it('takes the records back into ingest as they are: a second project exports the same lines', async () => {
    const first = Object.fromEntries(await Promise.all(SIGNALS.map(async (s) => [s, await exported(t, s)] as const)));
    expect(
      first.spans!.flatMap((l) =>
        (l.resourceSpans as Array<{ scopeSpans: Array<{ spans: unknown[] }> }>).flatMap((r) =>
          r.scopeSpans.flatMap((s) => s.spans),
        ),
      ),
    ).toHaveLength(7);
    expect(first.replay).toHaveLength(3);
    for (const s of SIGNALS) for (const line of first[s]!) await ingest(second, s, line);
    for (const s of SIGNALS) {
      const again = await exported(second, s);
      expect(again.map(withoutCursor), s).toEqual(first[s]!.map(withoutCursor));
    }
    // What the listings show of them is the same too: the round trip lost no field the API reads.
    const strip = ({ id: _id, received_at: _r, ...rest }: Record<string, unknown>) => rest;
    for (const path of ['/spans?limit=50', '/logs?limit=50', '/metrics?limit=50', '/replay/chunks?limit=50']) {
      const [a, b] = await Promise.all([
        controlGet(t, path),
        controlGet({ ...t, controlKey: second.controlKey }, path),
      ]);
      const inRange = a.body.data.filter((r) => !String(r.time ?? r.start_time).startsWith('2026-01-05T09'));
      expect(b.body.data.map(strip), path).toEqual(inRange.map(strip));
    }
  });

  it('spells attributes, points and replay chunks as OTLP and ingest take them', async () => {
    const [span] = (await exported(t, 'spans', '&page_size=1'))[0]!.resourceSpans as Array<Record<string, never>>;
    expect(span).toMatchObject({
      resource: { attributes: expect.arrayContaining([{ key: 'service.name', value: { stringValue: 'web-app' } }]) },
      scopeSpans: [
        {
          scope: { name: '@svc/browser', version: '1.2.3', attributes: [str('scope.kind', 'auto')] },
          spans: [
            {
              attributes: richAttributes(0),
              status: { code: 2, message: 'boom' },
              endTimeUnixNano: `${T0 + 1005}123456`,
            },
          ],
        },
      ],
    });
    const [points] = (await exported(t, 'metrics'))[0]!.resourceMetrics as Array<{ scopeMetrics: unknown[] }>;
    expect(points!.scopeMetrics).toMatchObject([
      {
        metrics: [
          {
            name: 'lcp',
            gauge: {
              dataPoints: [{ asDouble: 1234.5, attributes: [str('route', '/items'), str('svc.point.uid', 'p-1')] }],
            },
          },
          { name: 'clicks', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ asInt: '3' }] } },
          {
            name: 'http.client.duration',
            histogram: { dataPoints: [{ count: '3', sum: 30.5, explicitBounds: [5, 10] }] },
          },
        ],
      },
    ]);
    expect((await exported(t, 'replay'))[1]).toMatchObject({
      ...replayChunk(1, T0 + 4100),
      cursor: expect.any(String),
    });
  });

  it('resumes after any line with exactly the rest, and carries no key', async () => {
    const all = await exported(t, 'logs', '&page_size=2');
    expect(all).toHaveLength(3);
    const rest = await exported(t, 'logs', `&page_size=2&cursor=${all[0]!.cursor}`);
    expect(rest).toEqual(all.slice(1));
    expect(await exported(t, 'logs', `&cursor=${all[2]!.cursor}`)).toEqual([]);
    for (const s of SIGNALS) {
      const { text } = await exportText(t, `signal=${s}`);
      for (const key of [t.ingestKey, t.controlKey, second.ingestKey]) expect(text).not.toContain(key);
      expect(text).not.toMatch(/svc_(ingest|control|read|admin)_/);
    }
  });

  it('refuses a bad signal, page size or cursor with a 400 naming it, and needs project.configure', async () => {
    const [spanLine] = await exported(t, 'spans', '&page_size=1');
    await expectBadRequests(t, [
      ['/export', 'signal'],
      ['/export?signal=traces', 'signal'],
      ['/export?signal=spans&page_size=0', 'page_size'],
      ['/export?signal=replay&page_size=500', 'page_size'],
      ['/export?signal=spans&from=yesterday', 'from'],
      ['/export?signal=spans&cursor=bm90LWEtY3Vyc29y', 'cursor'],
      [`/export?signal=logs&cursor=${spanLine!.cursor}`, 'cursor'],
      ['/export?signal=spans&limit=5', 'limit'],
    ]);
    const reader = await createKey(t.server.database.db, systemClock, { projectId: t.projectId, scope: 'read' });
    const res = await fetch(`${t.url}/control-plane/export?signal=spans`, {
      headers: { authorization: `Bearer ${reader.key}` },
    });
    expect(res.status).toBe(403);
  });

  it('reads a page only when the lines before it are taken', async () => {
    const lines = exportLines(t.server.database.db, { projectId: t.projectId, signal: 'logs', pageSize: 1 });
    const first = await lines.next();
    expect(first.done).toBe(false);
    // Stored after the first line was made, at the end of the order: only an export that reads on as it goes has it.
    await ingest(t, 'logs', logs(2, T0 + 50_000));
    const rest: string[] = [];
    for await (const line of lines) rest.push(line);
    expect(rest).toHaveLength(5 + 2 - 1);
    expect(JSON.parse(rest.at(-1)!)).toMatchObject({
      resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: ns(T0 + 50_001) }] }] }],
    });
  });
});

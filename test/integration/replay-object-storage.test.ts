import { gzipSync } from 'node:zlib';
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_HEADER } from '../../wire/paths';
import { applyRetention, loadConfig, startServer } from '../../server/src/index';
import { chunkStoreOf } from '../../server/src/replay/chunk-store';
import { sweepOrphanChunks } from '../../server/src/replay/sweep';
import { databaseKinds } from '../support/databases';
import { S3RVER_CREDENTIALS, startLocalS3, type LocalS3 } from '../support/cost/s3';
import { controlCall, controlGet, startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/until';

/**
 * Replay chunks in object storage (docs/replays.md, "Object storage") through the real server over HTTP, on SQLite and
 * PostgreSQL, against s3rver (a real S3 protocol server) on loopback: payloads go to the bucket and rows keep only the
 * index, the replay API serves the same events (and a chunk whose object is gone as unreadable), a retried chunk is one
 * object and one row, retention and deletion on request remove rows and objects, the sweeper deletes an object no row
 * names once past its grace and keeps the others, and a bad setting refuses start-up naming it.
 */
const kinds = await databaseKinds();
const DAY = 86_400_000;
const PREFIX = 'svc/';

type Event = { type: number; timestamp: number; data: Record<string, unknown> };
const events = (n: number, at: number): Event[] => [
  { type: 4, timestamp: at, data: { href: 'https://shop.example/cart', width: 1280, height: 720 } },
  ...Array.from({ length: n }, (_, i) => ({
    type: 3,
    timestamp: at + 1 + i,
    data: { source: 1, positions: [{ x: i, y: i, id: 4, timeOffset: 0 }] },
  })),
];

/** A chunk as the SDK sends it: gzip `data` for seq 0, inline events after. */
function chunk(sessionId: string, seq: number, sent: Event[]): Record<string, unknown> {
  const fields = {
    serviceName: 'web-app',
    sessionId,
    replayId: `${sessionId}-r`,
    seq,
    startTs: sent[0]!.timestamp,
    endTs: sent[sent.length - 1]!.timestamp,
    eventCount: sent.length,
  };
  if (seq > 0) return { ...fields, events: sent };
  return { ...fields, encoding: 'gzip', data: gzipSync(JSON.stringify(sent)).toString('base64') };
}

let s3: LocalS3;
const savedEnv = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

beforeAll(async () => {
  s3 = await startLocalS3();
  // The server finds its credentials through the AWS SDK's default chain, as in production.
  process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
});
afterAll(async () => {
  await s3?.close();
  for (const [name, value] of [
    ['AWS_ACCESS_KEY_ID', savedEnv.id],
    ['AWS_SECRET_ACCESS_KEY', savedEnv.secret],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const keysIn = async (bucket: string): Promise<string[]> => {
  const page = await s3.admin.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (page.Contents ?? []).map((o) => o.Key!).sort();
};

describe.each(kinds)('replay chunks in object storage on %s', (kind) => {
  const bucket = `replays-${kind}`;
  let t: TestServer;
  let now = Date.now();
  const clock = { now: () => now };

  beforeAll(async () => {
    await s3.createBucket(bucket);
    t = await startTestServer(kind, {
      clock,
      detection: false,
      replayStorage: { bucket, endpoint: s3.endpoint, region: 'us-east-1', prefix: PREFIX },
    });
  });
  afterAll(async () => t?.close());

  const send = async (body: Record<string, unknown>) => {
    const res = await fetch(`${t.url}/ingest/replay/chunk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [API_KEY_HEADER]: t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as { accepted: number; duplicates: number };
  };
  const rowsOf = (sessionId: string) =>
    t.server.database.db
      .selectFrom('replay_chunks')
      .select(['seq', 'data', 'object_key', 'stored_bytes'])
      .where('session_id', '=', sessionId)
      .orderBy('seq')
      .execute();
  const puts = () => s3.requests.filter((r) => r.method === 'PUT').length;

  const first = events(3, now - 60_000);
  const second = events(5, now - 30_000);

  it('puts payloads in the bucket, keeps only the index in the rows, and serves the same events', async () => {
    expect(chunkStoreOf(t.server.database.db).where).toBe(`s3://${bucket}/${PREFIX}`);
    expect(await send(chunk('sess-a', 0, first))).toEqual({ accepted: 1, duplicates: 0 });
    expect(await send(chunk('sess-a', 1, second))).toEqual({ accepted: 1, duplicates: 0 });

    const rows = await rowsOf('sess-a');
    expect(rows.map((r) => [r.seq, r.data.byteLength, r.stored_bytes! > 0])).toEqual([
      [0, 0, true],
      [1, 0, true],
    ]);
    const keys = rows.map((r) => r.object_key!);
    expect(keys.every((k) => k.startsWith(`${PREFIX}${t.projectId}/`))).toBe(true);
    expect(await keysIn(bucket)).toEqual([...keys].sort());

    const page = await controlGet<{ events: Event[]; chunks: unknown[] }>(t, '/sessions/sess-a/replay');
    expect(page.status).toBe(200);
    expect(page.body.events).toEqual([...first, ...second]);
    const detail = await controlGet<{ replays: Array<{ first_url: string }> }>(t, '/sessions/sess-a');
    expect(detail.body.replays[0]!.first_url).toBe('https://shop.example/cart');
    const records = await controlGet(t, '/replay/chunks?session_id=sess-a');
    expect(records.body.data.map((r) => r.events)).toEqual([second, first]);
  });

  it('stores a retried chunk once: one row, one object, no second put', async () => {
    const before = puts();
    expect(await send(chunk('sess-a', 0, first))).toEqual({ accepted: 0, duplicates: 1 });
    expect(puts()).toBe(before);
    expect(await rowsOf('sess-a')).toHaveLength(2);
    expect(await keysIn(bucket)).toHaveLength(2);
  });

  it('sweeps an object no row names once past its grace, and keeps the referenced ones', async () => {
    // A crash between put and insert: the object is written, its row never is.
    const orphan = `${PREFIX}${t.projectId}/crashed/replay/0-0123`;
    const foreign = 'not-svc/keep-me';
    for (const Key of [orphan, foreign]) await s3.admin.send(new PutObjectCommand({ Bucket: bucket, Key, Body: 'x' }));
    const referenced = (await rowsOf('sess-a')).map((r) => r.object_key!);

    // Within the grace period it may be a row on its way: kept.
    expect(await sweepOrphanChunks(t.server.database.db, clock)).toBe(0);
    expect(await keysIn(bucket)).toContain(orphan);

    const later = { now: () => Date.now() + 2 * 3_600_000 };
    expect(await sweepOrphanChunks(t.server.database.db, later)).toBe(1);
    expect(await keysIn(bucket)).toEqual([...referenced, foreign].sort());
  });

  it('serves a chunk whose object went missing as unreadable, and the others', async () => {
    const [, lost] = await rowsOf('sess-a');
    await s3.admin.send(new DeleteObjectCommand({ Bucket: bucket, Key: lost!.object_key! }));
    const page = await controlGet<{ events: Event[]; chunks: Array<{ unreadable?: string }> }>(
      t,
      '/sessions/sess-a/replay',
    );
    expect(page.body.events).toEqual(first);
    expect(page.body.chunks[1]!.unreadable).toMatch(/payload is missing from object storage/);
  });

  it('deletes a session on request with its objects', async () => {
    await send(chunk('sess-b', 0, events(2, now - 10_000)));
    const [key] = (await rowsOf('sess-b')).map((r) => r.object_key!);
    expect(await keysIn(bucket)).toContain(key);
    const queued = await controlCall<{ id: string }>(t, 'POST', '/erasures', { session_id: 'sess-b' });
    expect(queued.status).toBe(202);
    // Rows and objects go before the job compacts the database, which on PostgreSQL outlives older transactions.
    const job = () => controlCall<{ counts: Record<string, number> }>(t, 'GET', `/erasures/${queued.body.id}`);
    await eventually('the chunk and its object to be deleted', async () => {
      const counted = (await job()).body.counts.replay_chunks === 1;
      return (counted && (await rowsOf('sess-b')).length === 0 && !(await keysIn(bucket)).includes(key!)) || undefined;
    });
  });

  it('retention deletes expired chunks with their objects', async () => {
    now += 31 * DAY;
    await send(chunk('sess-c', 0, events(2, now - 1_000)));
    const [young] = (await rowsOf('sess-c')).map((r) => r.object_key!);
    const result = await applyRetention(t.server.database.db, clock, 30);
    expect(result.bySignal.replays).toEqual({ replay_chunks: 2 });
    expect(await rowsOf('sess-a')).toEqual([]);
    expect(await keysIn(bucket)).toEqual(['not-svc/keep-me', young]);
  });
});

describe('replay object storage settings', () => {
  const env = (vars: Record<string, string>) => () => loadConfig([], vars, '/tmp');

  it('refuses a bad value, naming its variable', () => {
    expect(env({ SVC_REPLAY_S3_BUCKET: 'Bad_Bucket' })).toThrow(/^SVC_REPLAY_S3_BUCKET must be an S3 bucket name/);
    expect(env({ SVC_REPLAY_S3_BUCKET: 'svc-replays', SVC_REPLAY_S3_ENDPOINT: 'minio:9000' })).toThrow(
      /^SVC_REPLAY_S3_ENDPOINT must be an http\(s\) URL/,
    );
    expect(env({ SVC_REPLAY_S3_BUCKET: 'svc-replays', SVC_REPLAY_S3_PREFIX: '/replays' })).toThrow(
      /^SVC_REPLAY_S3_PREFIX /,
    );
    expect(env({ SVC_REPLAY_S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(
      'SVC_REPLAY_S3_ENDPOINT needs SVC_REPLAY_S3_BUCKET too',
    );
    expect(
      loadConfig([], { SVC_REPLAY_S3_BUCKET: 'svc-replays', SVC_REPLAY_S3_PREFIX: 'replays' }, '/tmp').replayStorage,
    ).toEqual({ bucket: 'svc-replays', region: 'us-east-1', prefix: 'replays/' });
  });

  it('refuses to start on a bucket it cannot reach, naming SVC_REPLAY_S3_BUCKET', async () => {
    await expect(
      startServer({
        port: 0,
        log: () => undefined,
        databaseUrl: ':memory:',
        detection: false,
        replayStorage: { bucket: 'no-such-bucket', endpoint: s3.endpoint, region: 'us-east-1', prefix: '' },
      }),
    ).rejects.toThrow(/^SVC_REPLAY_S3_BUCKET: bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+ cannot be used/);
  });
});

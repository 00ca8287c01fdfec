import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../server/src/db/migrate';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { storeBatch, type StoreContext } from '../../server/src/ingest/store';
import { normalizeReplayChunk } from '../../server/src/ingest/replay';
import { normalizeTraces } from '../../server/src/otlp/traces';
import { bootstrapIfEmpty } from '../../server/src/projects/bootstrap';
import { openTelemetryWriter } from '../../server/src/ingest/writer';
import { databaseKinds } from '../support/databases';
import { traceBody } from '../support/otlp';
import { controlGet, startTestServer, type TestServer } from '../support/server';

const clock = { now: () => 1_700_000_100_000 };

describe('SQLite group commit', () => {
  let handle: DatabaseHandle;
  let ctx: StoreContext;
  let projectId: string;

  beforeEach(async () => {
    handle = openDatabase(':memory:');
    await migrateToLatest(handle);
    projectId = (await bootstrapIfEmpty(handle.db, clock))!.projectId;
    ctx = { db: handle.db, writer: openTelemetryWriter(handle, () => undefined), clock };
  });
  afterEach(() => handle.close());

  /** Stores a one-span trace request named `name` in session `session`. */
  const storeSpan = (name: string, session = 'sess-1') =>
    storeBatch(ctx, projectId, normalizeTraces(traceBody([{ name, sessionId: session }])));
  const spanNames = () => handle.sqlite!.prepare('select name from spans order by name').pluck().all() as string[];
  const spanCount = (session: string) =>
    handle.sqlite!.prepare('select span_count from sessions where session_id = ?').pluck().get(session) as
      | number
      | undefined;

  it('acknowledges concurrent requests after one commit, each with its own result, and stores them all', async () => {
    const writes = ['a', 'b', 'c'].map((name) => storeSpan(name));
    // Queued, not yet committed: nothing is stored before the group's turn comes.
    expect(spanNames()).toEqual([]);
    expect(await Promise.all(writes)).toEqual([1, 1, 1].map((stored) => ({ stored, duplicates: 0 })));
    expect(spanNames()).toEqual(['a', 'b', 'c']);
    expect(spanCount('sess-1')).toBe(3);
  });

  it('fails only the request whose rows fail, inside a group that otherwise commits', async () => {
    handle.sqlite!.exec(
      `create trigger refuse before insert on spans when new.name = 'bad' begin select raise(abort, 'refused'); end`,
    );
    const [ok1, bad, ok2] = await Promise.allSettled([
      storeSpan('ok-1'),
      storeSpan('bad', 'sess-bad'),
      storeSpan('ok-2'),
    ]);
    expect(ok1.status).toBe('fulfilled');
    expect(ok2.status).toBe('fulfilled');
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: 'refused' } });
    expect(spanNames()).toEqual(['ok-1', 'ok-2']);
    // The refused request's session summary was rolled back with its rows.
    expect(spanCount('sess-bad')).toBeUndefined();
    expect(spanCount('sess-1')).toBe(2);
  });

  it('fails every request in the group, and stores none of them, when the transaction itself fails', async () => {
    await storeSpan('before');
    handle.sqlite!.exec(
      `create trigger doom before insert on spans when new.name = 'doom' begin select raise(rollback, 'doomed'); end`,
    );
    const results = await Promise.allSettled([storeSpan('first'), storeSpan('doom'), storeSpan('last')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(spanNames()).toEqual(['before']);
    expect(spanCount('sess-1')).toBe(1);
    // The writer recovers: the next group commits.
    await storeSpan('after');
    expect(spanNames()).toEqual(['after', 'before']);
  });

  it('reports a replay chunk sent twice in one group as a duplicate and counts it once', async () => {
    const chunk = {
      serviceName: 'web-app',
      sessionId: 'sess-r',
      replayId: 'replay-1',
      seq: 0,
      startTs: 1_700_000_000_000,
      endTs: 1_700_000_001_000,
      eventCount: 1,
      encoding: 'json',
      data: JSON.stringify([{ type: 4, timestamp: 1_700_000_000_000, data: {} }]),
    };
    const results = await Promise.all(
      [0, 1].map(async () => storeBatch(ctx, projectId, await normalizeReplayChunk(chunk))),
    );
    expect(results).toEqual([
      { stored: 1, duplicates: 0 },
      { stored: 0, duplicates: 1 },
    ]);
    expect(
      handle.sqlite!.prepare('select replay_chunk_count from sessions where session_id = ?').pluck().get('sess-r'),
    ).toBe(1);
  });

  it('waits for a Kysely transaction on the same connection instead of writing inside it', async () => {
    const write = storeSpan('outside');
    await expect(
      handle.db.transaction().execute(async (tx) => {
        await tx.updateTable('tenants').set({ name: 'renamed' }).execute();
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // Had the write joined Kysely's transaction, the rollback would have taken the acknowledged span with it.
    expect(await write).toEqual({ stored: 1, duplicates: 0 });
    expect(spanNames()).toEqual(['outside']);
  });

  it('commits queued writes before close() resolves', async () => {
    const row = normalizeTraces(traceBody([{ name: 'late' }])).rows[0]!;
    const appId = handle.sqlite!.prepare('select id from apps').pluck().get() as string;
    const write = ctx.writer.write({
      projectId,
      table: 'spans',
      rows: [{ ...row, project_id: projectId, app_id: appId, received_ms: clock.now() }],
      receivedMs: clock.now(),
    });
    await ctx.writer.close();
    expect(spanNames()).toEqual(['late']);
    await expect(write).resolves.toEqual({ stored: 1, duplicates: 0 });
  });
});

describe.each(await databaseKinds())('concurrent ingest requests on %s', (kind) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer(kind);
  });
  afterEach(() => t.close());

  it('acknowledges every one of many concurrent requests and stores all of them, with exact session counts', async () => {
    const requests = Array.from({ length: 40 }, (_, i) =>
      fetch(`${t.url}/otlp/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
        body: JSON.stringify(
          traceBody(
            [0, 1, 2].map((j) => ({
              sessionId: `sess-${i % 4}`,
              name: `r${i}-s${j}`,
              spanId: `${i + 1}`.padStart(8, '0') + `${j + 1}`.padStart(8, '0'),
            })),
          ),
        ),
      }),
    );
    const statuses = await Promise.all(requests.map(async (r) => (await r).status));
    expect(statuses).toEqual(Array(40).fill(200));
    const sessions = await controlGet(t, '/sessions?limit=10');
    expect(sessions.body.data.map((s) => [s.session_id, (s.counts as { spans: number }).spans]).sort()).toEqual([
      ['sess-0', 30],
      ['sess-1', 30],
      ['sess-2', 30],
      ['sess-3', 30],
    ]);
  });
});

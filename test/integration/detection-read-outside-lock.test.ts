import {
  SelectQueryNode,
  TableNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDetector, type Detector } from '../../server/src/incidents/detect/detector';
import type { DetectionDb } from '../../server/src/incidents/detect/groups';
import { databaseKinds } from '../support/databases';
import { detectionIncidentStore } from '../support/incident-store';
import { errorLog } from '../support/error-logs';
import { postIngest, startTestServer, type TestServer } from '../support/server';

/**
 * The incident detector reads each batch of logs and spans before it takes the cursors' locks, and holds them only to
 * count and move the cursors (incidents/detect/consume.ts). On SQLite that lock is the database's one write lock, which
 * ingest's writer waits for: reading 2,000 rows under it held every ingest request for as long (docs/benchmarks.md,
 * "The half-rate p99"). A cursor that moved between the read and the lock (another process counted that batch) makes
 * the batch read again, so nothing is counted twice.
 */
const kinds = await databaseKinds();

/** Runs `after` once a query of the detector on `table` has its result, before the detector sees it. */
function afterQueryOn(table: string, after: () => Promise<void>): KyselyPlugin {
  const marked = new WeakSet<object>();
  const tableOf = (node: PluginTransformQueryArgs['node']) => {
    const from = SelectQueryNode.is(node) ? node.from?.froms[0] : undefined;
    return from && TableNode.is(from) ? from.table.identifier.name : undefined;
  };
  return {
    transformQuery(args) {
      if (tableOf(args.node) === table) marked.add(args.queryId);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (marked.has(args.queryId)) await after();
      return args.result;
    },
  };
}

describe.each(kinds)('the incident detector reads its batch outside the counting transaction on %s', (kind) => {
  let t: TestServer;
  const now = 1_800_000_000_000;
  const clock = { now: () => now };

  const detector = (db: DetectionDb): Detector =>
    createDetector({
      db,
      clock,
      commands: detectionIncidentStore(t, clock),
      publicUrl: t.server.publicUrl,
      box: t.server.notify.box,
    });
  const sendErrors = async (count: number, message: string) => {
    for (let i = 0; i < count; i++)
      await postIngest(t, '/otlp/v1/logs', JSON.stringify(errorLog({ atMs: now, message })));
  };
  const totalOf = async (message: string) =>
    (
      await t.server.database.db
        .selectFrom('detection_groups')
        .select('total_count')
        .where('message', 'like', `%${message}%`)
        .executeTakeFirstOrThrow()
    ).total_count;

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
  });
  afterAll(() => t?.close());

  it('holds no lock while it reads the rows after its cursor', async () => {
    const message = 'Read while ingest writes';
    await sendErrors(3, message);
    /** Whether ingest could have written at that moment: SQLite's write lock free, the cursor rows not locked. */
    const lockFree = async (): Promise<boolean> => {
      if (kind === 'sqlite') return !t.server.database.sqlite!.inTransaction;
      const probe = new pg.Client({ connectionString: t.server.database.displayUrl });
      await probe.connect();
      try {
        await probe.query('begin');
        await probe.query('select 1 from detection_cursors for update nowait');
        return true;
      } catch (err) {
        if ((err as { code?: string }).code === '55P03') return false;
        throw err;
      } finally {
        await probe.end();
      }
    };
    const seen: boolean[] = [];
    const watched = t.server.database.db.withPlugin(afterQueryOn('logs', async () => void seen.push(await lockFree())));
    expect(await detector(watched).runOnce()).toMatchObject({ errors: 3 });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every(Boolean)).toBe(true);
    expect(await totalOf(message)).toBe(3);
  });

  // SQLite has one connection per server, which the first detector holds while its plugin runs the second.
  it.runIf(kind === 'postgres')(
    'reads the batch again when another process counted it between the read and the lock',
    async () => {
      const message = 'Counted by the other process first';
      await sendErrors(4, message);
      let other: Awaited<ReturnType<Detector['runOnce']>> | undefined;
      const racing = t.server.database.db.withPlugin(
        afterQueryOn('detection_cursors', async () => {
          other ??= await detector(t.server.database.db).runOnce();
        }),
      );
      expect(await detector(racing).runOnce()).toMatchObject({ errors: 0 });
      expect(other).toMatchObject({ errors: 4 });
      expect(await totalOf(message)).toBe(4);
    },
  );
});

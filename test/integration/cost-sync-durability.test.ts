import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/src/index';
import { putDataExport } from '../support/cost/aws-exports';
import { startFakeSts, type FakeSts } from '../support/cost/fake-sts';
import { startLocalS3, type LocalS3 } from '../support/cost/s3';
import { databaseKinds } from '../support/databases';
import { createLastingDatabase } from '../support/server-process';

/**
 * The daily sync job lives in the database, so several server processes share it and a stop loses nothing: two
 * servers on one database run a due sync once between them; a server stopped in the middle of a sync leaves it due, and
 * the next server to start runs it.
 */
const kinds = await databaseKinds();
const ROLE = 'arn:aws:iam::111122223333:role/svc-cost-read';
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

process.env.AWS_ACCESS_KEY_ID ??= 'AKIDBASECREDENTIALS';
process.env.AWS_SECRET_ACCESS_KEY ??= 'base-secret';

/** A pass-through to STS that holds every request until `release()`: a sync caught in the middle of its work. */
async function gate(target: string) {
  let open = false;
  const held: (() => void)[] = [];
  let arrived: () => void = () => undefined;
  const firstArrival = new Promise<void>((resolve) => (arrived = resolve));
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const upstream = request(
        new URL(req.url ?? '/', target),
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    arrived();
    if (open) forward();
    else held.push(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    firstArrival,
    release() {
      open = true;
      for (const forward of held.splice(0)) forward();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(kinds)('cost sync durability on %s', (kind) => {
  let s3: LocalS3;
  let sts: FakeSts;

  beforeAll(async () => {
    s3 = await startLocalS3();
    sts = await startFakeSts();
    await s3.createBucket('shared-billing');
    const day = (d: number) => ({
      day: `2026-11-${String(d).padStart(2, '0')}`,
      resourceId: 'i-web1',
      productCode: 'AmazonEC2',
      region: 'us-east-1',
      accountId: '111122223333',
      type: 'Usage' as const,
      unblendedCost: 24,
    });
    await putDataExport(
      { s3: s3.admin, bucket: 'shared-billing', prefix: '' },
      {
        name: 'daily',
        period: '2026-11',
        format: 'cur2',
        encoding: 'csv-gzip',
        files: [Array.from({ length: 20 }, (_, i) => day(i + 1))],
      },
    );
  });

  afterAll(async () => {
    await sts?.close();
    await s3?.close();
  });

  const start = (databaseUrl: string, stsUrl = sts.url, secretKey = 'cost-durability-secret-key-0123456789abcdef') =>
    startServer({
      port: 0,
      log: () => undefined,
      databaseUrl,
      secretKey,
      clock: { now: () => NOW },
      detection: false,
      cost: { endpoints: { s3: s3.endpoint, sts: stsUrl }, sync: { pollMs: 3_600_000 } },
    });

  const connect = async (server: RunningServer) => {
    const res = await fetch(`${server.url}/control-plane/cost/providers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.bootstrap!.controlKey.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: 'aws',
        config: { role_arn: ROLE, cur_bucket: 'shared-billing', cur_prefix: '' },
      }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  const syncOf = async (server: RunningServer, controlKey: string, id: string) => {
    const res = await fetch(`${server.url}/control-plane/cost/providers/${id}/sync`, {
      headers: { authorization: `Bearer ${controlKey}` },
    });
    return (await res.json()) as {
      state: string;
      last_run: { status: string; line_items: number; error: string | null } | null;
    };
  };

  it('runs a due sync once when two servers share the database', async () => {
    const database = await createLastingDatabase(kind);
    const first = await start(database.url);
    const second = await start(database.url);
    try {
      const controlKey = first.bootstrap!.controlKey.key;
      const id = await connect(first);
      const calls = sts.calls.length;
      const ran = await Promise.all([first.cost.sync.runDue(), second.cost.sync.runDue()]);
      // The connection's first sync was due at once, and the servers may already have been woken for it.
      expect(ran[0] + ran[1]).toBeLessThanOrEqual(1);
      expect(sts.calls.length - calls).toBe(1);
      expect(await syncOf(second, controlKey, id)).toMatchObject({
        state: 'scheduled',
        last_run: { status: 'succeeded', line_items: 20 },
      });
    } finally {
      await second.close();
      await first.close();
      await database.drop();
    }
  });

  it('leaves a sync cut short by a stop due, and the next server runs it', async () => {
    const database = await createLastingDatabase(kind);
    const held = await gate(sts.url);
    const first = await start(database.url, held.url);
    const controlKey = first.bootstrap!.controlKey.key;
    let id = '';
    try {
      id = await connect(first);
      await held.firstArrival;
      expect((await syncOf(first, controlKey, id)).state).toBe('running');
    } finally {
      // Stopping aborts the read in flight; the held request is let go only afterwards.
      const closed = first.close();
      held.release();
      await closed;
      await held.close();
    }
    const second = await start(database.url);
    try {
      await second.cost.sync.runDue();
      expect(await syncOf(second, controlKey, id)).toMatchObject({
        state: 'scheduled',
        last_run: { status: 'succeeded', line_items: 20 },
      });
    } finally {
      await second.close();
      await database.drop();
    }
  });

  it('says so when the server runs with another secret key than the one that sealed the credentials', async () => {
    const database = await createLastingDatabase(kind);
    const first = await start(database.url);
    const controlKey = first.bootstrap!.controlKey.key;
    const id = await connect(first);
    await first.cost.sync.runDue();
    await first.close();
    const second = await start(database.url, sts.url, 'another-secret-key-0123456789abcdef012345');
    try {
      await fetch(`${second.url}/control-plane/cost/providers/${id}/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${controlKey}` },
      });
      await second.cost.sync.runDue();
      const sync = await syncOf(second, controlKey, id);
      expect(sync.state).toBe('retrying');
      expect(sync.last_run?.error).toContain("cannot be unsealed with this server's secret key");
    } finally {
      await second.close();
      await database.drop();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { migrateToLatest } from '../../server/src/db/migrate';
import { providerStore, type ProviderRow } from '../../server/src/cost/store/providers';
import { syncJobStore } from '../../server/src/cost/store/sync-jobs';
import { failed, interrupted, RETRY_DELAYS_MS, succeeded, SYNC_INTERVAL_MS } from '../../server/src/cost/sync/outcome';
import { startPassLoop } from '../../server/src/cost/sync/passes';
import { domainRefusal } from '../support/refusal';
import { createProvisionedProject } from '../../server/src/projects/provision';
import { createTenant } from '../../server/src/projects/store';

describe('cost sync outcome', () => {
  it('schedules the next run a day after a success started', () => {
    expect(succeeded({ rows: 3, periods: ['2026-10', '2026-11'] }, 1_000, 5_000)).toEqual({
      next_run_ms: 1_000 + SYNC_INTERVAL_MS,
      failures: 0,
      last_status: 'succeeded',
      last_rows: 3,
      last_periods: '["2026-10","2026-11"]',
      last_error: null,
      last_success_ms: 5_000,
    });
  });

  it('backs off 5 min, 30 min, 2 h, 6 h, then daily, keeping the last good data', () => {
    const delays = [1, 2, 3, 4, 5, 9].map((n) => failed(n, new Error('denied'), 0).delayMs);
    expect(delays).toEqual([...RETRY_DELAYS_MS, SYNC_INTERVAL_MS, SYNC_INTERVAL_MS]);
    const { record } = failed(2, 'x'.repeat(3000), 100);
    expect(record).toMatchObject({ next_run_ms: 100 + RETRY_DELAYS_MS[1], failures: 2, last_status: 'failed' });
    expect(record.last_error).toHaveLength(2000);
    expect(record).not.toHaveProperty('last_success_ms');
    expect(interrupted(7)).toEqual({ next_run_ms: 7 });
  });
});

describe('cost sync pass loop', () => {
  it('runs one pass at a time, a wake during a pass runs another after it, and stops before taking more', async () => {
    let active = 0;
    let most = 0;
    let passes = 0;
    let release: () => void = () => undefined;
    const loop = startPassLoop(
      async (stopped) => {
        if (stopped()) return 0;
        active += 1;
        most = Math.max(most, active);
        passes += 1;
        await new Promise<void>((resolve) => (release = resolve));
        active -= 1;
        return 1;
      },
      3_600_000,
      () => undefined,
    );
    const first = loop.runDue();
    const second = loop.runDue();
    await expect.poll(() => passes).toBeGreaterThan(0);
    release();
    await expect.poll(() => passes).toBeGreaterThan(1);
    release();
    await expect.poll(() => passes).toBeGreaterThan(2);
    release();
    await Promise.all([first, second]);
    expect(most).toBe(1);
    const stopped = loop.stop();
    release();
    await stopped;
    expect(await loop.runDue()).toBe(0);
  });
});

describe('cost connection and sync job stores', () => {
  let database: DatabaseHandle;
  let projectId: string;
  beforeAll(async () => {
    database = openDatabase(':memory:');
    await migrateToLatest(database);
    const clock = { now: () => 0 };
    const tenantId = await createTenant(database.db, clock, 't');
    projectId = (await createProvisionedProject(database.db, clock, tenantId, 'p')).project.id;
  });
  afterAll(async () => database.db.destroy());

  const connection = (id: string, createdMs: number): ProviderRow => ({
    id,
    project_id: projectId,
    provider: 'aws',
    name: null,
    config: '{}',
    secrets: 'sealed',
    created_ms: createdMs,
  });

  it('claims a due job once across owners, renews and releases only its own lease, and refuses a sync now meanwhile', async () => {
    const providers = providerStore(database.db);
    await providers.create(connection('cp_a', 1_000));
    const one = syncJobStore(database.db, 'sqlite', 'one', 600_000);
    const two = syncJobStore(database.db, 'sqlite', 'two', 600_000);
    const job = await one.claimDue(1_000);
    expect(job).toMatchObject({ provider_id: 'cp_a', lease_owner: 'one', lease_until_ms: 601_000 });
    expect(await two.claimDue(1_000)).toBeUndefined();

    const running = await domainRefusal(() => providers.requestSync('cp_a', 2_000));
    expect([running.kind, running.code]).toEqual(['conflict', 'sync_running']);

    await two.renewLease('cp_a', 5_000);
    expect((await providers.sync('cp_a')).lease_until_ms).toBe(601_000);
    await one.renewLease('cp_a', 5_000);
    expect((await providers.sync('cp_a')).lease_until_ms).toBe(605_000);

    await two.finish('cp_a', interrupted(6_000), 6_000);
    expect((await providers.sync('cp_a')).lease_owner).toBe('one');
    await one.finish('cp_a', succeeded({ rows: 1, periods: [] }, 1_000, 6_000), 6_000);
    expect(await providers.sync('cp_a')).toMatchObject({ lease_owner: null, last_finished_ms: 6_000, failures: 0 });

    // A lease that ran out is taken over.
    await providers.requestSync('cp_a', 7_000);
    await one.claimDue(7_000);
    expect(await two.claimDue(7_000 + 600_001)).toMatchObject({ lease_owner: 'two' });
  });

  it("finds only the project's connections and deletes one with its data", async () => {
    const providers = providerStore(database.db);
    await providers.create(connection('cp_b', 2_000));
    expect((await providers.list(projectId)).map((p) => p.id)).toEqual(['cp_a', 'cp_b']);
    const absent = await domainRefusal(() => providers.find('another project', 'cp_b'));
    expect([absent.kind, absent.message]).toEqual(['not_found', 'no cost provider cp_b in this project']);
    await providers.delete('cp_b');
    expect((await providers.list(projectId)).map((p) => p.id)).toEqual(['cp_a']);
  });
});

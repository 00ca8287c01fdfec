import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../clock';
import type { DialectName } from '../../db/connect';
import type { Database } from '../../db/schema';
import type { SecretBox } from '../../secrets/secret-box';
import { loadRules } from '../mappings-store';
import type { ProviderKind, ProviderName, SourceEnv } from '../sources/types';
import { createAggregator } from './aggregate';
import { periodsToSync } from './periods';
import { replacePeriod } from './store-period';

type SyncRow = Selectable<Database['cost_syncs']>;

export interface CostSyncDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  box: SecretBox;
  kinds: Record<ProviderName, ProviderKind>;
  env: SourceEnv;
  log: (line: string) => void;
}

export interface CostSyncOptions {
  /** How often due syncs are looked for when nothing woke the worker. Default 60 s. */
  pollMs?: number;
  /** A claimed sync another process may take over after this long without a heartbeat. Default 10 min. */
  leaseMs?: number;
}

export interface CostSync {
  /** A sync may be due now (a new connection, a manual trigger). */
  wake(): void;
  /** Runs every sync due now and waits for them: for tests with a manual clock. */
  runDue(): Promise<number>;
  stop(): Promise<void>;
}

/** SPEC 8: cost data is synced daily. */
export const SYNC_INTERVAL_MS = 24 * 3_600_000;
/** After a failed run: 5 min, 30 min, 2 h, 6 h, then once a day until it works. */
export const RETRY_DELAYS_MS = [5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000] as const;

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 2000);

/**
 * The cost sync worker. Each connection has one job row (cost_syncs) with a due time; a process takes a due job with a
 * lease (one conditional UPDATE, `SKIP LOCKED` on PostgreSQL), renews the lease while it reads, and records the run.
 * A run reads whole billing periods and replaces each one in a single transaction, so a failure — a denied role, a
 * truncated file, a crash — leaves the data of the last good run in place; it is retried with backoff.
 */
export function startCostSync(deps: CostSyncDeps, options: CostSyncOptions = {}): CostSync {
  const pollMs = options.pollMs ?? 60_000;
  const leaseMs = options.leaseMs ?? 10 * 60_000;
  const owner = `s_${randomBytes(6).toString('hex')}`;
  const { db, clock } = deps;
  const abort = new AbortController();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ticking: Promise<number> | undefined;

  const claimOne = async (): Promise<SyncRow | undefined> => {
    const now = clock.now();
    const due = db
      .selectFrom('cost_syncs')
      .select('provider_id')
      .where('next_run_ms', '<=', now)
      .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', now)]))
      .orderBy('next_run_ms')
      .limit(1);
    return db
      .with(
        (cte) => cte('due').materialized(),
        () => (deps.dialect === 'postgres' ? due.forUpdate().skipLocked() : due),
      )
      .updateTable('cost_syncs')
      .set({ lease_owner: owner, lease_until_ms: now + leaseMs, last_started_ms: now })
      .where('provider_id', 'in', (eb) => eb.selectFrom('due').select('due.provider_id'))
      .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', now)]))
      .returningAll()
      .executeTakeFirst();
  };

  const readAndStore = async (job: SyncRow): Promise<{ rows: number; periods: string[] }> => {
    const connection = await db
      .selectFrom('cost_providers')
      .selectAll()
      .where('id', '=', job.provider_id)
      .executeTakeFirstOrThrow();
    const kind = deps.kinds[connection.provider as ProviderName];
    let secrets: unknown;
    try {
      secrets = deps.box.open(connection.secrets);
    } catch {
      // The one cause in practice: the server now runs with another --secret-key than the one that sealed them.
      throw new Error(
        "the connection's credentials cannot be unsealed with this server's secret key (--secret-key changed?); create the connection again",
      );
    }
    const source = kind.source(JSON.parse(connection.config) as unknown, secrets, deps.env);
    const periods = periodsToSync(clock.now(), job.last_success_ms !== null);
    let rows = 0;
    for (const period of periods) {
      const aggregator = createAggregator();
      for await (const batch of source.read(period, abort.signal)) aggregator.add(batch);
      const aggregate = aggregator.result();
      rows += aggregate.lineItems;
      const rules = await loadRules(db, connection.project_id);
      await replacePeriod(db, {
        projectId: connection.project_id,
        providerId: connection.id,
        period,
        aggregate,
        rules,
        nowMs: clock.now(),
      });
    }
    return { rows, periods };
  };

  const run = async (job: SyncRow): Promise<void> => {
    // A long read keeps its lease, so another process does not start the same sync meanwhile.
    const heartbeat = setInterval(() => {
      void db
        .updateTable('cost_syncs')
        .set({ lease_until_ms: clock.now() + leaseMs })
        .where('provider_id', '=', job.provider_id)
        .where('lease_owner', '=', owner)
        .execute()
        .catch(() => undefined);
    }, leaseMs / 3);
    const started = job.last_started_ms ?? clock.now();
    try {
      const { rows, periods } = await readAndStore(job);
      const now = clock.now();
      await finish(job, {
        next_run_ms: started + SYNC_INTERVAL_MS,
        failures: 0,
        last_status: 'succeeded',
        last_rows: rows,
        last_periods: JSON.stringify(periods),
        last_error: null,
        last_success_ms: now,
      });
      deps.log(`cost sync ${job.provider_id}: ${rows} line items (${periods.join(', ')})`);
    } catch (error) {
      if (abort.signal.aborted) {
        // The server is stopping: not a failure of the connection; the next start runs the sync again.
        await finish(job, { next_run_ms: clock.now() });
        return;
      }
      const failures = job.failures + 1;
      const delay = RETRY_DELAYS_MS[failures - 1] ?? SYNC_INTERVAL_MS;
      await finish(job, {
        next_run_ms: clock.now() + delay,
        failures,
        last_status: 'failed',
        last_rows: null,
        last_periods: null,
        last_error: errorText(error),
      });
      deps.log(
        `cost sync ${job.provider_id} failed (attempt ${failures}, next in ${Math.round(delay / 60_000)} min): ${errorText(error)}`,
      );
    } finally {
      clearInterval(heartbeat);
    }
  };

  const finish = async (job: SyncRow, values: Partial<SyncRow>): Promise<void> => {
    await db
      .updateTable('cost_syncs')
      .set({ ...values, lease_owner: null, lease_until_ms: null, last_finished_ms: clock.now() })
      .where('provider_id', '=', job.provider_id)
      .where('lease_owner', '=', owner)
      .execute();
  };

  const tick = async (): Promise<number> => {
    let count = 0;
    // Stopped is checked before claiming: a job claimed and then left would stay leased until the lease runs out.
    while (!stopped) {
      const job = await claimOne();
      if (!job) break;
      await run(job);
      count += 1;
    }
    return count;
  };

  const runDue = (): Promise<number> => {
    // One pass at a time in a process: a wake during a pass runs another pass after it.
    const next = (ticking ?? Promise.resolve(0)).then(tick, tick);
    ticking = next;
    return next;
  };

  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      void runDue()
        .catch((error: unknown) => deps.log(`cost sync worker: ${errorText(error)}`))
        .finally(() => schedule(pollMs));
    }, delay);
  };
  schedule(0);

  return {
    wake: () => schedule(0),
    runDue,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      abort.abort();
      await ticking?.catch(() => undefined);
    },
  };
}

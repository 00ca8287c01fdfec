import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock';
import type { DialectName } from '../../db/connect';
import type { Database } from '../../db/schema';
import type { SecretBox } from '../../secrets/secret-box';
import type { ProviderKind, ProviderName, SourceEnv } from '../sources/types';
import type { SyncRow } from '../store/providers';
import { syncJobStore, type SyncJobStore } from '../store/sync-jobs';
import { errorText, failed, interrupted, succeeded } from './outcome';
import { startPassLoop } from './passes';
import { readConnection, type ReadDeps } from './read-connection';

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

interface RunContext {
  deps: ReadDeps & { log: (line: string) => void };
  jobs: SyncJobStore;
  leaseMs: number;
  signal: AbortSignal;
}

/** Runs one claimed job and records its outcome; a long read keeps its lease, so no other process starts it. */
async function runJob({ deps, jobs, leaseMs, signal }: RunContext, job: SyncRow): Promise<void> {
  const { clock } = deps;
  const id = job.provider_id;
  const heartbeat = setInterval(() => void jobs.renewLease(id, clock.now()).catch(() => undefined), leaseMs / 3);
  const started = job.last_started_ms ?? clock.now();
  try {
    const connection = await jobs.connection(id);
    const result = await readConnection(deps, connection, job.last_success_ms !== null, signal);
    await jobs.finish(id, succeeded(result, started, clock.now()), clock.now());
    deps.log(`cost sync ${id}: ${result.rows} line items (${result.periods.join(', ')})`);
  } catch (error) {
    if (signal.aborted) {
      await jobs.finish(id, interrupted(clock.now()), clock.now());
      return;
    }
    const failures = job.failures + 1;
    const { record, delayMs } = failed(failures, error, clock.now());
    await jobs.finish(id, record, clock.now());
    deps.log(
      `cost sync ${id} failed (attempt ${failures}, next in ${Math.round(delayMs / 60_000)} min): ${errorText(error)}`,
    );
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * The cost sync worker. Each connection has one job row (cost_syncs) with a due time; a process takes a due job with a
 * lease (one conditional UPDATE, `SKIP LOCKED` on PostgreSQL; store/sync-jobs.ts), renews the lease while it reads,
 * and records the run. A run reads whole billing periods and replaces each one in a single transaction, so a failure —
 * a denied role, a truncated file, a crash — leaves the data of the last good run in place; it is retried with
 * backoff (outcome.ts).
 */
export function startCostSync(deps: CostSyncDeps, options: CostSyncOptions = {}): CostSync {
  const leaseMs = options.leaseMs ?? 10 * 60_000;
  const jobs = syncJobStore(deps.db, deps.dialect, `s_${randomBytes(6).toString('hex')}`, leaseMs);
  const abort = new AbortController();
  const context: RunContext = { deps, jobs, leaseMs, signal: abort.signal };
  const passes = startPassLoop(
    async (stopped) => {
      let count = 0;
      // Stopped is checked before claiming: a job claimed and then left would stay leased until the lease runs out.
      while (!stopped()) {
        const job = await jobs.claimDue(deps.clock.now());
        if (!job) break;
        await runJob(context, job);
        count += 1;
      }
      return count;
    },
    options.pollMs ?? 60_000,
    (error) => deps.log(`cost sync worker: ${errorText(error)}`),
  );
  return {
    wake: passes.wake,
    runDue: passes.runDue,
    async stop() {
      const settled = passes.stop();
      // The server is stopping: a run under way ends as interrupted, due again at the next start.
      abort.abort();
      await settled;
    },
  };
}

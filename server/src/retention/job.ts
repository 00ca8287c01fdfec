import { sql, type Kysely } from 'kysely';
import { pruneAudit } from '../audit/store';
import type { Clock } from '../clock';
import { deleteMatching, deleteOlderThan, type AgedRows, type BatchOptions } from '../db/batched-delete';
import { ensurePartitions, isPostgres } from '../db/partitions';
import type { Database, TelemetryTable } from '../db/schema';
import { pruneIssueFacts } from '../issues/store';
import { deleteChunksReceivedBefore } from '../replay/chunk-deletion';
import { runPeriodically } from '../shared/periodic';
import { daysOf } from './effective';
import { dropExpiredPartitions, type Cutoffs } from './partition-drop';
import { retentionDefaults, type ProjectSignal, type RetentionDefaults } from './signals';
import { allProjectRetention } from './store';
import { pruneRollups } from '../vitals/rollup/store';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Rows deleted: by table, and by signal (`refusals` for the ingest refusal counts). */
export interface RetentionResult {
  deleted: Record<string, number>;
  bySignal: Record<string, Record<string, number>>;
}

type Deletions = Record<string, number>;
type Pruner = (db: Kysely<Database>, projectId: string, cutoffMs: number, options: BatchOptions) => Promise<Deletions>;

/**
 * Telemetry received before the cutoff, along the table's (project_id, received_ms) index. The key holds time_ms, the
 * partition key on PostgreSQL, so each row is deleted from its own partition without probing the others.
 */
const byReceipt =
  (table: TelemetryTable): Pruner =>
  async (db, projectId, cutoffMs, options) => {
    const rows: AgedRows = {
      table,
      key: ['id', 'time_ms'],
      time: 'received_ms',
      owner: { column: 'project_id', id: projectId },
    };
    return { [table]: await deleteOlderThan(db, rows, cutoffMs, options) };
  };

/** The telemetry table of each signal that has one: partitioned by day on PostgreSQL (db/partitions.ts). */
const TELEMETRY_OF: Partial<Record<ProjectSignal, TelemetryTable>> = {
  spans: 'spans',
  logs: 'logs',
  metrics: 'metric_points',
  replays: 'replay_chunks',
  recipes: 'recipes',
};

/** The signal whose retention governs each telemetry table. */
const SIGNAL_OF = Object.fromEntries(Object.entries(TELEMETRY_OF).map(([signal, table]) => [table, signal])) as Record<
  TelemetryTable,
  ProjectSignal
>;

/** The oldest receipt some project still keeps (a project that keeps forever: every receipt). */
const keptSince = (cutoffs: Cutoffs): number =>
  Math.min(Number.MAX_SAFE_INTEGER, ...[...cutoffs.values()].map((c) => c ?? Number.MIN_SAFE_INTEGER));

/** What each signal a project sets deletes. */
const PRUNERS: Record<ProjectSignal, Pruner> = {
  // A trace's summary goes with the last of its spans (and exception log records) received.
  spans: async (db, projectId, cutoffMs, options) => {
    const summaries: AgedRows = {
      table: 'trace_summaries',
      key: ['project_id', 'trace_key', 'trace_id'],
      time: 'last_received_ms',
      owner: { column: 'project_id', id: projectId },
    };
    return {
      ...(await byReceipt('spans')(db, projectId, cutoffMs, options)),
      trace_summaries: await deleteOlderThan(db, summaries, cutoffMs, options),
    };
  },
  logs: byReceipt('logs'),
  // With the Web Vitals rollups of the periods that ended before the cutoff (vitals/rollup/).
  metrics: async (db, projectId, cutoffMs, options) => ({
    ...(await byReceipt('metric_points')(db, projectId, cutoffMs, options)),
    ...(await pruneRollups(db, projectId, cutoffMs, options)),
  }),
  // With their objects when the payloads live in object storage (replay/chunk-deletion.ts).
  replays: async (db, projectId, cutoffMs, options) => ({
    replay_chunks: await deleteChunksReceivedBefore(db, projectId, cutoffMs, options),
  }),
  recipes: byReceipt('recipes'),
  // A session goes once nothing of it was received since the cutoff.
  sessions: async (db, projectId, cutoffMs, options) => {
    const rows: AgedRows = {
      table: 'sessions',
      key: ['project_id', 'session_id'],
      time: 'last_received_ms',
      owner: { column: 'project_id', id: projectId },
    };
    return {
      sessions: await deleteOlderThan(db, rows, cutoffMs, options),
      ...(await prunePages(db, projectId, cutoffMs, options)),
    };
  },
  issues: pruneIssueFacts,
};

/**
 * The page paths of the sessions just deleted (none was named since the cutoff, and the session is gone), then the
 * paths no session shows any more.
 */
async function prunePages(db: Kysely<Database>, projectId: string, cutoffMs: number, options: BatchOptions) {
  const pairs = sql`project_id = ${projectId} and received_ms < ${cutoffMs} and not exists (select 1 from sessions s where s.project_id = session_pages.project_id and s.session_id = session_pages.session_id)`;
  const paths = sql`project_id = ${projectId} and not exists (select 1 from session_pages sp where sp.project_id = page_paths.project_id and sp.path = page_paths.path)`;
  return {
    session_pages: await deleteMatching(
      db,
      { table: 'session_pages', key: ['project_id', 'path', 'session_id'] },
      pairs,
      options,
    ),
    page_paths: await deleteMatching(db, { table: 'page_paths', key: ['project_id', 'path'] }, paths, options),
  };
}

export interface RetentionOptions extends BatchOptions {
  /** Told one line per signal that deleted anything. */
  log?: (line: string) => void;
}

/**
 * Deletes what each project keeps no longer: per signal, the project's own days (project_retention) else the server's
 * default; 0 keeps forever. Telemetry ages from its receipt, not from the client's timestamps, so a browser with a wrong
 * clock cannot make fresh data expire (sessions: their last receipt; issue facts: the reporter's times, as kept). Then
 * the ingest refusal counts (SVC_RETENTION_DAYS) and the audit log (the `audit` default, every organisation). Every
 * table is deleted from in batches, yielding between them, so ingest goes on (db/batched-delete.ts).
 * On PostgreSQL the run first makes the telemetry partitions of the days ahead, and of the past days whose kept rows
 * lie in the default partition (the partition maintenance job, db/partitions.ts), and
 * each telemetry signal first drops the days no project keeps anything of (retention/partition-drop.ts); the batched
 * deletes then take what is left. `defaults` may be one number of days for every signal.
 */
export async function applyRetention(
  db: Kysely<Database>,
  clock: Clock,
  defaults: RetentionDefaults | number,
  options: RetentionOptions = {},
): Promise<RetentionResult> {
  const settings = typeof defaults === 'number' ? retentionDefaults(defaults) : defaults;
  const now = clock.now();
  const result: RetentionResult = { deleted: {}, bySignal: {} };
  const count = (signal: string, deletions: Deletions) => {
    const ofSignal = (result.bySignal[signal] ??= {});
    for (const [table, n] of Object.entries(deletions)) {
      result.deleted[table] = (result.deleted[table] ?? 0) + n;
      ofSignal[table] = (ofSignal[table] ?? 0) + n;
    }
  };
  const own = await allProjectRetention(db);
  const projects = await db.selectFrom('projects').select('id').orderBy('created_ms').execute();
  const partitioned = isPostgres(db);
  const cutoffsOf = (signal: ProjectSignal): Cutoffs =>
    new Map(
      projects.map(({ id }) => {
        const days = daysOf(settings, own.get(id) ?? {}, signal);
        return [id, days > 0 ? now - days * DAY_MS : null];
      }),
    );
  if (partitioned) await ensurePartitions(db, now, (table) => keptSince(cutoffsOf(SIGNAL_OF[table])));
  for (const [signal, prune] of Object.entries(PRUNERS) as [ProjectSignal, Pruner][]) {
    const table = TELEMETRY_OF[signal];
    if (partitioned && table && !options.signal?.aborted)
      count(signal, { [table]: await dropExpiredPartitions(db, table, cutoffsOf(signal)) });
    for (const { id } of projects) {
      const days = daysOf(settings, own.get(id) ?? {}, signal);
      if (days > 0 && !options.signal?.aborted) count(signal, await prune(db, id, now - days * DAY_MS, options));
    }
  }
  if (settings.days > 0) count('refusals', await pruneRefusals(db, now - settings.days * DAY_MS, options));
  const auditDays = settings.signals.audit;
  if (auditDays > 0) count('audit', { audit_log: await pruneAudit(db, now - auditDays * DAY_MS, options) });
  for (const [signal, tables] of Object.entries(result.bySignal)) {
    const total = Object.values(tables).reduce((a, b) => a + b, 0);
    const parts = Object.entries(tables).map(([table, n]) => `${table} ${n}`);
    if (total > 0) options.log?.(`retention: ${signal}: deleted ${total} rows (${parts.join(', ')})`);
  }
  return result;
}

/** Refusal counts go with the telemetry of their time: their examples name origins and user agents. */
async function pruneRefusals(db: Kysely<Database>, cutoffMs: number, options: BatchOptions): Promise<Deletions> {
  const rows: AgedRows = { table: 'ingest_refusals', key: ['project_id', 'hour_ms', 'reason'], time: 'hour_ms' };
  return { ingest_refusals: await deleteOlderThan(db, rows, cutoffMs - HOUR_MS, options) };
}

/**
 * Runs retention now and then every `intervalMs`, never two runs at once; errors are logged, never thrown. The stop
 * function ends the run under way between two batches and waits for it.
 */
export function scheduleRetention(
  db: Kysely<Database>,
  clock: Clock,
  defaults: RetentionDefaults,
  log: (line: string) => void,
  intervalMs = 3_600_000,
): () => Promise<void> {
  return runPeriodically(
    'retention',
    (signal) => applyRetention(db, clock, defaults, { log, signal }),
    log,
    intervalMs,
  );
}

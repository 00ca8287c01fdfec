import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { eraseSubjects, type Counts } from './erase';
import { countsText, renewLease, updateErasure, type ErasureLease, type ErasureRow } from './store';
import { mergeSubjects, resolveSubjects, type Subjects } from './subjects';
import { targetOf } from './target';
import { compact } from './vacuum';
import { forgetRollups } from '../vitals/rollup/store';

export interface ErasureDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  log: (line: string) => void;
}

/** The job table itself held the value until the deletions were done: it is compacted with the tables changed. */
const JOB_TABLE = 'erasures';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Works one claimed job to its end: resolves who it erases (kept in the row), deletes and scrubs (counts recorded after
 * each step), forgets the value, compacts what changed, and marks it done. A job claimed again after a crash picks up
 * where the row says: with its value, it resolves again (adding to what it kept) and deletes again, which finds only
 * what is left; without it, its deletions were done and only the compaction is repeated. Stops between batches when
 * `signal` aborts (the server is closing, or the lease was lost): the job stays running and is taken over.
 */
export async function runErasure(
  deps: ErasureDeps,
  row: ErasureRow,
  lease: Pick<ErasureLease, 'owner' | 'leaseMs'>,
  signal: AbortSignal,
): Promise<void> {
  const { db, clock, log } = deps;
  const update = (change: Parameters<typeof updateErasure>[3]) => updateErasure(db, row.id, lease.owner, change);
  const stop = new AbortController();
  signal.addEventListener('abort', () => stop.abort(), { once: true });
  const heartbeat = setInterval(() => {
    renewLease(db, row.id, { ...lease, nowMs: clock.now() }).then(
      (held) => held || stop.abort(),
      () => undefined,
    );
  }, lease.leaseMs / 3);
  heartbeat.unref();
  const name = `erasure ${row.id} (${row.target_kind} ${row.target_digest})`;
  try {
    let counts = JSON.parse(row.counts) as Counts;
    if (row.target_value !== null) {
      counts = await eraseTarget(deps, row, row.target_value, { update, signal: stop.signal });
      if (stop.signal.aborted) return;
      await update({ target_value: null, subjects: null, counts: JSON.stringify(counts) });
    }
    await compact(db, deps.dialect, [...Object.keys(counts).filter((t) => counts[t]! > 0), JOB_TABLE], stop.signal);
    await update({ status: 'done', finished_ms: clock.now() });
    log(`${name}: done, ${countsText(counts) || 'nothing found'}`);
  } catch (error) {
    if (stop.signal.aborted) return;
    log(`${name} failed: ${messageOf(error)}`);
    // A failed job keeps no value in clear: it is asked for again, by a new request.
    await update({
      status: 'failed',
      error: messageOf(error),
      target_value: null,
      subjects: null,
      finished_ms: clock.now(),
    });
    await compact(db, deps.dialect, [JOB_TABLE]).catch((e: unknown) =>
      log(`${name}: compaction failed: ${messageOf(e)}`),
    );
  } finally {
    clearInterval(heartbeat);
  }
}

/** Resolves and erases the job's target, keeping what it resolved and how far it got in the job's row. */
async function eraseTarget(
  deps: ErasureDeps,
  row: ErasureRow,
  value: string,
  run: { update: (change: Parameters<typeof updateErasure>[3]) => Promise<void>; signal: AbortSignal },
): Promise<Counts> {
  const target = targetOf(row.target_kind, row.target_key, value);
  const found = await resolveSubjects(deps.db, deps.dialect, row.project_id, target);
  const subjects = row.subjects === null ? found : mergeSubjects(JSON.parse(row.subjects) as Subjects, found);
  await run.update({ subjects: JSON.stringify(subjects) });
  const earlier = JSON.parse(row.counts) as Counts;
  const total = (counts: Counts) => {
    const sum: Counts = { ...earlier };
    for (const [table, n] of Object.entries(counts)) sum[table] = (sum[table] ?? 0) + n;
    return sum;
  };
  const counts = await eraseSubjects(
    {
      db: deps.db,
      dialect: deps.dialect,
      projectId: row.project_id,
      progress: (c) => run.update({ counts: JSON.stringify(total(c)) }),
      options: { signal: run.signal },
    },
    target,
    subjects,
  );
  return total({ ...counts, ...(await forgetRollups(deps.db, row.project_id, { signal: run.signal })) });
}

/**
 * Replicas on PostgreSQL (`bench/ingest.ts`, phase 4): the reference server on a throwaway PostgreSQL database, first
 * one replica, then two on the same database, fed the way OpenTelemetry Collectors behind a load balancer feed them:
 * batches of several browser sessions, different batches sharing sessions in different orders, spread round-robin.
 * Every answer must be 200, and every acknowledged span must be stored once, counted in the database.
 */
import pg from 'pg';
import { createTempDatabase, POSTGRES_ADMIN_URL, type TempDatabase } from '../test/support/databases';
import {
  bodySource,
  multiSessionTemplate,
  pickSessions,
  sessionPool,
  type Body,
  type BodyTemplate,
} from './ingest-bodies';
import { withChild, type LaunchChild } from './ingest-child';
import { closedLoop, fmt, type ClosedLoopOptions, type LoadResult } from './ingest-load';

const SESSIONS_PER_BATCH = 4;
const SPANS_PER_SESSION = 25;

/**
 * `count` Collector batches over a pool of as many sessions, each batch four of them in its own order: concurrent
 * batches then often share sessions in opposite orders, which deadlocks writers that lock session rows as they come.
 */
function collectorTemplates(count: number): BodyTemplate[] {
  const pool = sessionPool(count);
  return Array.from({ length: count }, (_, i) =>
    multiSessionTemplate(i + 1, pickSessions(10_000 + i, pool, SESSIONS_PER_BATCH), SPANS_PER_SESSION),
  );
}

/** A fresh PostgreSQL database, or undefined (with a notice) when the server cannot be reached. */
async function throwawayDatabase(): Promise<TempDatabase | undefined> {
  try {
    return await createTempDatabase('postgres');
  } catch (error) {
    console.log(
      `NOTICE: PostgreSQL not reachable at ${POSTGRES_ADMIN_URL} (${(error as Error).message}): phase 4 (replicas) skipped\n`,
    );
    return undefined;
  }
}

interface ReplicaRuns {
  one: LoadResult;
  two: LoadResult;
  writer: string;
}

/**
 * One replica under load, then two: the second starts on the database the first bootstrapped, so it prints no key and
 * is sent the first one's.
 */
async function runReplicas(
  launch: LaunchChild,
  databaseUrl: string,
  nextBody: () => Body,
  options: ClosedLoopOptions,
): Promise<ReplicaRuns> {
  const args = ['svc', databaseUrl];
  return withChild(launch, 'replica-1', args, async (first) => {
    if (!first.ingestKey) throw new Error('the first replica did not bootstrap the empty database');
    const one = await closedLoop([first], nextBody, options);
    const two = await withChild(launch, 'replica-2', args, (second) =>
      closedLoop([first, { ...second, ingestKey: first.ingestKey }], nextBody, options),
    );
    return { one, two, writer: first.writer };
  });
}

/** Spans stored, and spans the session summaries count: both must be the spans acknowledged. */
async function countStored(databaseUrl: string): Promise<{ spans: number; sessionSpans: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ spans: string; session_spans: string }>(
      'select (select count(*) from spans) as spans, (select coalesce(sum(span_count), 0) from sessions) as session_spans',
    );
    return { spans: Number(rows[0]!.spans), sessionSpans: Number(rows[0]!.session_spans) };
  } finally {
    await client.end();
  }
}

/** Runs the phase and prints its table; false when an answer was not 200 or a count disagrees. */
export async function measureReplicas(
  launch: LaunchChild,
  databases: Set<TempDatabase>,
  batches: number,
  options: ClosedLoopOptions,
): Promise<boolean> {
  const database = await throwawayDatabase();
  if (!database) return true;
  databases.add(database);
  try {
    const { one, two, writer } = await runReplicas(
      launch,
      database.url,
      bodySource(collectorTemplates(batches)),
      options,
    );
    const stored = await countStored(database.url);
    const acknowledged = one.acknowledgedSpans + two.acknowledgedSpans;

    console.log(
      `## Phase 4: replicas on PostgreSQL (${writer} writer), ${options.connections} connections round-robin, ` +
        `batches of ${SESSIONS_PER_BATCH} sessions × ${SPANS_PER_SESSION} spans\n`,
    );
    console.log('| replicas | requests/s | spans/s | p50 ms | p99 ms | server CPU | errors | of which 5xx |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const [n, r] of [[1, one] as const, [2, two] as const]) {
      const cells = [
        n,
        fmt(r.rps, 1),
        fmt(r.spansPerSecond),
        fmt(r.p50, 1),
        fmt(r.p99, 1),
        `${fmt(r.cpuPercent)} %`,
        r.errors,
        r.serverErrors,
      ];
      console.log(`| ${cells.join(' | ')} |`);
    }
    const allStored = stored.spans === acknowledged;
    const countersAgree = stored.sessionSpans === stored.spans;
    console.log(`\nTwo replicas / one: **${fmt(two.spansPerSecond / one.spansPerSecond, 2)}×** spans/s`);
    console.log(
      `Stored spans: ${fmt(stored.spans)} of ${fmt(acknowledged)} acknowledged ${allStored ? '(each stored once)' : '(MISMATCH)'}; ` +
        `session summaries count ${fmt(stored.sessionSpans)} ${countersAgree ? '(agree)' : '(MISMATCH)'}\n`,
    );
    return one.errors + two.errors === 0 && allStored && countersAgree;
  } finally {
    await database.drop();
    databases.delete(database);
  }
}

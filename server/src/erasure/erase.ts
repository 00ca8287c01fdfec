import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import { deleteMatching, type BatchOptions } from '../db/batched-delete';
import type { Database } from '../db/schema';
import { deleteChunks } from '../replay/chunk-deletion';
import { NO_ROOT } from '../traces/summary';
import { contains } from './match';
import { ATTRIBUTE_TABLES, IN_CHUNK, recordsOf, type Subjects } from './subjects';
import type { ErasureTarget } from './target';

/** Rows deleted or changed per table. */
export type Counts = Record<string, number>;

/**
 * Tables with a row per session (or per session and issue), by their primary key; `sessions` last of all. Telemetry's
 * key holds time_ms, PostgreSQL's partition key (db/partitions.ts): each row is found in its own day's partition.
 */
const BY_SESSION = [
  { table: 'spans', key: ['id', 'time_ms'] },
  { table: 'logs', key: ['id', 'time_ms'] },
  { table: 'metric_points', key: ['id', 'time_ms'] },
  { table: 'replay_chunks', key: ['id', 'time_ms'] },
  { table: 'recipes', key: ['id', 'time_ms'] },
  { table: 'session_pages', key: ['project_id', 'path', 'session_id'] },
  { table: 'issue_sessions', key: ['project_id', 'fingerprint', 'session_id'] },
  { table: 'detection_sessions', key: ['project_id', 'fingerprint', 'session_id'] },
  { table: 'issue_test_sessions', key: ['project_id', 'fingerprint', 'session_id'] },
  { table: 'sessions', key: ['project_id', 'session_id'] },
] as const;

/**
 * Text that is derived from the records and outlives them (an issue's messages and last event, an incident's title and
 * evidence with its sessions' replay links, a notification's fixed message, an analysis' answer): the person's
 * identifiers in it are replaced by {@link ERASED}, the rest kept.
 */
const DERIVED_TEXT = [
  { table: 'detection_groups', columns: ['message', 'sample_message', 'last_event'] },
  { table: 'incidents', columns: ['title', 'root_cause_summary', 'evidence'] },
  { table: 'deliveries', columns: ['notice'] },
  { table: 'issue_analyses', columns: ['result'] },
] as const;
export const ERASED = '[erased]';
/**
 * Shorter identifiers are not scrubbed from derived text: a user id `42` names no one in an incident's title, and
 * replacing it would rewrite every number 42 of the project. Their rows are deleted all the same.
 */
export const MIN_SCRUBBED_CHARS = 6;

export interface EraseContext {
  db: Kysely<Database>;
  dialect: DialectName;
  projectId: string;
  /** Told the counts after each step, so a job's progress shows and survives a crash. */
  progress(counts: Counts): Promise<void>;
  options: BatchOptions;
}

const add = (counts: Counts, table: string, n: number) => {
  if (n > 0) counts[table] = (counts[table] ?? 0) + n;
};

/**
 * Each form an identifier is stored in: as sent, inside JSON text (escaped), inside a URL (a replay link's session id).
 */
function forms(identifier: string): string[] {
  return [...new Set([identifier, JSON.stringify(identifier).slice(1, -1), encodeURIComponent(identifier)])];
}

/**
 * Deletes everything of `subjects` in one project, in batches: records naming the target (with no session, or in a
 * session of its own), every row of its sessions (telemetry, replays, recipes, issue and incident session links, the
 * session rows last, so a job cut short still finds them), the issue breakdown's values of its users; then scrubs its
 * identifiers from derived text and drops the stored inputs of analyses that mention them. Returns counts per table.
 */
export async function eraseSubjects(ctx: EraseContext, target: ErasureTarget, subjects: Subjects): Promise<Counts> {
  const { db, projectId, options } = ctx;
  const counts: Counts = {};
  const inProject = sql`project_id = ${projectId}`;
  const matching = recordsOf(ctx.dialect, target);
  const traces = await tracesOf(db, projectId, matching, subjects.sessions);
  for (const table of ATTRIBUTE_TABLES)
    add(counts, table, await deleteMatching(db, { table, key: ['id'] }, sql`${inProject} and ${matching}`, options));
  await ctx.progress(counts);
  for (const rows of BY_SESSION) {
    for (let i = 0; i < subjects.sessions.length; i += IN_CHUNK) {
      const ids = subjects.sessions.slice(i, i + IN_CHUNK);
      const where = sql`${inProject} and session_id in (${sql.join(ids)})`;
      // Replay chunks go with their objects when the payloads live in object storage (replay/chunk-deletion.ts).
      const deleted =
        rows.table === 'replay_chunks'
          ? await deleteChunks(db, where, options)
          : await deleteMatching(db, rows, where, options);
      add(counts, rows.table, deleted);
    }
    await ctx.progress(counts);
  }
  // A trace summary keeps its root span's name and attributes: it goes once none of the trace's spans is left. (One
  // whose other spans remain keeps its figures and root as they were.)
  const noSpanLeft = sql`${inProject} and span_count > 0 and not exists (select 1 from spans s where s.project_id = trace_summaries.project_id and s.trace_key = trace_summaries.trace_key and s.trace_id = trace_summaries.trace_id)`;
  const summaries = { table: 'trace_summaries', key: ['project_id', 'trace_key', 'trace_id'] };
  add(counts, 'trace_summaries', await deleteMatching(db, summaries, noSpanLeft, options));
  add(counts, 'trace_summaries', await forgetInSummaries(db, projectId, traces, subjects.sessions));
  // So does a page path (it may name the person) that no session shows any more.
  const noSessionLeft = sql`${inProject} and not exists (select 1 from session_pages sp where sp.project_id = page_paths.project_id and sp.path = page_paths.path)`;
  const paths = { table: 'page_paths', key: ['project_id', 'path'] };
  add(counts, 'page_paths', await deleteMatching(db, paths, noSessionLeft, options));
  if (subjects.users.length > 0) {
    const where = sql`${inProject} and facet = 'user' and value in (${sql.join(subjects.users)})`;
    const key = ['project_id', 'fingerprint', 'facet', 'value'];
    add(counts, 'issue_facets', await deleteMatching(db, { table: 'issue_facets', key }, where, options));
  }
  const identifying = subjects.identifiers.filter((id) => id.length >= MIN_SCRUBBED_CHARS);
  await scrubDerived(ctx, identifying.flatMap(forms), counts);
  await ctx.progress(counts);
  return counts;
}

type TraceRef = { trace_key: number; trace_id: string };

/** The traces of the spans about to go (naming the target, or in its sessions), read before they go. */
async function tracesOf(
  db: Kysely<Database>,
  projectId: string,
  naming: RawBuilder<unknown>,
  sessions: string[],
): Promise<TraceRef[]> {
  const spans = db.selectFrom('spans').select(['trace_key', 'trace_id']).distinct().where('project_id', '=', projectId);
  const traces = new Map<string, TraceRef>();
  const keep = (rows: TraceRef[]) => rows.forEach((row) => traces.set(row.trace_id, row));
  keep(await spans.where(sql<SqlBool>`${naming}`).execute());
  for (let i = 0; i < sessions.length; i += IN_CHUNK)
    keep(await spans.where('session_id', 'in', sessions.slice(i, i + IN_CHUNK)).execute());
  return [...traces.values()];
}

/**
 * A trace with spans left outside the erased sessions (a backend's spans) keeps its summary, less what named the
 * person: the erased session, and the root span (its name and attributes) once that span is gone. The figures stay
 * as they were. Returns the summaries changed.
 */
async function forgetInSummaries(
  db: Kysely<Database>,
  projectId: string,
  traces: TraceRef[],
  sessions: string[],
): Promise<number> {
  let changed = 0;
  for (let i = 0; i < traces.length; i += IN_CHUNK) {
    const chunk = traces.slice(i, i + IN_CHUNK);
    const ofChunk = db
      .updateTable('trace_summaries')
      .where('project_id', '=', projectId)
      .where('trace_key', 'in', [...new Set(chunk.map((t) => t.trace_key))])
      .where(
        'trace_id',
        'in',
        chunk.map((t) => t.trace_id),
      );
    const roots = await ofChunk
      .set(NO_ROOT)
      .where('root_span_id', 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('spans as s')
              .select('s.id')
              .whereRef('s.project_id', '=', 'trace_summaries.project_id')
              .whereRef('s.trace_key', '=', 'trace_summaries.trace_key')
              .whereRef('s.span_id', '=', 'trace_summaries.root_span_id'),
          ),
        ),
      )
      .executeTakeFirst();
    changed += Number(roots.numUpdatedRows);
    for (let j = 0; j < sessions.length; j += IN_CHUNK) {
      const ofSessions = await ofChunk
        .set({ session_id: null })
        .where('session_id', 'in', sessions.slice(j, j + IN_CHUNK))
        .executeTakeFirst();
      changed += Number(ofSessions.numUpdatedRows);
    }
  }
  return changed;
}

/** Replaces each identifier in the derived text of the project, and empties analyses' inputs that mention any. */
async function scrubDerived(ctx: EraseContext, identifiers: string[], counts: Counts): Promise<void> {
  const { db, dialect, projectId } = ctx;
  const mentions = (texts: string[]): RawBuilder<unknown> =>
    sql`(${sql.join(
      texts.map((text) => contains(dialect, 'sent', text)),
      sql` or `,
    )})`;
  // What an analysis sent the model is a copy of the session's evidence: kept whole or not at all.
  for (let i = 0; i < identifiers.length; i += IN_CHUNK) {
    const sent = await sql`update issue_analyses set sent = null
      where project_id = ${projectId} and sent is not null and ${mentions(identifiers.slice(i, i + IN_CHUNK))}`.execute(
      db,
    );
    add(counts, 'issue_analyses', Number(sent.numAffectedRows ?? 0));
  }
  for (const { table, columns } of DERIVED_TEXT) {
    for (const column of columns) {
      for (const text of identifiers) {
        const result =
          await sql`update ${sql.table(table)} set ${sql.ref(column)} = replace(${sql.ref(column)}, ${text}, ${ERASED})
          where project_id = ${projectId} and ${contains(dialect, column, text)}`.execute(db);
        add(counts, table, Number(result.numAffectedRows ?? 0));
      }
    }
  }
}

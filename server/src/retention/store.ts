import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { PROJECT_SIGNALS, type ProjectSignal } from './signals';
import { retentionDb } from './tables';

/** A project's own settings: days per signal it set (0 = forever); the others follow the server. */
export type ProjectRetention = Partial<Record<ProjectSignal, number>>;

/** A change: days to set, or null to go back to the server's default. */
export type RetentionChange = Partial<Record<ProjectSignal, number | null>>;

const isSignal = (s: string): s is ProjectSignal => (PROJECT_SIGNALS as readonly string[]).includes(s);

/** Every project's own settings, by project id (projects that set none are absent). */
export async function allProjectRetention(db: Kysely<Database>): Promise<Map<string, ProjectRetention>> {
  const rows = await retentionDb(db).selectFrom('project_retention').select(['project_id', 'signal', 'days']).execute();
  const byProject = new Map<string, ProjectRetention>();
  for (const row of rows) {
    if (!isSignal(row.signal)) continue;
    const settings = byProject.get(row.project_id) ?? {};
    settings[row.signal] = Number(row.days);
    byProject.set(row.project_id, settings);
  }
  return byProject;
}

/** One project's own settings. */
export async function projectRetention(db: Kysely<Database>, projectId: string): Promise<ProjectRetention> {
  const rows = await retentionDb(db)
    .selectFrom('project_retention')
    .select(['signal', 'days'])
    .where('project_id', '=', projectId)
    .execute();
  return Object.fromEntries(rows.filter((r) => isSignal(r.signal)).map((r) => [r.signal, Number(r.days)]));
}

/** Applies a change to a project's settings (the signals it names; null removes the project's own value). */
export async function changeProjectRetention(
  db: Kysely<Database>,
  clock: Clock,
  projectId: string,
  change: RetentionChange,
  by: string,
): Promise<void> {
  const rdb = retentionDb(db);
  for (const [signal, days] of Object.entries(change)) {
    if (days === undefined) continue;
    if (days === null) {
      await rdb
        .deleteFrom('project_retention')
        .where('project_id', '=', projectId)
        .where('signal', '=', signal)
        .execute();
      continue;
    }
    const row = { project_id: projectId, signal, days, updated_ms: clock.now(), updated_by: by };
    await rdb
      .insertInto('project_retention')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['project_id', 'signal']).doUpdateSet({ days, updated_ms: row.updated_ms, updated_by: by }),
      )
      .execute();
  }
}

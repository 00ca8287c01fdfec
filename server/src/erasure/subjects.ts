import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { anyOf, attributeIs, attributeText } from './match';
import { USER_ID_ATTRIBUTES, type ErasureTarget } from './target';

/**
 * Who a job erases, resolved once and kept in the job's row until its deletions are done, so a job resumed after a
 * crash deletes the same sessions even though their rows are already gone.
 */
export interface Subjects {
  /** Sessions deleted whole: their replays and recipes show the person. */
  sessions: string[];
  /** User ids of those sessions (for a user or attribute target): the issue breakdown's `user` values. */
  users: string[];
  /** Text scrubbed from what is derived from the records (incidents, issues, analyses): ids, e-mails, session ids. */
  identifiers: string[];
}

/** The session columns an attribute is kept in as well as in the records. */
const SESSION_COLUMN: Record<string, 'user_id' | 'user_email'> = {
  'user.id': 'user_id',
  'enduser.id': 'user_id',
  'user.email': 'user_email',
};
/** Telemetry tables whose records carry attributes (on themselves and on their resource). */
export const ATTRIBUTE_TABLES = ['spans', 'logs', 'metric_points'] as const;

/** The attribute key and value pairs a target matches records by; none for a session. */
export function attributePairs(target: ErasureTarget): Array<[string, string]> {
  if (target.kind === 'user_id') return USER_ID_ATTRIBUTES.map((key) => [key, target.value]);
  if (target.kind === 'attribute') return [[target.key, target.value]];
  return [];
}

/** Records (of one telemetry table) whose attributes or resource name the target. */
export function recordsOf(dialect: DialectName, target: ErasureTarget): RawBuilder<unknown> {
  return anyOf(
    attributePairs(target).flatMap(([key, value]) => [
      attributeIs(dialect, 'attributes', key, value),
      attributeIs(dialect, 'resource', key, value),
    ]),
  );
}

const unique = (values: Iterable<string | null | undefined>) =>
  [...new Set([...values].filter((v): v is string => typeof v === 'string' && v !== ''))].sort();

/**
 * The sessions and identifiers of a target in one project: for a session, itself; for a user id or an attribute, the
 * sessions whose rows name it (`sessions.user_id`, `user_email`) and those of every record whose attributes name it,
 * with the e-mails and user ids those sessions and records carry.
 */
export async function resolveSubjects(
  db: Kysely<Database>,
  dialect: DialectName,
  projectId: string,
  target: ErasureTarget,
): Promise<Subjects> {
  if (target.kind === 'session_id') return { sessions: [target.value], users: [], identifiers: [target.value] };
  const sessions = new Set<string>();
  const users = new Set<string>(target.kind === 'user_id' ? [target.value] : []);
  const emails = new Set<string>();
  const sessionColumns = unique(attributePairs(target).map(([key]) => SESSION_COLUMN[key]));
  for (const column of sessionColumns) {
    const rows = await db
      .selectFrom('sessions')
      .select(['session_id', 'user_id', 'user_email'])
      .where('project_id', '=', projectId)
      .where(column as 'user_id' | 'user_email', '=', target.value)
      .execute();
    for (const r of rows) sessions.add(r.session_id);
  }
  const matching = recordsOf(dialect, target);
  for (const table of ATTRIBUTE_TABLES) {
    const rows = await sql<{ session_id: string | null; email: string | null; user_id: string | null }>`
      select distinct session_id, ${attributeText(dialect, 'attributes', 'user.email')} as email,
        ${attributeText(dialect, 'attributes', 'user.id')} as user_id
      from ${sql.table(table)} where project_id = ${projectId} and ${matching}`.execute(db);
    for (const r of rows.rows) {
      if (r.session_id) sessions.add(r.session_id);
      if (r.email) emails.add(r.email);
      if (r.user_id) users.add(r.user_id);
    }
  }
  const ids = [...sessions];
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const rows = await db
      .selectFrom('sessions')
      .select(['user_id', 'user_email'])
      .where('project_id', '=', projectId)
      .where('session_id', 'in', ids.slice(i, i + IN_CHUNK))
      .execute();
    for (const r of rows) {
      if (r.user_id) users.add(r.user_id);
      if (r.user_email) emails.add(r.user_email);
    }
  }
  return {
    sessions: unique(sessions),
    users: unique(users),
    identifiers: unique([target.value, ...users, ...emails, ...sessions]),
  };
}

/** Ids per `in (…)` list: well below every engine's limit on bound parameters. */
export const IN_CHUNK = 500;

/** Two resolutions together (a resumed job's kept one and a fresh one). */
export function mergeSubjects(a: Subjects, b: Subjects): Subjects {
  return {
    sessions: unique([...a.sessions, ...b.sessions]),
    users: unique([...a.users, ...b.users]),
    identifiers: unique([...a.identifiers, ...b.identifiers]),
  };
}

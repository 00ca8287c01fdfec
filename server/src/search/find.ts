import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { traceKey } from '../db/trace-key';
import { issueHeadline } from '../issues/store';
import { iso } from '../shared/time';
import { traceLabel } from '../traces/label';

export const SEARCH_KINDS = ['session', 'trace', 'issue', 'incident', 'user'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchMatch {
  kind: SearchKind;
  /** What to open: the object's id (for `user`, the user id, whose sessions the console lists). */
  id: string;
  /** A line a person recognises the object by. */
  title: string;
  /** When it was last active: a session's last record, a trace's start, an issue's last error, an incident's last update. */
  at: string | null;
}

/** Sessions counted for a user at most: the answer says "1000+" past it. */
export const MAX_USER_SESSIONS = 1000;

const TRACE_ID = /^[0-9a-f]{32}$/i;
const ISSUE_ID = /^[0-9a-f]{16}$/i;

async function session(db: Kysely<Database>, projectId: string, q: string): Promise<SearchMatch[]> {
  const row = await db
    .selectFrom('sessions')
    .select(['session_id', 'last_ms', 'user_id', 'entry_url'])
    .where('project_id', '=', projectId)
    .where('session_id', '=', q)
    .executeTakeFirst();
  if (!row) return [];
  const who = row.user_id === null ? 'anonymous' : `user ${row.user_id}`;
  return [
    {
      kind: 'session',
      id: row.session_id,
      title: `Session of ${who}${row.entry_url ? `, from ${row.entry_url}` : ''}`,
      at: iso(row.last_ms),
    },
  ];
}

async function trace(db: Kysely<Database>, projectId: string, q: string): Promise<SearchMatch[]> {
  if (!TRACE_ID.test(q)) return [];
  const id = q.toLowerCase();
  const first = await db
    .selectFrom('spans')
    .select(['trace_id', 'name', 'attributes', 'time_ms'])
    .where('project_id', '=', projectId)
    .where('trace_key', '=', traceKey(id))
    .where('trace_id', '=', id)
    .orderBy('time_ms')
    .limit(1)
    .executeTakeFirst();
  return first
    ? [
        {
          kind: 'trace',
          id,
          title: `Trace: ${traceLabel(first.name, JSON.parse(first.attributes))}`,
          at: iso(first.time_ms),
        },
      ]
    : [];
}

async function issue(db: Kysely<Database>, projectId: string, q: string): Promise<SearchMatch[]> {
  if (!ISSUE_ID.test(q)) return [];
  const row = await issueHeadline(db, projectId, q.toLowerCase());
  return row
    ? [
        {
          kind: 'issue',
          id: row.fingerprint,
          title: `Issue: ${row.error_type}: ${row.sample_message}`,
          at: iso(row.last_seen_ms),
        },
      ]
    : [];
}

async function incident(db: Kysely<Database>, projectId: string, q: string): Promise<SearchMatch[]> {
  const row = await db
    .selectFrom('incidents')
    .select(['id', 'title', 'updated_ms'])
    .where('project_id', '=', projectId)
    .where('id', '=', q)
    .executeTakeFirst();
  return row ? [{ kind: 'incident', id: row.id, title: `Incident: ${row.title}`, at: iso(row.updated_ms) }] : [];
}

/** A user by id: their sessions are read newest first from the (project, user, last activity) index, and counted up to a cap. */
async function user(db: Kysely<Database>, projectId: string, q: string): Promise<SearchMatch[]> {
  const rows = await db
    .selectFrom('sessions')
    .select('last_ms')
    .where('project_id', '=', projectId)
    .where('user_id', '=', q)
    .orderBy('last_ms', 'desc')
    .limit(MAX_USER_SESSIONS + 1)
    .execute();
  if (rows.length === 0) return [];
  const count =
    rows.length > MAX_USER_SESSIONS
      ? `${MAX_USER_SESSIONS}+ sessions`
      : rows.length === 1
        ? '1 session'
        : `${rows.length} sessions`;
  return [{ kind: 'user', id: q, title: `User ${q}: ${count}`, at: iso(rows[0]!.last_ms) }];
}

/**
 * Everything of a project whose id is `q`, exactly: a session, a trace, an issue, an incident, or a user's sessions.
 * Each lookup is one primary-key or index probe; an id can match several kinds (a user named like a session).
 */
export async function searchIds(db: Kysely<Database>, projectId: string, q: string): Promise<SearchMatch[]> {
  const found: SearchMatch[] = [];
  for (const find of [session, trace, issue, incident, user]) found.push(...(await find(db, projectId, q)));
  return found;
}

import { sql, type SqlBool } from 'kysely';
import { ERROR_SEVERITY } from '../../incidents/detect/error-records';
import { findIssueRow } from '../../issues/store';
import { TEST_ENV } from '../../otlp/environment';
import type { AlertQuery } from '../rule';
import { anyOf, recordFilters, scopeConditions, type SignalContext, type Window } from './context';
import { anyIn, countIn } from './measure';

const HOUR_MS = 3_600_000;

/** The signal errors come from: while either sends anything, no new issue and no error is a value, 0. */
async function errorsCouldArrive(ctx: SignalContext, w: Window): Promise<boolean> {
  const where = scopeConditions(ctx);
  return (await anyIn(ctx, { table: 'logs', where }, w)) || anyIn(ctx, { table: 'spans', where }, w);
}

/** Issues first seen in the window (the index by project and first seen); `release` is the issue's first release. */
async function newIssues(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number> {
  const { filter } = query;
  // Production issues: an issue seen only in test runs has no production error (total_count counts production only).
  const where = [...scopeConditions(ctx), sql<SqlBool>`r.total_count > 0`];
  where.push(filter?.env !== undefined ? anyOf(sql.ref('r.env'), filter.env) : sql<SqlBool>`r.env <> ${TEST_ENV}`);
  if (filter?.release !== undefined) where.push(anyOf(sql.ref('r.first_release'), filter.release));
  return countIn(ctx, { table: 'detection_groups', where, time: 'r.first_seen_ms' }, w);
}

/** Error records in the window, by the rule issues and sessions count errors by (severity ERROR and up, or an exception). */
function errorRecords(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number> {
  const where = [
    ...scopeConditions(ctx),
    ...recordFilters(ctx, query.filter),
    sql<SqlBool>`(r.severity_number >= ${ERROR_SEVERITY} or r.attributes like ${'%"exception.type":%'})`,
  ];
  return countIn(ctx, { table: 'logs', where }, w);
}

/**
 * Errors of one issue in the window, from its hourly counts (the records do not keep their issue): each hour that
 * overlaps the window adds its count times the share of the hour inside the window, the issue's latest hour counting
 * as ending at its last error. An estimate spread evenly over each hour, exact for windows of whole hours.
 */
async function issueEvents(ctx: SignalContext, issueId: string, w: Window): Promise<number> {
  // An id merged into another issue answers as that one, as the issue pages do.
  const group = await findIssueRow(ctx.db, ctx.projectId, issueId);
  if (!group) return 0;
  const { fingerprint } = group;
  const hours = await ctx.db
    .selectFrom('issue_hours')
    .select(['hour_ms', 'count'])
    .where('project_id', '=', ctx.projectId)
    .where('fingerprint', '=', fingerprint)
    .where('hour_ms', '>', w.fromMs - HOUR_MS)
    .where('hour_ms', '<', w.toMs)
    .execute();
  const lastSeen = Number(group.last_seen_ms);
  let events = 0;
  for (const h of hours) {
    const start = Number(h.hour_ms);
    const end = Math.max(start + 1, Math.min(start + HOUR_MS, lastSeen + 1));
    const inside = Math.min(end, w.toMs) - Math.max(start, w.fromMs);
    if (inside > 0) events += (Number(h.count) * inside) / (end - start);
  }
  return events;
}

/**
 * Issues: new issues (first seen in the window), or error events, of one issue when `issue_id` is given, else every
 * error record. No data only when neither logs nor spans arrived in the window.
 */
export async function issuesValue(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number | null> {
  const issueId = query.filter?.issue_id;
  const value =
    query.aggregate === 'new_issues'
      ? await newIssues(ctx, query, w)
      : issueId !== undefined
        ? await issueEvents(ctx, issueId, w)
        : await errorRecords(ctx, query, w);
  return value > 0 || (await errorsCouldArrive(ctx, w)) ? value : null;
}

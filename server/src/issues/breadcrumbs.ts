import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { iso } from '../shared/time';
import { replayBreadcrumbs } from './breadcrumbs-replay';
import { telemetryBreadcrumbs } from './breadcrumbs-telemetry';

/** What led up to an error, as the issue detail lists it. */
export interface Breadcrumb {
  at: string;
  kind: BreadcrumbKind;
  /** Short and human: `click on <button id="buy"> "Buy"`, `navigated to /checkout`, `POST /api/cart → 500 (120 ms)`. */
  message: string;
  data?: Record<string, unknown>;
}

export type BreadcrumbKind = 'click' | 'navigation' | 'console' | 'request' | 'log' | 'error';

/** A breadcrumb before its time is written out: what the sources produce and the merge sorts. */
export interface TimedBreadcrumb extends Omit<Breadcrumb, 'at'> {
  atMs: number;
}

/** The stretch of the session looked at, epoch ms, both ends included. */
export interface TimeWindow {
  fromMs: number;
  toMs: number;
}

/** How far back breadcrumbs go by default: the 30 s before the event. */
export const BREADCRUMB_WINDOW_MS = 30_000;
/** Most breadcrumbs returned: the newest ones are kept, like an SDK's breadcrumb buffer. */
export const MAX_BREADCRUMBS = 100;

/**
 * The breadcrumbs of a session in the `windowMs` before `atMs` (both ends included), oldest first, at most
 * {@link MAX_BREADCRUMBS}: clicks, page loads and URL changes from its replay timeline, console output, other logs
 * and errors from its logs, and fetch/XHR requests from its spans. None for an event without a session.
 */
export async function breadcrumbsBefore(
  db: Kysely<Database>,
  q: { projectId: string; sessionId: string | null; atMs: number; windowMs?: number },
): Promise<Breadcrumb[]> {
  if (q.sessionId === null) return [];
  const window = { fromMs: q.atMs - (q.windowMs ?? BREADCRUMB_WINDOW_MS), toMs: q.atMs };
  const source = { projectId: q.projectId, sessionId: q.sessionId, window, max: MAX_BREADCRUMBS };
  const replay = await replayBreadcrumbs(db, source);
  const telemetry = await telemetryBreadcrumbs(db, { ...source, pageUrl: replay.pageUrl });
  return newestInOrder([...replay.crumbs, ...telemetry], MAX_BREADCRUMBS).map(({ atMs, ...rest }) => ({
    at: iso(atMs),
    ...rest,
  }));
}

/** The `max` newest crumbs, oldest first; crumbs of the same millisecond keep the order their sources gave them. */
function newestInOrder(crumbs: TimedBreadcrumb[], max: number): TimedBreadcrumb[] {
  return crumbs.sort((a, b) => a.atMs - b.atMs).slice(-max);
}

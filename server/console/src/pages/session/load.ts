import { parseResponse, type ClientRequestOptions } from 'hono/client';
import type { Page } from '../../api/client';
import { recordsClient, sessionsClient } from '../../api/typed';
import type { SpanJson } from '../../ui/waterfall';
import type { LogRow, MetricRow, RecipeRow, ReplayEvent, ReplayGap, SessionDetail } from './types';

/** A list stops growing here: the page stays responsive on a session that logged without end. */
export const MAX_ROWS = 5000;

export interface Rows<T> {
  rows: T[];
  /** More existed than MAX_ROWS. */
  capped: boolean;
}

/** The page of a listing after `cursor` (undefined: the first). */
type PageAfter<T> = (cursor: string | undefined) => Promise<Page<T>>;

/** Every page of a keyset listing, following `next_cursor`, up to MAX_ROWS. */
async function allRows<T>(pageAfter: PageAfter<T>): Promise<Rows<T>> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await pageAfter(cursor ?? undefined);
    rows.push(...page.data);
    cursor = page.next_cursor;
    if (rows.length >= MAX_ROWS)
      return { rows: rows.slice(0, MAX_ROWS), capped: cursor !== null || rows.length > MAX_ROWS };
  } while (cursor !== null);
  return { rows, capped: false };
}

/** Newest-first listings, turned oldest first for the timeline. */
async function sessionRecords<T>(pageAfter: PageAfter<T>): Promise<Rows<T>> {
  const listed = await allRows(pageAfter);
  return { rows: listed.rows.reverse(), capped: listed.capped };
}

/** A session's records of one signal, a page of 1000 at a time. */
const recordsQuery = (sessionId: string, cursor: string | undefined) => ({
  query: { session_id: sessionId, limit: '1000', cursor },
});

export interface SessionData {
  detail: SessionDetail;
  events: ReplayEvent[];
  gaps: ReplayGap[];
  logs: Rows<LogRow>;
  recipes: Rows<RecipeRow>;
  spans: Rows<SpanJson>;
  vitals: MetricRow[];
}

/** The client's request for one session (its own query, if any, is added by the caller). */
export const sessionParam = (id: string) => ({ param: { id: encodeURIComponent(id) }, query: {} });

/** The session's replay events in playback order, and the chunks that never arrived (the latest page's word). */
async function replayOf(id: string, options: ClientRequestOptions) {
  const events: ReplayEvent[] = [];
  let gaps: ReplayGap[] = [];
  let cursor: string | null = null;
  do {
    const replay = sessionsClient[':id'].replay.$get(
      { ...sessionParam(id), query: { limit: '200', cursor: cursor ?? undefined } },
      options,
    );
    const page = await parseResponse(replay);
    // Stored rrweb events as the recording's page produced them; the page reads their `data` defensively.
    const recorded: unknown[] = page.events;
    events.push(...(recorded as ReplayEvent[]));
    gaps = page.gaps;
    cursor = page.next_cursor;
  } while (cursor !== null);
  return { events, gaps };
}

/** Everything the page shows about one session, fetched in parallel. */
export async function loadSession(id: string, signal: AbortSignal): Promise<SessionData> {
  const options = { init: { signal } };
  // The schemas type a record's `attributes` as any JSON; the server always sends an object (LogRow, MetricRow).
  const [detail, replay, logs, recipes, spans, metrics] = await Promise.all([
    parseResponse(sessionsClient[':id'].$get(sessionParam(id), options)),
    replayOf(id, options),
    sessionRecords(
      (cursor) => parseResponse(recordsClient.logs.$get(recordsQuery(id, cursor), options)) as Promise<Page<LogRow>>,
    ),
    allRows((cursor) =>
      parseResponse(
        sessionsClient[':id'].recipes.$get({ ...sessionParam(id), query: { limit: '1000', cursor } }, options),
      ),
    ),
    sessionRecords((cursor) => parseResponse(recordsClient.spans.$get(recordsQuery(id, cursor), options))),
    sessionRecords(
      (cursor) =>
        parseResponse(recordsClient.metrics.$get(recordsQuery(id, cursor), options)) as Promise<Page<MetricRow>>,
    ),
  ]);
  const vitals = metrics.rows.filter((m) => m.name.startsWith('web_vital_'));
  return { detail, ...replay, logs, recipes, spans, vitals };
}

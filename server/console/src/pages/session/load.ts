import { api, type Page } from '../../api/client';
import type { SpanJson } from '../../ui/waterfall';
import type { LogRow, MetricRow, RecipeRow, ReplayEvent, ReplayGap, ReplayPage, SessionDetail } from './types';

/** A list stops growing here: the page stays responsive on a session that logged without end. */
export const MAX_ROWS = 5000;

export interface Rows<T> {
  rows: T[];
  /** More existed than MAX_ROWS. */
  capped: boolean;
}

/** Every page of a keyset listing, following `next_cursor`, up to MAX_ROWS. */
async function allRows<T>(path: string, query: Record<string, string | number>, signal: AbortSignal): Promise<Rows<T>> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await api.get<Page<T>>(path, { ...query, cursor: cursor ?? undefined }, signal);
    rows.push(...page.data);
    cursor = page.next_cursor;
    if (rows.length >= MAX_ROWS)
      return { rows: rows.slice(0, MAX_ROWS), capped: cursor !== null || rows.length > MAX_ROWS };
  } while (cursor !== null);
  return { rows, capped: false };
}

/** Newest-first listings, turned oldest first for the timeline. */
async function sessionRecords<T>(path: string, sessionId: string, signal: AbortSignal): Promise<Rows<T>> {
  const listed = await allRows<T>(path, { session_id: sessionId, limit: 1000 }, signal);
  return { rows: listed.rows.reverse(), capped: listed.capped };
}

export interface SessionData {
  detail: SessionDetail;
  events: ReplayEvent[];
  gaps: ReplayGap[];
  logs: Rows<LogRow>;
  recipes: Rows<RecipeRow>;
  spans: Rows<SpanJson>;
  vitals: MetricRow[];
}

export const sessionPath = (id: string) => `/sessions/${encodeURIComponent(id)}`;

/** The session's replay events in playback order, and the chunks that never arrived (the latest page's word). */
async function replayOf(id: string, signal: AbortSignal): Promise<{ events: ReplayEvent[]; gaps: ReplayGap[] }> {
  const events: ReplayEvent[] = [];
  let gaps: ReplayGap[] = [];
  let cursor: string | null = null;
  do {
    const page: ReplayPage = await api.get<ReplayPage>(
      `${sessionPath(id)}/replay`,
      { limit: 200, cursor: cursor ?? undefined },
      signal,
    );
    events.push(...page.events);
    gaps = page.gaps;
    cursor = page.next_cursor;
  } while (cursor !== null);
  return { events, gaps };
}

/** Everything the page shows about one session, fetched in parallel. */
export async function loadSession(id: string, signal: AbortSignal): Promise<SessionData> {
  const [detail, replay, logs, recipes, spans, metrics] = await Promise.all([
    api.get<SessionDetail>(sessionPath(id), {}, signal),
    replayOf(id, signal),
    sessionRecords<LogRow>('/logs', id, signal),
    allRows<RecipeRow>(`${sessionPath(id)}/recipes`, { limit: 1000 }, signal),
    sessionRecords<SpanJson>('/spans', id, signal),
    sessionRecords<MetricRow>('/metrics', id, signal),
  ]);
  const vitals = metrics.rows.filter((m) => m.name.startsWith('web_vital_'));
  return { detail, ...replay, logs, recipes, spans, vitals };
}

import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { redactMessage } from '../incidents/detect/normalize-message';
import type { IncidentEvidence } from '../incidents/types';
import type { issueDetail } from '../issues/detail';
import { newestIncidentEvidence, type IssueRow } from '../issues/store';
import { failedRecipesBetween, newestLogResource } from '../sessions/store';
import { iso } from '../shared/time';
import { originalSources } from './sources';

type IssueDetail = Awaited<ReturnType<typeof issueDetail>>;

/** Frames sent, from the top: the error's own code is near it. */
const MAX_FRAMES = 20;
/** Original files sent whole, those of the topmost in-app frames first. */
const MAX_SOURCES = 5;
/** Failing requests sent, newest first. */
const MAX_REQUESTS = 10;
/** How long before the error a failing request of its session still counts. */
const REQUEST_WINDOW_MS = 5 * 60_000;

/**
 * Everything that leaves the server for the model, and nothing else: the user message is this object as JSON
 * (docs/ai-fixes.md, "What is sent"). Each part comes from data already redacted at ingest and is masked again here
 * (e-mail addresses, long tokens; query strings and fragments of URLs dropped). Keys, channel and repository secrets
 * and the server's settings are never part of it.
 */
export interface SentEvidence {
  issue: {
    id: string;
    type: string;
    message: string;
    app: string;
    events: number;
    sessions: number;
    top_frame: string | null;
  };
  release: string | null;
  env: string;
  /** `user_agent.original` of the session's telemetry. */
  browser: string | null;
  stack: Array<{
    function: string;
    file: string;
    line: number;
    column: number;
    in_app: boolean;
    context: { start_line: number; lines: string[] } | null;
  }>;
  /** Whole original sources of the stack's in-app files (from the uploaded maps' `sourcesContent`): what a diff applies to. */
  sources: Array<{ path: string; content: string }>;
  breadcrumbs: Array<{ at: string; kind: string; message: string }>;
  failing_requests: Array<{ at: string; method: string | null; path: string; status: number | null }>;
}

export interface GatheredEvidence {
  sent: SentEvidence;
  /** The sources sent, by path: what a suggested diff is checked against. */
  sources: Map<string, string>;
}

/** A URL as sent: its path only, masked; the origin and query (where tokens travel) stay home. */
function safePath(url: string): string {
  let path = url.replace(/[?#].*$/, '');
  try {
    path = new URL(url).pathname;
  } catch {
    // Already relative.
  }
  return redactMessage(path);
}

export async function gatherEvidence(
  db: Kysely<Database>,
  row: IssueRow,
  detail: IssueDetail,
): Promise<GatheredEvidence> {
  const release = detail.last_event?.release ?? row.last_release;
  const inApp = detail.stack.frames.filter((f) => f.in_app && f.original);
  const all = await originalSources(db, row.project_id, release, inApp);
  const sources = new Map([...all].slice(0, MAX_SOURCES));
  const sent: SentEvidence = {
    issue: {
      id: detail.id,
      type: detail.type,
      message: redactMessage(detail.message),
      app: detail.app,
      events: detail.events,
      sessions: detail.sessions,
      top_frame: detail.top_frame,
    },
    release,
    env: detail.env,
    browser: await browserOf(db, row.project_id, detail.last_event?.session_id ?? null),
    stack: detail.stack.frames.slice(0, MAX_FRAMES).map((f) => ({
      function: f.original?.function ?? f.function,
      file: f.original?.file ?? safePath(f.url),
      line: f.original?.line ?? f.line,
      column: f.original?.column ?? f.column,
      in_app: f.in_app,
      context: f.original?.context ?? null,
    })),
    sources: [...sources].map(([path, content]) => ({ path, content })),
    breadcrumbs: detail.breadcrumbs.map((b) => ({ at: b.at, kind: b.kind, message: redactMessage(b.message) })),
    failing_requests: await failingRequests(db, row, detail),
  };
  return { sent, sources };
}

/** The browser of the newest error's session, as its SDK described it. */
async function browserOf(db: Kysely<Database>, projectId: string, sessionId: string | null): Promise<string | null> {
  if (sessionId === null) return null;
  const resource = await newestLogResource(db, projectId, sessionId);
  const agent = resource
    ? (JSON.parse(resource) as { attributes?: Record<string, unknown> }).attributes?.['user_agent.original']
    : undefined;
  return typeof agent === 'string' ? redactMessage(agent) : null;
}

/**
 * Failing requests: those of the issue's incident evidence (spans ≥ 500 or network errors around the error), and the
 * recorded requests (recipes) of the newest error's session that failed in the minutes before it.
 */
async function failingRequests(
  db: Kysely<Database>,
  row: IssueRow,
  detail: IssueDetail,
): Promise<SentEvidence['failing_requests']> {
  const stored = await newestIncidentEvidence(db, row);
  const evidence = stored ? (JSON.parse(stored) as IncidentEvidence) : null;
  const fromIncident = (evidence?.failing_requests ?? []).map((r) => ({
    at: r.at,
    method: null,
    path: safePath(r.url ?? r.name),
    status: r.status,
  }));
  const last = detail.last_event;
  const recipes =
    last?.session_id == null
      ? []
      : await failedRecipesBetween(db, row.project_id, last.session_id, {
          fromMs: Date.parse(last.at) - REQUEST_WINDOW_MS,
          toMs: Date.parse(last.at),
          limit: MAX_REQUESTS,
        });
  const fromRecipes = recipes.map((r) => ({
    at: iso(Number(r.time_ms)),
    method: r.method,
    path: safePath(r.url),
    status: r.status === 0 ? null : r.status,
  }));
  return [...fromRecipes, ...fromIncident].slice(0, MAX_REQUESTS);
}

import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { replayUrl } from '../incidents/detect/evidence';
import type { LastEvent } from '../incidents/detect/tables';
import { iso } from '../shared/time';
import { missingMaps } from '../sourcemaps/missing';
import type { SymbolicatedFrame, Symbolicator } from '../sourcemaps/types';
import { breadcrumbsBefore } from './breadcrumbs';
import { frameJson, issueJson } from './json';
import {
  hourlyCountsOf,
  mergedInto,
  newestSessionsOf,
  releasesOf,
  reproductionsOf,
  seenInDetail,
  type IssueRow,
} from './store';

/** Affected sessions listed, newest first. */
const SESSION_SAMPLE = 10;

export interface DetailSources {
  db: Kysely<Database>;
  symbolicator: Symbolicator;
  publicUrl: string;
}

/** The newest error's stack, symbolicated now: a map uploaded after the error still applies. */
async function stackOf(
  symbolicator: Symbolicator,
  projectId: string,
  last: LastEvent | null,
): Promise<SymbolicatedFrame[]> {
  if (!last?.stacktrace) return [];
  return symbolicator.symbolicate({
    projectId,
    stacktrace: last.stacktrace,
    debugIds: new Map(Object.entries(last.debug_ids)),
    release: last.release,
  });
}

/** The newest affected sessions, each with its replay link when it has a replay. */
async function sessionsOf(sources: DetailSources, row: IssueRow) {
  const sessions = await newestSessionsOf(sources.db, row, SESSION_SAMPLE);
  return sessions.map((s) => ({
    session_id: s.sessionId,
    user_id: s.userId,
    first_seen: iso(s.firstMs),
    last_seen: iso(s.lastMs),
    replay_url: s.hasReplay ? replayUrl(sources.publicUrl, s.sessionId) : null,
  }));
}

/** An issue with everything its page shows (docs/issues.md, "The detail"). */
export async function issueDetail(sources: DetailSources, row: IssueRow) {
  const last = row.last_event === null ? null : (JSON.parse(row.last_event) as LastEvent);
  const frames = await stackOf(sources.symbolicator, row.project_id, last);
  return {
    ...issueJson(row),
    seen_in: await seenInDetail(sources.db, row),
    reproductions: await reproductionsOf(sources.db, row),
    stack: {
      raw: last?.stacktrace ?? null,
      frames: frames.map(frameJson),
      missing_maps: missingMaps(frames, last?.release ?? null, sources.publicUrl),
    },
    merged_from: await mergedInto(sources.db, row),
    last_event: last && { at: iso(last.time_ms), release: last.release, session_id: last.session_id },
    counts: await hourlyCountsOf(sources.db, row),
    releases: await releasesOf(sources.db, row),
    sessions_sample: await sessionsOf(sources, row),
    breadcrumbs: last
      ? await breadcrumbsBefore(sources.db, {
          projectId: row.project_id,
          sessionId: last.session_id,
          atMs: last.time_ms,
        })
      : [],
  };
}

import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { fingerprint } from '../incidents/detect/fingerprint';
import type { GroupRow } from '../incidents/detect/groups';
import type { LastEvent } from '../incidents/detect/tables';
import { topFrameOf, type TopFrame } from '../incidents/detect/top-frame';
import type { StoredMap } from '../sourcemaps/store';
import type { Symbolicator } from '../sourcemaps/types';
import { mergeCandidates, mergeIssue } from './store';

export interface Regrouped {
  from: string;
  into: string;
}

export interface RegroupDeps {
  db: Kysely<Database>;
  symbolicator: Symbolicator;
  clock: Clock;
}

/**
 * Once maps arrive, re-groups the issues that formed without them (docs/issues.md, "Maps that arrive late"): an issue
 * whose top frame no map placed, and whose newest error the project's maps now place, is the bug of the issue of that
 * original frame. Its errors, counts, sessions, hours, releases, test sightings and breakdown move there (created when
 * it does not exist yet), and its id answers as that issue from then on. Peers leave the split (Sentry groups anew from
 * the next event); merging it keeps one issue per bug.
 *
 * Symbolication runs outside any transaction (it may parse megabytes); each merge is one transaction that takes the
 * detector's cursor locks first, so no error of either issue is counted meanwhile, and deletes the old issue as its
 * first write, so two uploads (or two processes) merge it once.
 */
export async function regroupMapped(
  deps: RegroupDeps,
  projectId: string,
  maps: readonly StoredMap[],
): Promise<Regrouped[]> {
  const debugIds = maps.flatMap((m) => (m.debugId ? [m.debugId] : []));
  const releases = [...new Set(maps.flatMap((m) => (m.release ? [m.release] : [])))];
  const candidates = await mergeCandidates(deps.db, projectId, debugIds, releases);
  const merged: Regrouped[] = [];
  for (const group of candidates) {
    const target = await placedFrame(deps.symbolicator, group);
    if (!target) continue;
    const into = fingerprint(group.app_id, group.env, {
      type: group.error_type,
      message: group.message,
      sampleMessage: group.sample_message,
      frame: target,
    });
    if (into === group.fingerprint) continue;
    if (await mergeIssue(deps, group, into, target)) merged.push({ from: group.fingerprint, into });
  }
  return merged;
}

/** The top frame of the group's newest error as the maps place it now; undefined while no map places it. */
async function placedFrame(symbolicator: Symbolicator, group: GroupRow): Promise<TopFrame | undefined> {
  const last = JSON.parse(group.last_event!) as LastEvent;
  if (!last.stacktrace) return undefined;
  const frames = await symbolicator.symbolicate({
    projectId: group.project_id,
    stacktrace: last.stacktrace,
    debugIds: new Map(Object.entries(last.debug_ids)),
    release: last.release,
  });
  const frame = topFrameOf(last.stacktrace, frames);
  return frame?.source ? frame : undefined;
}

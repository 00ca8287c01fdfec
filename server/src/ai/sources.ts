import { TraceMap } from '@jridgewell/trace-mapping';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { cleanSourcePath } from '../sourcemaps/parsed-map';
import { findByDebugId, findByReleaseUrl, readMapIndex, readSourceContent } from '../sourcemaps/store';
import { urlKeys } from '../sourcemaps/symbolicate';

/** A stack frame as the issue detail returns it, with what finds its map. */
export interface MappedFrame {
  url: string;
  debug_id: string | null;
  original: { file: string } | null;
}

/** Largest original source taken whole: the app's own modules are far smaller; a bundle-sized file is not sent. */
export const MAX_SOURCE_CHARS = 64 * 1024;

/**
 * The whole original source of each file the frames land in (path as the map names it → content), from the
 * `sourcesContent` of the maps that symbolicated them, found as the symbolicator finds them: by debug ID, else by
 * release and URL. Files without content in their map, or larger than {@link MAX_SOURCE_CHARS}, are left out.
 */
export async function originalSources(
  db: Kysely<Database>,
  projectId: string,
  release: string | null,
  frames: readonly MappedFrame[],
): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  const indexes = new Map<string, Promise<TraceMap | null>>();
  for (const frame of frames) {
    if (!frame.original || sources.has(frame.original.file)) continue;
    const ref =
      (frame.debug_id ? await findByDebugId(db, projectId, frame.debug_id) : undefined) ??
      (release
        ? await findByReleaseUrl(db, projectId, release, urlKeys(frame.url), frame.debug_id ?? undefined)
        : undefined);
    if (!ref) continue;
    if (!indexes.has(ref.id))
      indexes.set(
        ref.id,
        readMapIndex(db, ref.id).then((json) => (json === undefined ? null : new TraceMap(json))),
      );
    const map = await indexes.get(ref.id)!;
    const idx = map?.resolvedSources.findIndex((s) => cleanSourcePath(s ?? '') === frame.original!.file) ?? -1;
    // A map replaced meanwhile has no sources to give: the analysis goes without this file.
    const content = idx < 0 ? null : await readSourceContent(db, ref.id, idx).catch(() => null);
    if (content !== null && content.length <= MAX_SOURCE_CHARS) sources.set(frame.original.file, content);
  }
  return sources;
}

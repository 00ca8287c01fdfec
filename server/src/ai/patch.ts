import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import { conflict, DomainError } from '../shared/domain-errors';

/**
 * A suggested fix's unified diff, applied to files at one revision: the same rules decide whether an analysis marks
 * its diff applicable (against the map's sources) and whether a pull request can carry it (against the repository).
 */

/** A file as the commit writes it: its new text, or null when the patch deletes it. */
export interface PatchedFile {
  path: string;
  content: string | null;
}

/** Most files one suggested fix may touch: a fix is small, and each file costs GitHub requests. */
const MAX_FILES = 20;

const NOT_APPLICABLE = 'patch_not_applicable';
export const notApplicable = (message: string) => conflict(NOT_APPLICABLE, message);

/** A diff's path as a repository path: without the `a/` or `b/` prefix or `./`; null for `/dev/null`. */
function repositoryPath(name: string | undefined): string | null {
  if (name === undefined || name === '/dev/null') return null;
  const path = name.replace(/^[ab]\//, '').replace(/^(\.\/)+/, '');
  if (path === '' || path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '')) {
    throw notApplicable(`the diff names "${name}", which is not a path inside the repository`);
  }
  return path;
}

/** The files a unified diff touches, as repository paths; throws 409 when it names none, too many, or bad paths. */
export function parseDiff(diff: string): Array<{ patch: StructuredPatch; from: string | null; to: string | null }> {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(diff);
  } catch {
    throw notApplicable('the suggested fix is not a unified diff');
  }
  const patches = parsed.filter((p) => p.hunks.length > 0);
  if (patches.length === 0) throw notApplicable('the suggested diff changes no file');
  if (patches.length > MAX_FILES)
    throw notApplicable(`the suggested diff touches ${patches.length} files; at most ${MAX_FILES} are taken`);
  return patches.map((patch) => ({
    patch,
    from: repositoryPath(patch.oldFileName),
    to: repositoryPath(patch.newFileName),
  }));
}

/**
 * Applies `diff` to the files `read` returns (null: no such file) at one revision. Throws 409 `patch_not_applicable`
 * naming the first file it does not apply to; nothing is written anywhere before every file applies.
 */
export async function applyDiff(diff: string, read: (path: string) => Promise<string | null>): Promise<PatchedFile[]> {
  const files: PatchedFile[] = [];
  for (const { patch, from, to } of parseDiff(diff)) {
    const source = from === null ? '' : await read(from);
    if (source === null)
      throw notApplicable(`the suggested diff changes ${from}, which the repository does not have at that revision`);
    const patched = applyPatch(source, patch);
    if (patched === false) throw notApplicable(`the suggested diff does not apply to ${from ?? to} at that revision`);
    if (to === null) files.push({ path: from!, content: null });
    else {
      if (from !== null && from !== to) files.push({ path: from, content: null });
      files.push({ path: to, content: patched });
    }
  }
  return files;
}

/**
 * True when `diff` applies, by the same rules as a pull request's, to the original sources the server holds (paths as
 * the map names them): the suggestion can be applied as is. False for anything else, including text that is not a diff.
 */
export async function diffApplies(diff: string, sources: ReadonlyMap<string, string>): Promise<boolean> {
  try {
    await applyDiff(diff, async (path) => sources.get(path) ?? null);
    return true;
  } catch (err) {
    if (err instanceof DomainError && err.code === NOT_APPLICABLE) return false;
    throw err;
  }
}

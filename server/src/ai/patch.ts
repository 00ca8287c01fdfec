import { applyPatch, parsePatch } from 'diff';

/** `a/src/x.ts` → `src/x.ts`; `/dev/null` stays, so a created or deleted file never matches a source. */
const unprefixed = (name: string | undefined) => (name ?? '').replace(/^[ab]\//, '');

/**
 * True when `diff` is a unified diff whose every file is one of `sources` (paths as the map names them) and whose every
 * hunk applies without fuzz: the suggestion can be applied as is. False for anything else, including text that is not
 * a diff.
 */
export function diffApplies(diff: string, sources: ReadonlyMap<string, string>): boolean {
  let patches;
  try {
    patches = parsePatch(diff);
  } catch {
    return false;
  }
  if (patches.length === 0) return false;
  return patches.every((patch) => {
    const path = unprefixed(patch.oldFileName);
    const source = sources.get(path);
    if (source === undefined || unprefixed(patch.newFileName) !== path || patch.hunks.length === 0) return false;
    return applyPatch(source, patch) !== false;
  });
}

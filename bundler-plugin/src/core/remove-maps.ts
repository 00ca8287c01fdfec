import { readFile, rm, writeFile } from 'node:fs/promises';
import type { InjectedFile } from './inject';
import { sourceMappingUrl, withoutSourceMappingUrl } from './inject';

/**
 * Deletes the maps of `files` from the output, and the `//# sourceMappingURL=` comments pointing at them, so that the
 * deployed site serves no map (and browsers' devtools ask for none). Resolves with the deleted maps' paths.
 */
export async function removeMaps(files: readonly InjectedFile[]): Promise<string[]> {
  const removed: string[] = [];
  for (const { file, map } of files) {
    if (map === null) continue;
    const text = await readFile(file, 'utf8');
    if (sourceMappingUrl(text) !== null) await writeFile(file, withoutSourceMappingUrl(text));
    await rm(map, { force: true });
    removed.push(map);
  }
  return removed;
}

import { injectFile, type InjectedFile } from './inject';
import { removeMaps } from './remove-maps';
import { uploadSourceMaps, type StoredMap, type UploadOptions } from './upload';

export interface ProcessOptions {
  /** Where to upload the maps; null injects only. */
  upload: UploadOptions | null;
  /** After a successful upload, deletes the maps and their `sourceMappingURL` comments from the output. */
  deleteMapsAfterUpload?: boolean | undefined;
}

export interface ProcessResult {
  files: InjectedFile[];
  stored: StoredMap[];
  /** Paths of the deleted maps. */
  removed: string[];
}

/**
 * What the plugin does once the bundler has written its output, and what `svc-server sourcemaps` does to a directory:
 * debug IDs into `files` (absolute paths of JavaScript files under `dir`) and their maps, then the upload, then the
 * maps' removal.
 */
export async function processOutput(
  dir: string,
  files: readonly string[],
  options: ProcessOptions,
): Promise<ProcessResult> {
  const injected: InjectedFile[] = [];
  // One file at a time: a build can emit thousands, and each step is a read and a write.
  for (const file of files) injected.push(await injectFile(file));
  if (!options.upload) return { files: injected, stored: [], removed: [] };
  const stored = await uploadSourceMaps(dir, injected, options.upload);
  const removed = options.deleteMapsAfterUpload ? await removeMaps(injected) : [];
  return { files: injected, stored, removed };
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** One line for the build log, e.g. `debug IDs in 3 files (3 new); 3 maps uploaded (412 kB); 3 maps deleted`. */
export function summarize({ files, stored, removed }: ProcessResult, uploaded: boolean): string {
  const fresh = files.filter((f) => f.injected).length;
  const parts = [`debug IDs in ${count(files.length, 'file')} (${fresh} new)`];
  const kB = Math.round(stored.reduce((n, s) => n + s.bytes, 0) / 1024);
  if (uploaded) parts.push(`${count(stored.length, 'map')} uploaded (${kB} kB)`);
  if (removed.length > 0) parts.push(`${count(removed.length, 'map')} deleted`);
  const missing = files.filter((f) => f.map === null).length;
  if (missing > 0) parts.push(`${count(missing, 'file')} without a map on disk`);
  return parts.join('; ');
}

import type { SymbolicatedFrame } from './types';

/** The app's files of a stack that no uploaded map covers, and the command that uploads theirs (docs/source-maps.md). */
export interface MissingMaps {
  /** Each script once, in stack order, with the debug ID the SDK sent for it (null without one). */
  files: Array<{ url: string; debug_id: string | null }>;
  /** The error's release (`service.version`): maps without a debug ID are found by it and the file's URL. */
  release: string | null;
  /** The CLI line to run on the build's output folder (the one served at the site's root). */
  upload_command: string;
}

/** A word as a POSIX shell reads it back: as it is when it is plain, else single-quoted. */
const shellWord = (word: string) => (/^[\w.:@%+,/=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * What is missing for a stack to read as source: the in-app frames' scripts that no map covered (dependencies, the SDK
 * and engine frames are not the app's, and need none), with the exact `svc-server sourcemaps upload` line, for this
 * server and the error's release. Null when every in-app frame has its map.
 */
export function missingMaps(
  frames: readonly SymbolicatedFrame[],
  release: string | null,
  serverUrl: string,
): MissingMaps | null {
  const files = new Map<string, string | null>();
  for (const f of frames) if (f.inApp && f.original === null && !files.has(f.url)) files.set(f.url, f.debugId);
  if (files.size === 0) return null;
  // Without a release, a map is found only by debug ID: the placeholder says the release must be named.
  const command = [
    'npx svc-server sourcemaps upload path/to/build',
    `--release ${release === null ? '<release>' : shellWord(release)}`,
    `--url ${shellWord(serverUrl)}`,
    '--control-key <control key>',
  ];
  return {
    files: [...files].map(([url, debug_id]) => ({ url, debug_id })),
    release,
    upload_command: command.join(' '),
  };
}

import type { StartRecording } from './types';

let pending: Promise<StartRecording> | undefined;

/**
 * Loads the session recorder (rrweb) on demand. The dynamic import is deliberate: bundlers emit the recorder as a
 * separate chunk, fetched only when replay actually starts, so pages that never record never download rrweb.
 *
 * The promise is shared by concurrent callers; after a failure (e.g. the chunk could not be fetched) the next call
 * tries again instead of returning the same rejection forever.
 */
export function loadRecorder(): Promise<StartRecording> {
  if (pending === undefined) {
    const loading = import('./recorder').then((module) => module.startRecording);
    pending = loading;
    loading.catch(() => {
      if (pending === loading) pending = undefined;
    });
  }
  return pending;
}

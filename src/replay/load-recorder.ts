import { sharedLoad, type LoadSlot } from './load-recorder-slot';
import { SHARED_HELPERS } from './shared-helpers';
import type { StartRecording } from './types';

const slot: LoadSlot<StartRecording> = {};

/**
 * Loads the session recorder (rrweb) on demand. The dynamic import is deliberate: bundlers emit the recorder as a
 * separate chunk, fetched only when replay actually starts, so pages that never record never download rrweb. The
 * script-tag build replaces this module with cdn/load-recorder.ts, which loads `svc-recorder.min.js` instead.
 *
 * The promise is shared by concurrent callers; after a failure (e.g. the chunk could not be fetched) the next call
 * tries again instead of returning the same rejection forever.
 */
export function loadRecorder(): Promise<StartRecording> {
  return sharedLoad(slot, () => import('./recorder').then((module) => module.recorderWith(SHARED_HELPERS)));
}

import type { DatabaseHandle } from '../db/connect';
import { bindChunkStore } from './chunk-store';
import { openS3ChunkStore } from './s3-chunk-store';
import type { ReplayStorageSettings } from './storage-settings';

/**
 * The database with its replay chunk payloads in the bucket `settings` name (the handle itself without settings): the
 * bucket is checked before anything is served, every reader and deleter of chunks finds the store through the handle's
 * `db` (chunk-store.ts), and the handle's close closes the bucket's client too. A bucket that cannot be used closes the
 * handle and throws, naming SVC_REPLAY_S3_BUCKET.
 */
export async function attachReplayStorage(
  handle: DatabaseHandle,
  settings: ReplayStorageSettings | undefined,
): Promise<DatabaseHandle> {
  if (!settings) return handle;
  let store;
  try {
    store = await openS3ChunkStore(settings);
  } catch (err) {
    await handle.close();
    throw err;
  }
  bindChunkStore(handle.db, store);
  return {
    ...handle,
    close: async () => {
      store.close();
      await handle.close();
    },
  };
}

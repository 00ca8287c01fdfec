/**
 * Gzip through the browser's native `CompressionStream`, which compresses off the main thread. `undefined` where it
 * does not exist (older Safari and Firefox) or fails: callers then send the text as it is.
 */
export async function gzipText(text: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (typeof CompressionStream === 'undefined' || typeof Blob === 'undefined' || typeof Response === 'undefined') {
    return undefined;
  }
  try {
    const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch {
    return undefined;
  }
}

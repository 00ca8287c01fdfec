/**
 * Chunk payload encoding (wire/replay.ts `encoding`): gzip through the browser's native `CompressionStream`, which
 * compresses off the main thread, then base64; plain JSON where CompressionStream does not exist or fails.
 */
export async function encodeEvents(json: string): Promise<{ encoding: 'gzip' | 'json'; data: string }> {
  if (typeof CompressionStream === 'undefined') return { encoding: 'json', data: json };
  try {
    const stream = new Blob([json]).stream().pipeThrough(new CompressionStream('gzip'));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    return { encoding: 'gzip', data: toBase64(bytes) };
  } catch {
    return { encoding: 'json', data: json };
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // Bounded slices: String.fromCharCode with a spread of a whole chunk would overflow the call stack.
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

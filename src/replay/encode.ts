import { gzipText } from '../pipeline/gzip';

/**
 * Chunk payload encoding (wire/replay.ts `encoding`): gzip, then base64; plain JSON where compression is unavailable.
 */
export async function encodeEvents(json: string): Promise<{ encoding: 'gzip' | 'json'; data: string }> {
  const bytes = await gzipText(json);
  return bytes === undefined ? { encoding: 'json', data: json } : { encoding: 'gzip', data: toBase64(bytes) };
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // Bounded slices: String.fromCharCode with a spread of a whole chunk would overflow the call stack.
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

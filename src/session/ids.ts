/** Random lower-case hex ids: 32 characters for sessions and replays, like W3C trace ids. */
export function randomHexId(bytes = 16): string {
  const buffer = new Uint8Array(bytes);
  const crypto = globalThis.crypto;
  if (crypto !== undefined && typeof crypto.getRandomValues === 'function') crypto.getRandomValues(buffer);
  else for (let i = 0; i < bytes; i++) buffer[i] = Math.floor(Math.random() * 256);
  let hex = '';
  for (const byte of buffer) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

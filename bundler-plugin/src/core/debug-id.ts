import { createHash } from 'node:crypto';

/** A debug ID as the TC39 proposal and Sentry's tools write it: a lowercase UUID. */
export const DEBUG_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The debug ID of an emitted file, from its content: rebuilding identical output gives the same id, so a redeploy of an
 * unchanged file needs no new upload. The first 16 bytes of its sha256, shaped as a version 4, RFC 4122 variant UUID.
 */
export function debugIdFor(content: string | Uint8Array): string {
  const bytes = createHash('sha256').update(content).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

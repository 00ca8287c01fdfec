/**
 * Browsers cap the body bytes of keepalive requests in flight from one document at 64 KiB (Chromium counts
 * `sendBeacon` against the same quota); a keepalive `fetch` over the cap fails with a TypeError. The SDK keeps its
 * own count of the UTF-8 bytes it has in flight with `keepalive` and only asks for keepalive when the body fits.
 */
export const KEEPALIVE_QUOTA_BYTES = 64 * 1024;

/** Largest request body the SDK builds (~60 KB): one request always fits the keepalive quota with room to spare. */
export const MAX_REQUEST_BYTES = 60_000;

export interface KeepaliveBudget {
  /** Bytes still free. */
  readonly available_: number;
  /** Reserves `bytes` when they fit; the caller must `release` them when the request settles. */
  reserve_(bytes: number): boolean;
  release_(bytes: number): void;
}

export function createKeepaliveBudget(quota = KEEPALIVE_QUOTA_BYTES): KeepaliveBudget {
  let inFlight = 0;
  return {
    get available_() {
      return quota - inFlight;
    },
    reserve_(bytes) {
      if (bytes > quota - inFlight) return false;
      inFlight += bytes;
      return true;
    },
    release_(bytes) {
      inFlight = Math.max(0, inFlight - bytes);
    },
  };
}

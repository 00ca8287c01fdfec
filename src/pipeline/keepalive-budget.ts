/**
 * Browsers cap the body bytes of keepalive requests in flight from one document at 64 KiB (Chromium counts
 * `sendBeacon` against the same quota); a keepalive `fetch` over the cap fails with a TypeError. The SDK keeps its
 * own count of the UTF-8 bytes it has in flight with `keepalive` and only asks for keepalive when the body fits.
 */
export const KEEPALIVE_QUOTA_BYTES = 64 * 1024;

/** Largest request body the SDK builds (~60 KB): one request always fits the keepalive quota with room to spare. */
export const MAX_REQUEST_BYTES = 60_000;

export class KeepaliveBudget {
  private inFlight_ = 0;

  constructor(private readonly quota_: number = KEEPALIVE_QUOTA_BYTES) {}

  /** Bytes still free. */
  get available(): number {
    return this.quota_ - this.inFlight_;
  }

  /** Reserves `bytes` when they fit; the caller must `release` them when the request settles. */
  reserve(bytes: number): boolean {
    if (bytes > this.available) return false;
    this.inFlight_ += bytes;
    return true;
  }

  release(bytes: number): void {
    this.inFlight_ = Math.max(0, this.inFlight_ - bytes);
  }
}

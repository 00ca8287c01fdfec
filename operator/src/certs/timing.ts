/**
 * When the certificate manager checks again: at the next renewal point, but at least every `intervalMs` (which also
 * repairs a caBundle someone changed) and never sooner than a second; after a failed check, within ten seconds.
 */
import { nextChangeAt, type CertificateMaterial } from './plan.js';

/** The wait before the next check after one that succeeded with `material` at `nowMs`. */
export function nextCheckInMs(material: CertificateMaterial, nowMs: number, intervalMs: number): number {
  return Math.max(1000, Math.min(intervalMs, nextChangeAt(material) - nowMs));
}

/** The wait before retrying a check that failed. */
export function retryInMs(intervalMs: number): number {
  return Math.min(intervalMs, 10_000);
}

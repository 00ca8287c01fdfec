import { positiveOptions } from '../../shared/tuning';
import type { Severity } from '../types';

/** When an error group becomes an incident, and what happens to the incident after. All durations in milliseconds. */
export interface DetectionOptions {
  /** Errors of one group within {@link windowMs} that open an incident. */
  threshold: number;
  windowMs: number;
  /** Escalate when the errors of the last window reach this multiple of the window count at detection. */
  growthFactor: number;
  /** Escalate when errors still arrive this long after detection. */
  persistMs: number;
  /** Resolve after this long without an error of the group. */
  quietMs: number;
  /** `critical` from this multiple of the threshold within the window… */
  criticalFactor: number;
  /** …or from this many affected sessions. */
  criticalSessions: number;
  /** Rows read per table and transaction after the cursor, and as many again inside the gaps it watches. */
  batchSize: number;
  /**
   * How long a missing range of row ids is watched for rows that commit late, from when a detector first saw it. On
   * PostgreSQL concurrent inserts commit out of id order, so an id not visible yet may still arrive; one that stays
   * missing this long was rolled back. Rows after a gap do not wait for it (gaps.ts).
   */
  holeSettleMs: number;
  /**
   * Gaps watched at once per table. Beyond this the rows after the next gap wait, at most `holeSettleMs`: every gap is
   * timed from its first sight either way.
   */
  maxGaps: number;
}

const MINUTE = 60_000;

export const DETECTION_DEFAULTS: DetectionOptions = {
  threshold: 5,
  windowMs: 5 * MINUTE,
  growthFactor: 2,
  persistMs: 30 * MINUTE,
  quietMs: 30 * MINUTE,
  criticalFactor: 10,
  criticalSessions: 20,
  batchSize: 2000,
  holeSettleMs: 30_000,
  maxGaps: 256,
};

/** Defaults with the given options on top; refuses settings under which detection could not work. */
export const detectionOptions = (options: Partial<DetectionOptions> = {}): DetectionOptions =>
  positiveOptions('detection', DETECTION_DEFAULTS, options);

/**
 * Severity at detection: `critical` when the burst is large (the threshold times {@link DetectionOptions.criticalFactor})
 * or widespread ({@link DetectionOptions.criticalSessions} sessions), `medium` when it comes from one session only (one
 * user stuck in a loop, not an outage), `high` otherwise.
 */
export function severityOf(windowCount: number, sessions: number, options: DetectionOptions): Severity {
  if (windowCount >= options.threshold * options.criticalFactor || sessions >= options.criticalSessions)
    return 'critical';
  if (sessions === 1) return 'medium';
  return 'high';
}

/**
 * Table types of the incident detector (migrations 0003-detection and 0006-detection-gaps), merged into db/schema.ts's
 * `Database`.
 */
export interface DetectionTables {
  /** How far the detector has read `logs` and `spans`, shared by every server process. */
  detection_cursors: {
    source: DetectionSource;
    /** Every row up to this id has been counted, unless in one of the gaps of `pending`. */
    last_id: number;
    /** JSON `{gaps, marks}` (gaps.ts): the id ranges found missing after a read, and when each was first seen. */
    pending: string;
  };
  /** One error group: an app's errors in one environment with one fingerprint. Times are epoch milliseconds. */
  detection_groups: {
    project_id: string;
    fingerprint: string;
    app_id: string;
    env: string;
    error_type: string;
    message: string;
    sample_message: string;
    /** Top in-app frame as people read it, e.g. `renderCart (checkout.js:42)`. */
    top_frame: string | null;
    /** File of the top frame, for titles. */
    top_file: string | null;
    /** Reporter's clock. */
    first_seen_ms: number;
    last_seen_ms: number;
    /** Server's clock: the quiet period counts from here. */
    last_received_ms: number;
    first_release: string | null;
    /** Errors ever counted. */
    total_count: number;
    /** `[bucket start ms, errors]` pairs (JSON) by time of receipt, covering the last window. */
    buckets: string;
    /** The open incident of the group, as last seen by a detector. */
    incident_id: string | null;
    /** `total_count` before the errors that opened the incident: the incident's running count starts there. */
    incident_base_total: number;
    /** Errors in the window at detection: growth is measured against it. */
    incident_open_count: number;
    /** `total_count` when the last incident ended: errors before it do not open the next one. */
    reset_total: number;
  };
  /** Sessions that hit a group, by last time of receipt: affected-session counts and samples. */
  detection_sessions: {
    project_id: string;
    fingerprint: string;
    session_id: string;
    last_ms: number;
  };
}

export type DetectionSource = 'logs' | 'spans';

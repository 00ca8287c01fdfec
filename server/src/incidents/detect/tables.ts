import type { AssignmentColumns } from '../../assignment/tables';

/**
 * Table types of the incident detector and the issues it keeps (migrations 0003-detection, 0006-detection-gaps,
 * 0011-issues, 0019-test-traffic and 0024-assignees), merged into db/schema.ts's `Database`. An issue is a `detection_groups` row (docs/issues.md).
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
  detection_groups: AssignmentColumns & {
    project_id: string;
    fingerprint: string;
    app_id: string;
    env: string;
    error_type: string;
    message: string;
    sample_message: string;
    /** Top in-app frame as people read it: `renderCart (checkout.js:42)`, or `total (src/cart/total.ts:42:7)` from a map. */
    top_frame: string | null;
    /** File of the top frame, for titles: the original source path when a map covered it. */
    top_file: string | null;
    /** JSON {@link FrameSource} of the top frame when a map covered it, else null. */
    top_source: string | null;
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
    status: IssueStatus;
    /** When a person (or the detector, for `regressed`) last set `status`; null while it was never changed. */
    status_changed_ms: number | null;
    /** Who: `key:<name>` for a control key, `detector` for a regression. */
    status_by: string | null;
    /** 1 when resolved "in next release": only an error from another release than `resolved_release` regresses it. */
    in_next_release: number;
    /** The app's newest release when the issue was resolved. */
    resolved_release: string | null;
    /** `service.version` of the newest error. */
    last_release: string | null;
    /** Distinct sessions ever affected (`issue_sessions`). */
    session_count: number;
    /** JSON {@link LastEvent}: what the issue detail symbolicates when it is read. */
    last_event: string | null;
    /**
     * Errors of test traffic (env `test`) ever counted; `total_count`, `session_count`, `buckets` and the issue tables
     * above count production only. For a group seen only in tests, the times and `last_event` are the tests'.
     */
    test_count: number;
    /** Distinct test sessions (`issue_test_sessions`) and test runs (`issue_test_runs`) ever affected. */
    test_session_count: number;
    test_run_count: number;
    /** 1 when the group's first error came from a test run. */
    caught_in_tests: number;
  };
  /** Sessions that hit a group, by last time of receipt: affected-session counts and samples. */
  detection_sessions: {
    project_id: string;
    fingerprint: string;
    session_id: string;
    last_ms: number;
  };
  /** Errors of an issue per hour of the reporter's clock. */
  issue_hours: { project_id: string; fingerprint: string; hour_ms: number; count: number };
  /** Releases an issue was seen in (errors without a release have no row). */
  issue_releases: {
    project_id: string;
    fingerprint: string;
    release: string;
    first_seen_ms: number;
    last_seen_ms: number;
    count: number;
  };
  /** Every session an issue hit, by the reporter's times; unlike `detection_sessions` never forgotten when the detection window moves on. */
  issue_sessions: { project_id: string; fingerprint: string; session_id: string; first_ms: number; last_ms: number };
  /** Sessions of test traffic an issue hit, for `test_session_count`; `seen_ms` (reporter's clock) is when retention drops them. */
  issue_test_sessions: { project_id: string; fingerprint: string; session_id: string; seen_ms: number };
  /** Test runs (`test.run.id`) an issue was seen in, by the reporter's time of their last error of it. */
  issue_test_runs: { project_id: string; fingerprint: string; run_id: string; last_ms: number };
  /** Issues merged into another once a source map placed their frame (issues/merge.ts): the old id answers as the new. */
  issue_merges: { project_id: string; from_fingerprint: string; into_fingerprint: string; merged_ms: number };
  /** Tests (Playwright's `test.id`) an issue was seen in, with their title path joined by ` > `. */
  issue_tests: { project_id: string; fingerprint: string; test_id: string; title: string | null; last_ms: number };
  /**
   * Production errors of an issue per browser, system, release, route and user (migration 0022); `value` is '' where
   * the error did not say; `last_ms` (reporter's clock) is when retention drops the value.
   */
  issue_facets: {
    project_id: string;
    fingerprint: string;
    facet: IssueFacet;
    value: string;
    count: number;
    last_ms: number;
  };
}

export type DetectionSource = 'logs' | 'spans';

/** What an issue's breakdown counts its errors by. */
export const ISSUE_FACETS = ['browser', 'os', 'release', 'route', 'user'] as const;
export type IssueFacet = (typeof ISSUE_FACETS)[number];

export const ISSUE_STATUSES = ['unresolved', 'resolved', 'ignored', 'regressed'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

/** The original position of a top frame a map covered, with its source line when the map has the source. */
export interface FrameSource {
  file: string;
  function: string | null;
  line: number;
  column: number;
  code: string | null;
}

/** The raw facts of an issue's newest error: enough to symbolicate it again with the maps known when it is read. */
export interface LastEvent {
  stacktrace: string | null;
  /** Script URL → debug ID. */
  debug_ids: Record<string, string>;
  release: string | null;
  time_ms: number;
  session_id: string | null;
  /** Its trace (absent from events stored before it was kept). */
  trace_id?: string | null;
}

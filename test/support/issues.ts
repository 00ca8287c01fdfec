/**
 * The answers of the issues API (`/control-plane/issues`, docs/issues.md) as the tests read them: one declaration for
 * the integration and end-to-end suites, so a renamed field fails them alike.
 */

export type IssueStatus = 'unresolved' | 'resolved' | 'ignored' | 'regressed';

/** Where a frame came from, as the source map says. */
export interface OriginalFrame {
  file: string;
  line: number;
  column: number;
  function: string | null;
  context: { start_line: number; lines: string[] } | null;
}

export interface IssueFrame {
  function: string;
  url: string;
  line: number;
  column: number;
  in_app: boolean;
  debug_id: string | null;
  original: OriginalFrame | null;
}

/** A row of `GET /control-plane/issues`. */
export interface IssueSummary {
  id: string;
  status: IssueStatus;
  type: string;
  message: string;
  app: string;
  env: string;
  events: number;
  sessions: number;
  first_seen: { at: string; release: string | null };
  last_seen: { at: string; release: string | null };
  top_frame: string | null;
  status_changed_at: string | null;
  status_by: string | null;
  in_next_release: boolean;
  resolved_release: string | null;
  /** Production figures (`events` and `sessions` repeat them) and those of test runs (env `test`). */
  seen_in: {
    production: { events: number; sessions: number };
    tests: { events: number; sessions: number; run_count: number };
  };
  caught_in_tests: boolean;
}

/** Errors per bucket over the last 24 hours (by hour) or 14 days (by day), oldest first. */
export interface IssueTrend {
  period: '24h' | '14d';
  start: string;
  bucket_ms: number;
  counts: number[];
}

/** A row of the listing: the issue and its trend over the period `trend` asked for. */
export type IssueListItem = IssueSummary & { trend: IssueTrend };

/** One facet of an issue's breakdown. */
export interface FacetBreakdown {
  top: Array<{ value: string | null; count: number }>;
  distinct: number;
  distinct_capped: boolean;
  total: number;
}

/** A run of an issue's reproduction test: a test attempt annotated `svc-issue` with the issue's id. */
export interface Reproduction {
  run_id: string;
  branch: string | null;
  commit: string | null;
  status: string;
  at: string;
}

/** `GET /control-plane/issues/{id}`. */
export interface IssueDetail extends IssueSummary {
  seen_in: IssueSummary['seen_in'] & {
    tests: { runs: string[]; tests: Array<{ test_id: string; title: string | null }> };
  };
  reproductions: Reproduction[];
  stack: {
    raw: string | null;
    frames: IssueFrame[];
    /** The app's files without a map and the CLI line that uploads theirs; null when every in-app frame has its map. */
    missing_maps: {
      files: Array<{ url: string; debug_id: string | null }>;
      release: string | null;
      upload_command: string;
    } | null;
  };
  /** Issues merged into this one once a map placed their frame. */
  merged_from: Array<{ id: string; at: string }>;
  counts: Array<{ start: string; count: number }>;
  releases: Array<{ release: string; events: number }>;
  sessions_sample: Array<{
    session_id: string;
    user_id: string | null;
    first_seen: string;
    last_seen: string;
    replay_url: string | null;
  }>;
  breadcrumbs: Array<{ at: string; kind: string; message: string }>;
  trend: { hours: IssueTrend; days: IssueTrend };
  breakdown: Record<'browser' | 'os' | 'release' | 'route' | 'user', FacetBreakdown>;
}

export type IssuePage = { data: IssueListItem[]; next_cursor: string | null };

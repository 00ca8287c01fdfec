import { assigneeOfRow } from '../assignment/assignee';
import { assignmentJson } from '../assignment/schemas';
import { iso } from '../shared/time';
import type { SymbolicatedFrame } from '../sourcemaps/types';
import type { IssueRow } from './store/issues';

/** An issue as listings return it (docs/issues.md); the detail adds its stack, counts, sessions and breadcrumbs. */
export function issueJson(r: IssueRow) {
  return {
    id: r.fingerprint,
    status: r.status,
    type: r.error_type,
    message: r.sample_message,
    app: r.app,
    env: r.env,
    // Production figures: test traffic is counted apart, in `seen_in.tests`.
    events: Number(r.total_count),
    sessions: Number(r.session_count),
    first_seen: { at: iso(r.first_seen_ms), release: r.first_release },
    last_seen: { at: iso(r.last_seen_ms), release: r.last_release },
    top_frame: r.top_frame,
    status_changed_at: r.status_changed_ms === null ? null : iso(r.status_changed_ms),
    status_by: r.status_by,
    in_next_release: r.in_next_release === 1,
    resolved_release: r.resolved_release,
    incident_id: r.incident_id,
    seen_in: seenIn(r),
    caught_in_tests: r.caught_in_tests === 1,
    ...assignmentJson(assigneeOfRow(r), r),
  };
}

/** Where an issue was seen: production (every env but `test`) and test runs, each with its own counts. */
export function seenIn(r: IssueRow) {
  return {
    production: { events: Number(r.total_count), sessions: Number(r.session_count) },
    tests: {
      events: Number(r.test_count),
      sessions: Number(r.test_session_count),
      run_count: Number(r.test_run_count),
    },
  };
}

/** A symbolicated frame with the API's snake_case keys. */
export function frameJson(f: SymbolicatedFrame) {
  const o = f.original;
  return {
    function: f.function,
    url: f.url,
    line: f.line,
    column: f.column,
    in_app: f.inApp,
    debug_id: f.debugId,
    original: o && {
      file: o.file,
      line: o.line,
      column: o.column,
      function: o.function,
      context: o.context && { start_line: o.context.startLine, lines: o.context.lines },
    },
  };
}

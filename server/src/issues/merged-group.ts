import { addBuckets, type Buckets } from '../incidents/detect/buckets';
import type { GroupRow } from '../incidents/detect/groups';
import type { TopFrame } from '../incidents/detect/top-frame';

const earliest = (groups: GroupRow[]) => groups.reduce((a, b) => (b.first_seen_ms < a.first_seen_ms ? b : a));
const latest = (groups: GroupRow[]) => groups.reduce((a, b) => (b.last_seen_ms > a.last_seen_ms ? b : a));

/**
 * The merged issue: the target's identity and status when it exists (else the old issue's, on the original frame), the
 * sums of both counts, the first and last errors of both (production ones, when either has any), and an assignee.
 */
export function mergedGroup(
  from: GroupRow,
  target: GroupRow | undefined,
  into: string,
  frame: TopFrame,
  overlap: { sessions: number; runs: number },
): GroupRow {
  const both = target ? [from, target] : [from];
  const production = both.filter((g) => Number(g.total_count) > 0);
  const timed = production.length > 0 ? production : both;
  const [firstOf, lastOf] = [earliest(timed), latest(timed)];
  const base: GroupRow = target ?? {
    ...from,
    fingerprint: into,
    top_frame: frame.label,
    top_file: frame.file,
    top_source: frame.source ? JSON.stringify(frame.source) : null,
  };
  // An assignee carries over: the target's when it has one, else the old issue's.
  const owner = target?.assignee_id ? target : from;
  const total = (column: 'total_count' | 'test_count' | 'test_session_count' | 'test_run_count') =>
    Number(from[column]) + Number(target?.[column] ?? 0);
  return {
    ...base,
    first_seen_ms: firstOf.first_seen_ms,
    first_release: firstOf.first_release,
    caught_in_tests: earliest(both).caught_in_tests,
    last_seen_ms: lastOf.last_seen_ms,
    last_release: lastOf.last_release,
    last_event: lastOf.last_event,
    last_received_ms: Math.max(...both.map((g) => Number(g.last_received_ms))),
    total_count: total('total_count'),
    test_count: total('test_count'),
    test_session_count: total('test_session_count') - overlap.sessions,
    test_run_count: total('test_run_count') - overlap.runs,
    buckets: JSON.stringify(both.map((g) => JSON.parse(g.buckets) as Buckets).reduce(addBuckets)),
    assignee_id: owner.assignee_id,
    assigned_ms: owner.assigned_ms,
    assigned_by: owner.assigned_by,
  };
}

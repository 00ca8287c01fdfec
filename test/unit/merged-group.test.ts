import { describe, expect, it } from 'vitest';
import type { GroupRow } from '../../server/src/incidents/detect/groups';
import type { TopFrame } from '../../server/src/incidents/detect/top-frame';
import { mergedGroup } from '../../server/src/issues/merged-group';

const T = Date.UTC(2026, 10, 29, 12);

/** An issue with errors counted at T and the assignment given. */
const issue = (fingerprint: string, assignment: Partial<GroupRow> = {}): GroupRow =>
  ({
    fingerprint,
    total_count: 1,
    test_count: 0,
    test_session_count: 0,
    test_run_count: 0,
    first_seen_ms: T,
    last_seen_ms: T,
    last_received_ms: T,
    caught_in_tests: 0,
    buckets: '[]',
    assignee_id: null,
    assigned_ms: null,
    assigned_by: null,
    ...assignment,
  }) as GroupRow;

const frame: TopFrame = {
  fn: 'total',
  file: 'total.ts',
  line: 42,
  key: 'total total.ts',
  label: 'total (src/cart/total.ts:42:7)',
};
const noOverlap = { sessions: 0, runs: 0 };
const ada = { assignee_id: 'usr_ada', assigned_ms: T - 1000, assigned_by: 'owner@example.com' };
const bob = { assignee_id: 'usr_bob', assigned_ms: T - 2000, assigned_by: 'key:ci' };

describe("a merged issue's assignee (server/src/issues/merged-group.ts)", () => {
  it("keeps the target's assignee, and takes the old issue's when the target has none", () => {
    const assignment = (g: GroupRow) => [g.assignee_id, g.assigned_ms, g.assigned_by];
    expect(assignment(mergedGroup(issue('a', ada), issue('b', bob), 'b', frame, noOverlap))).toEqual(
      Object.values(bob),
    );
    expect(assignment(mergedGroup(issue('a', ada), issue('b'), 'b', frame, noOverlap))).toEqual(Object.values(ada));
    expect(assignment(mergedGroup(issue('a', ada), undefined, 'b', frame, noOverlap))).toEqual(Object.values(ada));
    expect(assignment(mergedGroup(issue('a'), issue('b'), 'b', frame, noOverlap))).toEqual([null, null, null]);
  });
});

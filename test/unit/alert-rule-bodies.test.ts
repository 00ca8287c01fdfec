import { describe, expect, it } from 'vitest';
import { ruleBodies } from '../../server/src/alerts/schemas';

const rule = {
  name: 'Queue depth',
  signal: 'metrics',
  query: { aggregate: 'sum', metric: 'queue.depth' },
  condition: { type: 'threshold', op: 'above', value: 100 },
  no_data: 'alert',
};

describe("alert rule bodies and the server's shortest window", () => {
  it('refuse a window under 60 seconds by default, and take one down to the shortest a test server sets', () => {
    const windowIssue = (minWindowSeconds: number | undefined, windowSeconds: number) =>
      ruleBodies(minWindowSeconds)
        .CreateRuleBody.safeParse({ ...rule, window_seconds: windowSeconds })
        .error?.issues.map((i) => i.path.join('.'));
    expect(windowIssue(undefined, 60)).toBeUndefined();
    expect(windowIssue(undefined, 59)).toEqual(['window_seconds']);
    expect(windowIssue(5, 5)).toBeUndefined();
    expect(windowIssue(5, 4)).toEqual(['window_seconds']);
    // Previews (and edits, once merged) check the window the same way.
    expect(ruleBodies(5).PreviewBody.safeParse({ ...rule, window_seconds: 5 }).success).toBe(true);
    expect(ruleBodies().PreviewBody.safeParse({ ...rule, window_seconds: 5 }).success).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { decide, type Reading } from '../../server/src/alerts/evaluate/decide';
import { escalationReason } from '../../server/src/alerts/evaluate/lifecycle';
import { evaluationIntervalMs, evaluationOptions, nextDueMs } from '../../server/src/alerts/evaluate/options';
import type { AlertRule } from '../../server/src/alerts/rule';
import type { IncidentView, RuleEvidence } from '../../server/src/incidents/types';

const MINUTE = 60_000;
const NOW = Date.UTC(2026, 10, 30, 12);

/** p75 LCP above 2500 ms over 5 minutes, for 2 minutes, back under 2000 ms to resolve. */
function rule(changes: Partial<AlertRule> = {}): AlertRule {
  return {
    id: 'ar_1',
    projectId: 'p1',
    name: 'Checkout LCP',
    signal: 'vitals',
    query: { aggregate: 'p75', metric: 'LCP' },
    windowSeconds: 300,
    condition: { type: 'threshold', op: 'above', value: 2500 },
    recovery: { value: 2000 },
    forSeconds: 120,
    severity: 'high',
    noData: 'quiet',
    enabled: true,
    createdMs: NOW - 60 * MINUTE,
    updatedMs: NOW - 60 * MINUTE,
    state: 'ok',
    stateSinceMs: NOW - 60 * MINUTE,
    pendingSinceMs: null,
    lastValue: 1000,
    lastEvaluatedMs: NOW - MINUTE,
    incidentId: null,
    nextEvalMs: NOW,
    ...changes,
  };
}

const value = (v: number | null): Reading => ({ value: v, bound: 2500, baseline: null });
const condition = { id: 'inc_1', cause: 'condition' } as const;

describe('alert rule decisions (server/src/alerts/evaluate/decide.ts)', () => {
  it('goes pending when the condition holds, fires once it has held for for_seconds, and resolves at the recovery value', () => {
    const pending = decide(rule(), value(3000), undefined, NOW);
    expect(pending).toEqual({ state: 'pending', stateSinceMs: NOW, pendingSinceMs: NOW, moves: [] });

    const held = rule({ state: 'pending', stateSinceMs: NOW, pendingSinceMs: NOW });
    expect(decide(held, value(3000), undefined, NOW + MINUTE)).toMatchObject({ state: 'pending', pendingSinceMs: NOW });
    expect(decide(held, value(2400), undefined, NOW + MINUTE)).toMatchObject({ state: 'ok', moves: [] });
    expect(decide(held, value(3000), undefined, NOW + 2 * MINUTE)).toEqual({
      state: 'firing',
      stateSinceMs: NOW + 2 * MINUTE,
      pendingSinceMs: null,
      moves: [{ kind: 'open', cause: 'condition' }],
    });

    const firing = rule({ state: 'firing', stateSinceMs: NOW, incidentId: 'inc_1' });
    // Under the threshold but not under the recovery value: still firing, its incident followed.
    expect(decide(firing, value(2200), condition, NOW)).toMatchObject({ state: 'firing', moves: [{ kind: 'follow' }] });
    expect(decide(firing, value(1900), condition, NOW)).toMatchObject({
      state: 'ok',
      moves: [{ kind: 'resolve', why: 'recovered' }],
    });
  });

  it('fires at once without for_seconds', () => {
    expect(decide(rule({ forSeconds: 0 }), value(2600), undefined, NOW).moves).toEqual([
      { kind: 'open', cause: 'condition' },
    ]);
  });

  it('no data: "quiet" only records it, "alert" opens an incident after for_seconds; a firing rule keeps firing', () => {
    expect(decide(rule(), value(null), undefined, NOW)).toEqual({
      state: 'no_data',
      stateSinceMs: NOW,
      pendingSinceMs: null,
      moves: [],
    });
    const silent = rule({ noData: 'alert', state: 'no_data', stateSinceMs: NOW - MINUTE });
    expect(decide(silent, value(null), undefined, NOW).moves).toEqual([]);
    expect(decide(silent, value(null), undefined, NOW + MINUTE).moves).toEqual([{ kind: 'open', cause: 'no_data' }]);
    expect(decide(rule({ noData: 'quiet', state: 'no_data' }), value(null), undefined, NOW + 9 * MINUTE).moves).toEqual(
      [],
    );
    // A person resolved the no-data incident: not opened again until the signal is back.
    expect(decide({ ...silent, incidentId: 'inc_9' }, value(null), undefined, NOW + MINUTE).moves).toEqual([]);

    const firing = rule({ noData: 'alert', state: 'firing', incidentId: 'inc_1' });
    expect(decide(firing, value(null), condition, NOW)).toMatchObject({ state: 'firing', moves: [{ kind: 'follow' }] });
  });

  it('data coming back resolves the no-data incident before the condition opens its own', () => {
    const silent = rule({ noData: 'alert', forSeconds: 0, state: 'no_data', incidentId: 'inc_2' });
    expect(decide(silent, value(3000), { id: 'inc_2', cause: 'no_data' }, NOW).moves).toEqual([
      { kind: 'resolve', why: 'data arriving again' },
      { kind: 'open', cause: 'condition' },
    ]);
  });

  it('an open incident is the truth when the state was not saved, and a person resolving it does not reopen it', () => {
    // Opened by a process that lost its lease before saving `firing`.
    expect(decide(rule({ state: 'ok' }), value(3000), condition, NOW)).toMatchObject({
      state: 'firing',
      moves: [{ kind: 'follow' }],
    });
    const resolvedByPerson = rule({ state: 'firing', incidentId: 'inc_1' });
    expect(decide(resolvedByPerson, value(3000), undefined, NOW)).toMatchObject({ state: 'firing', moves: [] });
    expect(decide(resolvedByPerson, value(1000), undefined, NOW)).toMatchObject({ state: 'ok', moves: [] });
  });

  it('a disabled rule goes back to ok and resolves its incident', () => {
    const off = rule({ enabled: false, state: 'firing', incidentId: 'inc_1' });
    expect(decide(off, value(null), condition, NOW)).toMatchObject({
      state: 'ok',
      moves: [{ kind: 'resolve', why: 'rule turned off' }],
    });
  });

  it('a change rule without a baseline does not fire', () => {
    const change = rule({
      forSeconds: 0,
      recovery: null,
      condition: { type: 'change', op: 'above', percent: 20, compare_to: 'day' },
    });
    expect(decide(change, { value: 3000, bound: null, baseline: null }, undefined, NOW).state).toBe('ok');
    expect(decide(change, { value: 3000, bound: 2400, baseline: 2000 }, undefined, NOW).state).toBe('firing');
  });
});

describe('alert rule escalation and intervals', () => {
  const options = evaluationOptions();
  const incident = (status: IncidentView['status'], detectedAgoMs: number) =>
    ({
      id: 'inc_1',
      status,
      detected_at: new Date(NOW - detectedAgoMs).toISOString(),
      evidence: { kind: 'alert_rule', measure: 'p75 LCP', value_at_detection: 3000, threshold_at_detection: 2500 },
    }) as unknown as IncidentView & { evidence: RuleEvidence };

  it('escalates once twice as far past the threshold as at detection, or after 30 minutes, and never when acknowledged', () => {
    const r = rule();
    expect(escalationReason(incident('detected', MINUTE), value(3400), options, r, NOW)).toBeUndefined();
    expect(escalationReason(incident('detected', MINUTE), value(3500), options, r, NOW)).toMatch(/still growing/);
    expect(escalationReason(incident('detected', 30 * MINUTE), value(2600), options, r, NOW)).toMatch(
      /still firing 30 minutes/,
    );
    expect(escalationReason(incident('acknowledged', 40 * MINUTE), value(9000), options, r, NOW)).toBeUndefined();
  });

  it('evaluates a rule every tenth of its window, from 10 seconds to a minute', () => {
    expect([60, 300, 600, 3600].map((w) => evaluationIntervalMs(w))).toEqual([10_000, 30_000, 60_000, 60_000]);
    // Due half a tick early: taken on the tick 10 s (or 30 s) on, however far into its own tick it was evaluated.
    expect([nextDueMs(60, NOW), nextDueMs(300, NOW)]).toEqual([NOW + 5_000, NOW + 25_000]);
  });

  it('with a shorter detection interval, evaluates short windows more often, and a long one still every minute', () => {
    expect([60, 300, 3600].map((w) => evaluationIntervalMs(w, 250))).toEqual([6_000, 30_000, 60_000]);
    expect(nextDueMs(60, NOW, 250)).toBe(NOW + 6_000 - 125);
  });
});

import { describe, expect, it } from 'vitest';
import { burstSoFar, burstToOpen, escalationReason, isQuiet } from '../../server/src/incidents/detect/decisions';
import type { GroupRow } from '../../server/src/incidents/detect/groups';
import { detectionOptions } from '../../server/src/incidents/detect/thresholds';
import type { IncidentView } from '../../server/src/incidents/types';

const MINUTE = 60_000;
const NOW = Date.UTC(2026, 10, 29, 12);
/** threshold 5 in 5 minutes, escalation at 2× or after 30 minutes, resolved after 30 quiet minutes. */
const options = detectionOptions();

/** A group whose `errors` were all received in one bucket `agoMs` before NOW, first reported at `firstMs`. */
function group(errors: number, changes: Partial<GroupRow> = {}, agoMs = MINUTE, firstMs?: number): GroupRow {
  const bucket = firstMs === undefined ? [NOW - agoMs, errors] : [NOW - agoMs, errors, firstMs];
  return {
    total_count: errors,
    buckets: JSON.stringify(errors === 0 ? [] : [bucket]),
    reset_total: 0,
    incident_id: null,
    incident_base_total: 0,
    incident_open_count: 0,
    status: 'unresolved',
    last_seen_ms: NOW - agoMs,
    last_received_ms: NOW - agoMs,
    ...changes,
  } as GroupRow;
}

const incident = (changes: Partial<IncidentView> = {}) =>
  ({
    id: 'inc_1',
    status: 'detected',
    detected_at: new Date(NOW - 10 * MINUTE).toISOString(),
    evidence: null,
    ...changes,
  }) as IncidentView;

describe('detector decisions (server/src/incidents/detect/decisions.ts)', () => {
  it('opens at the threshold within the window, from the first error the buckets know', () => {
    expect(burstToOpen(group(4), options, NOW)).toBeUndefined();
    expect(burstToOpen(group(5, {}, MINUTE, NOW - 2 * MINUTE), options, NOW)).toEqual({
      errorCount: 5,
      startedMs: NOW - 2 * MINUTE,
      sessionsSinceMs: NOW - options.windowMs,
    });
    // Buckets kept before event times were: the burst fills the window up to the last error.
    expect(burstToOpen(group(5), options, NOW)?.startedMs).toBe(NOW - MINUTE - options.windowMs);
  });

  it('does not open for errors outside the window, counted for the last incident, or of an ignored issue', () => {
    expect(burstToOpen(group(9, {}, 10 * MINUTE), options, NOW)).toBeUndefined();
    expect(burstToOpen(group(9, { total_count: 12, reset_total: 8 }), options, NOW)).toBeUndefined();
    expect(burstToOpen(group(9, { status: 'ignored' }), options, NOW)).toBeUndefined();
  });

  it('resolves after the quiet period since the last error received', () => {
    expect(isQuiet(group(1, { last_received_ms: NOW - 30 * MINUTE + 1 }), options, NOW)).toBe(false);
    expect(isQuiet(group(1, { last_received_ms: NOW - 30 * MINUTE }), options, NOW)).toBe(true);
  });

  it('escalates a detected incident that doubled since detection or persists, and nothing else', () => {
    expect(escalationReason(group(9, { incident_open_count: 5 }), incident(), options, NOW)).toBeUndefined();
    expect(escalationReason(group(10, { incident_open_count: 5 }), incident(), options, NOW)).toBe(
      'still growing: 10 errors in the last window, 2× the 5 at detection',
    );
    const persisting = group(1, { incident_open_count: 5 }, 0);
    const old = incident({ detected_at: new Date(NOW - 30 * MINUTE).toISOString() });
    expect(escalationReason(persisting, old, options, NOW)).toBe('errors still arriving 30 minutes after detection');
    expect(escalationReason(group(10), incident({ status: 'acknowledged' }), options, NOW)).toBeUndefined();
    expect(escalationReason(group(10, { status: 'ignored' }), incident(), options, NOW)).toBeUndefined();
  });

  it("counts an open incident's burst from its base total, since where it began at detection", () => {
    const g = group(3, { total_count: 30, incident_base_total: 12 });
    const detectedMs = NOW - 10 * MINUTE;
    expect(burstSoFar(g, incident(), options)).toEqual({
      errorCount: 18,
      startedMs: detectedMs - options.windowMs,
      sessionsSinceMs: detectedMs - options.windowMs,
    });
    const began = new Date(detectedMs - 2 * MINUTE).toISOString();
    const kept = incident({ evidence: { burst_started_at: began } as IncidentView['evidence'] });
    expect(burstSoFar(g, kept, options).startedMs).toBe(detectedMs - 2 * MINUTE);
  });
});

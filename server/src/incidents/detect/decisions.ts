// What the detector decides about a group from its counts alone (docs/incidents.md); detector.ts acts on it.
import { errorEvidence, type IncidentView } from '../types';
import { countInWindow, firstEventInWindow, type Buckets } from './buckets';
import type { Burst } from './evidence';
import type { GroupRow } from './groups';
import type { ErrorHeadline } from './root-cause';
import type { DetectionOptions } from './thresholds';

export const headlineOf = (group: GroupRow): ErrorHeadline => ({
  errorType: group.error_type,
  sampleMessage: group.sample_message,
  topFile: group.top_file,
});

const windowCountOf = (group: GroupRow, options: DetectionOptions, now: number) =>
  countInWindow(JSON.parse(group.buckets) as Buckets, options.windowMs, now);

/**
 * The burst an incident opens for, when a group without one reaches the threshold within the window; undefined
 * otherwise. Ignoring an issue silences it (docs/issues.md, "Statuses"): its errors are counted, its bursts page no one.
 */
export function burstToOpen(group: GroupRow, options: DetectionOptions, now: number): Burst | undefined {
  if (group.status === 'ignored') return undefined;
  // Errors counted before the last incident ended belong to it.
  const errorCount = Math.min(windowCountOf(group, options, now), group.total_count - group.reset_total);
  if (errorCount < options.threshold) return undefined;
  // Buckets kept before event times were: the burst is taken to fill the window.
  const startedMs =
    firstEventInWindow(JSON.parse(group.buckets) as Buckets, options.windowMs, now) ??
    group.last_seen_ms - options.windowMs;
  return { errorCount, startedMs, sessionsSinceMs: now - options.windowMs };
}

/** The incident's errors have stopped for the quiet period: it resolves. */
export const isQuiet = (group: GroupRow, options: DetectionOptions, now: number) =>
  now - group.last_received_ms >= options.quietMs;

/** Why an incident that is still only `detected` should escalate, if it should. */
export function escalationReason(
  group: GroupRow,
  incident: IncidentView,
  options: DetectionOptions,
  now: number,
): string | undefined {
  if (incident.status !== 'detected' || group.status === 'ignored') return undefined;
  const windowCount = windowCountOf(group, options, now);
  const baseline = Math.max(group.incident_open_count, options.threshold);
  if (windowCount >= options.growthFactor * baseline) {
    return `still growing: ${windowCount} errors in the last window, ${options.growthFactor}× the ${baseline} at detection`;
  }
  const detectedMs = Date.parse(incident.detected_at);
  if (group.last_received_ms - detectedMs >= options.persistMs)
    return `errors still arriving ${Math.round((group.last_received_ms - detectedMs) / 60_000)} minutes after detection`;
  return undefined;
}

/** The burst of an open incident so far: every error since it opened, from where the burst began at detection. */
export function burstSoFar(group: GroupRow, incident: IncidentView, options: DetectionOptions): Burst {
  const episodeStart = Date.parse(incident.detected_at) - options.windowMs;
  // The burst began where it did at detection (incidents opened before that was kept: with their window).
  const started = errorEvidence(incident.evidence)?.burst_started_at;
  return {
    errorCount: group.total_count - group.incident_base_total,
    startedMs: started === undefined ? episodeStart : Date.parse(started),
    sessionsSinceMs: episodeStart,
  };
}

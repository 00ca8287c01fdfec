import type { IncidentEventKind, IncidentStatus, Severity } from '../../../incidents/types';

/** Colour marks by severity, so a glance at the channel tells a critical incident from an informational one. */
export const SEVERITY_MARK: Record<Severity, string> = {
  critical: '🔴',
  high: '🟠',
  medium: '🟡',
  low: '🔵',
  info: '⚪',
};

export const STATUS_LABEL: Record<IncidentStatus, string> = {
  detected: 'Detected',
  escalated: 'Escalated',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
};

export const EVENT_HEADLINE: Record<IncidentEventKind, string> = {
  'incident.created': 'Incident detected',
  'incident.escalated': 'Incident escalated',
  'incident.acknowledged': 'Incident acknowledged',
  'incident.resolved': 'Incident resolved',
};

export const TEST_NOTE = 'Test notification: no incident was opened.';

/** Cuts `text` to at most `max` characters (code points, so no emoji is split), ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

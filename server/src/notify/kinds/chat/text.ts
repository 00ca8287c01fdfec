import type { NoticeEventKind, NoticeSeverity, NoticeStatus } from '../types';

/** Colour marks by severity, so a glance at the channel tells a critical incident from an informational one. */
export const SEVERITY_MARK: Record<NoticeSeverity, string> = {
  critical: '🔴',
  high: '🟠',
  medium: '🟡',
  warning: '⚠️',
  low: '🔵',
  info: '⚪',
};

export const STATUS_LABEL: Record<NoticeStatus, string> = {
  detected: 'Detected',
  escalated: 'Escalated',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
  regressed: 'Regressed',
};

export const EVENT_HEADLINE: Record<NoticeEventKind, string> = {
  'incident.created': 'Incident detected',
  'incident.escalated': 'Incident escalated',
  'incident.acknowledged': 'Incident acknowledged',
  'incident.resolved': 'Incident resolved',
  'issue.regressed': 'Resolved issue occurred again',
};

export const TEST_NOTE = 'Test notification: no incident was opened.';

/** Cuts `text` to at most `max` characters (code points, so no emoji is split), ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

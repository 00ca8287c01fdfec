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
  throttled: 'Throttled',
};

export const EVENT_HEADLINE: Record<NoticeEventKind, string> = {
  'incident.created': 'Incident detected',
  'incident.escalated': 'Incident escalated',
  'incident.acknowledged': 'Incident acknowledged',
  'incident.resolved': 'Incident resolved',
  'issue.regressed': 'Resolved issue occurred again',
  'ingest.spike': 'Ingest spike throttled',
};

export const TEST_NOTE = 'Test notification: no incident was opened.';

import type { IncidentEventKind } from '../../incidents/types';
import type { IncidentNotice } from './types';

/** What changed, as the start of a headline; a new incident needs no word. */
const EVENT_PREFIX: Record<IncidentEventKind, string> = {
  'incident.created': '',
  'incident.escalated': 'Escalated: ',
  'incident.acknowledged': 'Acknowledged: ',
  'incident.resolved': 'Resolved: ',
};

/** Runs of whitespace (new lines included) as one space: a title must not break a subject header or an SMS line. */
export const singleLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * The one-line headline of a notice, shared by the e-mail subject and the first SMS line:
 * `[CRITICAL] Checkout fails`, `[HIGH] Resolved: Checkout fails`, `[TEST] [LOW] …` for a test notification.
 */
export function noticeHeadline(notice: IncidentNotice): string {
  const { payload } = notice;
  const test = notice.test ? '[TEST] ' : '';
  return `${test}[${payload.severity.toUpperCase()}] ${EVENT_PREFIX[payload.event]}${singleLine(payload.title)}`;
}

/** Whether the notice asks someone to act: an acknowledge link or keypress only makes sense before anyone has. */
export const awaitsAcknowledgement = (notice: IncidentNotice): boolean => notice.status === 'detected' || notice.status === 'escalated';

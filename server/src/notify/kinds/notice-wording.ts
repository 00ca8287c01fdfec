import { isIncidentNotice, isIssueNotice, type IncidentNotice, type Notice, type NoticeEventKind } from './types';

/** What changed, as the start of a headline; a new incident needs no word. */
const EVENT_PREFIX: Record<NoticeEventKind, string> = {
  'incident.created': '',
  'incident.escalated': 'Escalated: ',
  'incident.acknowledged': 'Acknowledged: ',
  'incident.resolved': 'Resolved: ',
  'issue.regressed': 'Regressed: ',
  'ingest.spike': 'Spike: ',
};

/** Runs of whitespace (new lines included) as one space: a title must not break a subject header or an SMS line. */
export const singleLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * The one-line headline of a notice, shared by the e-mail subject and the first SMS line:
 * `[CRITICAL] Checkout fails`, `[HIGH] Resolved: Checkout fails`, `[TEST] [LOW] …` for a test notification,
 * `[WARNING] Regressed: TypeError: …` for an issue that came back.
 */
export function noticeHeadline(notice: Notice): string {
  const { payload } = notice;
  const test = notice.test ? '[TEST] ' : '';
  return `${test}[${payload.severity.toUpperCase()}] ${EVENT_PREFIX[payload.event]}${singleLine(payload.title)}`;
}

/** Whether the notice asks someone to act: an acknowledge link or keypress only makes sense before anyone has. */
export const awaitsAcknowledgement = (notice: Notice): notice is IncidentNotice =>
  notice.status === 'detected' || notice.status === 'escalated';

/** Whether the notice offers a resolve link: an incident until it is resolved; an issue is resolved on its page. */
export const offersResolve = (notice: Notice): notice is IncidentNotice =>
  isIncidentNotice(notice) && notice.status !== 'resolved';

/**
 * What the notice is about, as its footer or facts name it: `['Incident', 'inc_42']`, `['Issue', '3f2a…']`,
 * `['Project', 'prj_default']`.
 */
export const noticeSubject = (notice: Notice): [noun: 'Incident' | 'Issue' | 'Project', id: string] =>
  isIssueNotice(notice)
    ? ['Issue', notice.payload.issue_id]
    : isIncidentNotice(notice)
      ? ['Incident', notice.payload.incident_id]
      : ['Project', notice.payload.project_id];

/** The link to the root-cause analysis of the notice's incident, when its issue has one. */
export const analysisUrl = (notice: Notice): string | null =>
  isIncidentNotice(notice) ? (notice.analysis_url ?? null) : null;

/** What `dashboard_url` opens, for its link's label: the incident page, the issue's, or the project's usage. */
export const linkedPage = (notice: Notice): 'dashboard' | 'issue' | 'usage' =>
  isIssueNotice(notice) ? 'issue' : isIncidentNotice(notice) ? 'dashboard' : 'usage';

import { SEVERITIES, type IncidentView } from '../../incidents/types';
import { escapeMrkdwn } from '../../notify/kinds/chat/blocks';
import { SEVERITY_MARK, STATUS_LABEL } from '../../notify/kinds/chat/text';
import { singleLine } from '../../notify/kinds/notice-wording';

/** Lines of `/svc status`; the rest is counted, the dashboard has them all. */
const MAX_LISTED = 20;

/** The `/svc status` text: open incidents, most severe first (then the longest-running), each linked to its page. */
export function statusText(incidents: readonly IncidentView[]): string {
  if (incidents.length === 0) return 'No open incidents.';
  const ordered = [...incidents].sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || a.detected_at.localeCompare(b.detected_at),
  );
  const lines = ordered.slice(0, MAX_LISTED).map((incident) => {
    const who =
      incident.status === 'acknowledged' && incident.acknowledged_by
        ? ` by ${escapeMrkdwn(incident.acknowledged_by)}`
        : '';
    const where = [incident.env, incident.services.join(', ')].filter(Boolean).map(escapeMrkdwn).join(' · ');
    const title = escapeMrkdwn(singleLine(incident.title));
    return `${SEVERITY_MARK[incident.severity]} *${incident.severity.toUpperCase()}* <${incident.dashboard_url}|${title}> · ${where} · ${STATUS_LABEL[incident.status]}${who}`;
  });
  const more = ordered.length > MAX_LISTED ? [`…and ${ordered.length - MAX_LISTED} more`] : [];
  const count = `*${incidents.length} open incident${incidents.length === 1 ? '' : 's'}*`;
  return [count, ...lines, ...more].join('\n');
}

import { truncate } from '../../../shared/truncate';
import { EVENT_HEADLINE, SEVERITY_MARK, STATUS_LABEL, TEST_NOTE } from '../chat/text';
import {
  analysisUrl,
  awaitsAcknowledgement,
  linkedPage,
  noticeSubject,
  offersResolve,
  singleLine,
} from '../notice-wording';
import type { Notice, NoticeSeverity } from '../types';

/**
 * Teams refuses messages over about 28 KB; 28,000 bytes of JSON stays under it whichever way "KB" is counted. The root
 * cause summary is what gives way.
 */
export const TEAMS_MESSAGE_MAX_BYTES = 28_000;

type CardElement = Record<string, unknown>;

/** An incoming-webhook (or Workflows) message carrying one Adaptive Card 1.4. */
export interface TeamsMessage {
  type: 'message';
  attachments: Array<{
    contentType: 'application/vnd.microsoft.card.adaptive';
    content: {
      $schema: string;
      type: 'AdaptiveCard';
      version: '1.4';
      body: CardElement[];
      actions: CardElement[];
      msteams: { width: 'Full' };
    };
  }>;
}

const HEADER_COLOR: Record<NoticeSeverity, 'Attention' | 'Warning' | 'Default'> = {
  critical: 'Attention',
  high: 'Attention',
  medium: 'Warning',
  warning: 'Warning',
  low: 'Default',
  info: 'Default',
};

/**
 * The incident as an Adaptive Card: severity and title, facts, root cause, and links to the dashboard and to the signed
 * acknowledge and resolve URLs (cards posted by webhook cannot submit actions back); an issue's card links to the issue
 * only. Fits {@link TEAMS_MESSAGE_MAX_BYTES}.
 */
export function teamsMessage(notice: Notice): TeamsMessage {
  const summary = notice.payload.root_cause_summary;
  const full = render(notice, summary);
  if (byteSize(full) <= TEAMS_MESSAGE_MAX_BYTES) return full;
  // JSON escaping makes bytes per character uneven: search the longest summary prefix that fits.
  const points = Array.from(summary);
  let fits = 0;
  let tooLong = points.length;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (byteSize(render(notice, truncate(summary, middle))) <= TEAMS_MESSAGE_MAX_BYTES) fits = middle;
    else tooLong = middle;
  }
  return render(notice, truncate(summary, fits));
}

const byteSize = (message: TeamsMessage) => Buffer.byteLength(JSON.stringify(message));

function render(notice: Notice, summary: string): TeamsMessage {
  const { payload, status } = notice;
  const text = (value: string, style: CardElement = {}): CardElement => ({
    type: 'TextBlock',
    text: value,
    wrap: true,
    ...style,
  });
  const body: CardElement[] = [
    text(
      truncate(
        `${SEVERITY_MARK[payload.severity]} ${payload.severity.toUpperCase()} · ${singleLine(payload.title)}`,
        300,
      ),
      {
        size: 'Large',
        weight: 'Bolder',
        color: HEADER_COLOR[payload.severity],
      },
    ),
    text(EVENT_HEADLINE[payload.event], { isSubtle: true, spacing: 'None' }),
    ...(notice.test ? [text(TEST_NOTE, { color: 'Warning' })] : []),
    {
      type: 'FactSet',
      facts: [
        { title: 'Severity', value: payload.severity },
        { title: 'Status', value: STATUS_LABEL[status] },
        { title: 'Environment', value: payload.env },
        { title: 'Services', value: truncate(payload.services.join(', ') || '—', 1000) },
        { title: 'Detected', value: notice.detected_at },
      ],
    },
    text('Root cause', { weight: 'Bolder' }),
    text(summary),
    text(noticeSubject(notice).join(' '), { isSubtle: true, size: 'Small' }),
  ];
  const open = (title: string, url: string): CardElement => ({ type: 'Action.OpenUrl', title, url });
  const actions = [open(`Open ${linkedPage(notice)}`, payload.dashboard_url)];
  if (awaitsAcknowledgement(notice)) actions.push(open('Acknowledge', notice.acknowledge_url));
  if (offersResolve(notice)) actions.push(open('Resolve', notice.resolve_url));
  const analysis = analysisUrl(notice);
  if (analysis) actions.push(open('Open the root-cause analysis', analysis));
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions,
          msteams: { width: 'Full' },
        },
      },
    ],
  };
}

import { isIncidentNotice, type Notice } from '../types';
import { truncate } from '../../../shared/truncate';
import { EVENT_HEADLINE, SEVERITY_MARK, STATUS_LABEL, TEST_NOTE } from './text';
import {
  analysisUrl,
  awaitsAcknowledgement,
  linkedPage,
  noticeSubject,
  offersResolve,
  singleLine,
} from '../notice-wording';

/** `action_id`s of the card's buttons, as the interactivity endpoint receives them (integrations/chat). */
export const CHAT_ACTIONS = {
  acknowledge: 'incident_acknowledge',
  resolve: 'incident_resolve',
  /** A link button: Slack still sends an interaction for it, which only needs a 200. */
  openDashboard: 'incident_open_dashboard',
} as const;

interface PlainText {
  type: 'plain_text';
  text: string;
}
interface Mrkdwn {
  type: 'mrkdwn';
  text: string;
}
interface Button {
  type: 'button';
  action_id: string;
  text: PlainText;
  url?: string;
  value?: string;
  style?: 'primary';
}
/** The Block Kit blocks the card uses. */
export type Block =
  | { type: 'header'; text: PlainText }
  | { type: 'section'; text?: Mrkdwn; fields?: Mrkdwn[] }
  | { type: 'actions'; block_id: string; elements: Button[] }
  | { type: 'context'; elements: Mrkdwn[] };

/** A message body for an incoming webhook, `chat.postMessage` or `chat.update`: blocks plus the notification text. */
export interface ChatMessage {
  text: string;
  blocks: Block[];
}

/**
 * How acknowledge and resolve are offered: `interactive` buttons need the app integration (the click comes back as a
 * signed interaction); `links` open the notice's signed URLs, which works with a bare incoming webhook.
 */
export type CardButtons = 'interactive' | 'links';

/** Slack's limits in characters: header 150, section text 3000, a field 2000. */
const LIMIT = { header: 150, section: 3000, field: 2000 };

/** Slack's mrkdwn treats `&`, `<` and `>` as markup; user text must have them escaped. */
export const escapeMrkdwn = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const mrkdwn = (text: string, max: number): Mrkdwn => ({ type: 'mrkdwn', text: truncate(text, max) });
const plain = (text: string): PlainText => ({ type: 'plain_text', text });
const link = (url: string, label: string) => `<${url}|${label}>`;

/** The card: severity and title, status, env, services, root cause, buttons, incident (or issue) id. */
export function incidentMessage(notice: Notice, buttons: CardButtons): ChatMessage {
  const { payload, status } = notice;
  const field = (label: string, value: string) => mrkdwn(`*${label}*\n${escapeMrkdwn(value)}`, LIMIT.field);
  const blocks: Block[] = [
    {
      type: 'header',
      text: plain(
        truncate(
          `${SEVERITY_MARK[payload.severity]} ${payload.severity.toUpperCase()} · ${singleLine(payload.title)}`,
          LIMIT.header,
        ),
      ),
    },
    {
      type: 'section',
      text: mrkdwn(`*${EVENT_HEADLINE[payload.event]}*`, LIMIT.section),
      fields: [
        field('Status', STATUS_LABEL[status]),
        field('Environment', payload.env),
        field('Services', payload.services.join(', ') || '—'),
        field('Detected', notice.detected_at),
      ],
    },
    {
      type: 'section',
      text: mrkdwn(`*Root cause*\n${escapeMrkdwn(payload.root_cause_summary)}${analysisLine(notice)}`, LIMIT.section),
    },
    { type: 'actions', block_id: 'incident_actions', elements: cardButtons(notice, buttons) },
    {
      type: 'context',
      elements: [mrkdwn(`${notice.test ? `${TEST_NOTE} ` : ''}${noticeSubject(notice).join(' ')}`, LIMIT.section)],
    },
  ];
  return { text: notificationText(notice), blocks };
}

/** A link under the root cause (a link button would need its own interaction answer), when there is an analysis. */
function analysisLine(notice: Notice): string {
  const url = analysisUrl(notice);
  return url ? `\n${link(escapeMrkdwn(url), 'Root-cause analysis')}` : '';
}

/** Buttons by status: nothing to acknowledge once acknowledged, nothing but the page once resolved (or for an issue). */
function cardButtons(notice: Notice, buttons: CardButtons): Button[] {
  // An interactive button carries the incident id back; a link button opens the signed URL.
  const target = (incidentId: string, signedUrl: string) =>
    buttons === 'interactive' ? { value: incidentId } : { url: signedUrl };
  const elements: Button[] = [];
  if (awaitsAcknowledgement(notice)) {
    elements.push({
      type: 'button',
      action_id: CHAT_ACTIONS.acknowledge,
      text: plain('Acknowledge'),
      ...target(notice.payload.incident_id, notice.acknowledge_url),
      style: 'primary',
    });
  }
  if (offersResolve(notice)) {
    elements.push({
      type: 'button',
      action_id: CHAT_ACTIONS.resolve,
      text: plain('Resolve'),
      ...target(notice.payload.incident_id, notice.resolve_url),
    });
  }
  elements.push({
    type: 'button',
    action_id: CHAT_ACTIONS.openDashboard,
    text: plain(`Open ${linkedPage(notice)}`),
    url: notice.payload.dashboard_url,
  });
  return elements;
}

/** The text notifications and screen readers show; Slack uses it when the blocks cannot be displayed. */
export function notificationText(notice: Notice): string {
  const { payload } = notice;
  const prefix = notice.test ? '[test] ' : '';
  const what = truncate(
    `${prefix}${SEVERITY_MARK[payload.severity]} ${payload.severity.toUpperCase()} ${singleLine(payload.title)} (${payload.env})`,
    LIMIT.header * 2,
  );
  return `${escapeMrkdwn(what)}: ${EVENT_HEADLINE[payload.event]}, ${link(payload.dashboard_url, `open ${linkedPage(notice)}`)}`;
}

/** The threaded reply recording a later event of the incident under its card. */
export function threadReply(notice: Notice): { text: string } {
  const actor = isIncidentNotice(notice) ? notice.actor : null;
  const by = actor ? ` by ${escapeMrkdwn(actor)}` : '';
  const headline = `*${EVENT_HEADLINE[notice.payload.event]}*${by} (status: ${STATUS_LABEL[notice.status]})`;
  return { text: `${headline} · ${link(notice.payload.dashboard_url, `open ${linkedPage(notice)}`)}` };
}

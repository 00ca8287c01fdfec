import { awaitsAcknowledgement, linkedPage, noticeHeadline, singleLine } from '../notice-wording';
import { createTelephonyKind } from './channel';
import type { Notice } from '../types';

/** Twilio refuses longer bodies (error 21617); it splits anything over one segment on its side. */
export const SMS_MAX_CHARACTERS = 1600;

/**
 * The SMS text: headline, where, the root cause, then the dashboard (or issue) link and (while the incident awaits it)
 * the acknowledge link. At most {@link SMS_MAX_CHARACTERS}: the summary is cut, the links never are, since a cut link is
 * a dead one.
 */
export function renderSmsBody(notice: Notice): string {
  const { payload } = notice;
  const links = [`${PAGE_LABEL[linkedPage(notice)]}: ${payload.dashboard_url}`];
  if (awaitsAcknowledgement(notice)) links.push(`Acknowledge: ${notice.acknowledge_url}`);
  const where = [payload.services.join(', '), payload.env, notice.status].filter(Boolean).join(' · ');
  const summary = [noticeHeadline(notice), where, singleLine(payload.root_cause_summary)].filter(Boolean).join('\n');
  const linkText = links.join('\n');
  return `${cut(summary, SMS_MAX_CHARACTERS - linkText.length - 1)}\n${linkText}`;
}

const PAGE_LABEL = { dashboard: 'Dashboard', issue: 'Issue', usage: 'Usage' } as const;

/** `text` in at most `max` UTF-16 units, ending in `…` when cut, never splitting a character in two. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = '';
  for (const character of text) {
    if (kept.length + character.length > max - 1) break;
    kept += character;
  }
  return `${kept.trimEnd()}…`;
}

/** `sms`: a text summary with links, through the project's Twilio account, to each number of `config.to`. */
export const smsKind = createTelephonyKind({
  type: 'sms',
  resource: 'Messages',
  // A Messaging Service picks the sender from its pool (and handles opt-outs); without one, the account's number sends.
  sender(account): Record<string, string> | undefined {
    if (account.messaging_service_sid) return { MessagingServiceSid: account.messaging_service_sid };
    return account.from ? { From: account.from } : undefined;
  },
  missingSender: 'the telephony account has neither a "from" number nor a "messaging_service_sid" to send SMS from',
  content: (notice) => ({ Body: renderSmsBody(notice) }),
});

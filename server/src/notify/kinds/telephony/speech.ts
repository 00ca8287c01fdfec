import { awaitsAcknowledgement } from '../notice-wording';
import type { Notice, NoticeEventKind } from '../types';

/** 60 seconds at the ≈150 words a minute of text-to-speech. */
export const SPEECH_MAX_WORDS = 150;
/** Twilio refuses inline `Twiml` of 4,000 characters or more. */
export const TWIML_MAX_CHARACTERS = 4000;

const DETAILS_ON_DASHBOARD = 'More details are on the dashboard.';
const PROMPT = 'Press 1 to acknowledge.';
const NO_KEY = 'No key was pressed. The incident stays open. Goodbye.';
/** Longer tokens are hashes, ids or minified names: noise when read out, and the dashboard shows them. */
const MAX_SPOKEN_WORD = 40;

const HAPPENED: Record<NoticeEventKind, string> = {
  'incident.created': 'New {severity} incident',
  'incident.escalated': 'Escalated {severity} incident',
  'incident.acknowledged': 'Acknowledged {severity} incident',
  'incident.resolved': 'Resolved {severity} incident',
  'issue.regressed': 'A resolved issue occurred again',
  'ingest.spike': 'A spike of telemetry is being throttled',
};

/** Words as a listener hears them: tokens with a letter or digit. */
export const countWords = (text: string): number =>
  text.split(/\s+/).filter((token) => /[\p{L}\p{N}]/u.test(token)).length;

/**
 * The TwiML of an incident call: the spoken summary and, while the incident awaits acknowledgement, "press 1" inside a
 * `<Gather>` whose keypress posts to the signed acknowledge link (a key pressed during the summary counts too). The
 * spoken words stay within {@link SPEECH_MAX_WORDS} (about a minute): a root cause too long for that is cut at a
 * sentence (else a word) and the call says the details are on the dashboard. The document stays under
 * {@link TWIML_MAX_CHARACTERS}.
 */
export function renderCallTwiml(notice: Notice): string {
  const opening = spokenOpening(notice);
  const asks = awaitsAcknowledgement(notice);
  const fixedWords = countWords(opening) + (asks ? countWords(PROMPT) + countWords(NO_KEY) : 0);
  const cause = speakable(notice.payload.root_cause_summary, Infinity);
  for (let words = SPEECH_MAX_WORDS - fixedWords; ; words--) {
    const summary = [opening, spokenCause(cause, words)].filter(Boolean).join(' ');
    const twiml = asks
      ? `<Response><Gather numDigits="1" action="${xml(notice.acknowledge_url)}" method="POST"><Say>${xml(summary)} ${PROMPT}</Say></Gather><Say>${NO_KEY}</Say></Response>`
      : `<Response><Say>${xml(summary)}</Say></Response>`;
    if (twiml.length < TWIML_MAX_CHARACTERS || words <= 0) return twiml;
  }
}

/** Who is calling, what happened, where. Each part is capped so that together they leave room for the cause. */
function spokenOpening(notice: Notice): string {
  const { payload } = notice;
  const happened = HAPPENED[payload.event].replace('{severity}', payload.severity);
  const services = payload.services.map((service) => speakable(service, 60));
  const listed = services.length > 3 ? [...services.slice(0, 3), `${services.length - 3} more`] : services;
  return [
    notice.test ? 'This is a test call from s v c.' : 'This is s v c.',
    sentence(`${happened}: ${speakable(payload.title, 200)}`),
    listed.length > 0 ? sentence(`${listed.length === 1 ? 'Service' : 'Services'}: ${spokenList(listed)}`) : '',
    sentence(`Environment: ${speakable(payload.env, 60)}`),
  ]
    .filter(Boolean)
    .join(' ');
}

/** The root cause in at most `budget` words: whole sentences while they fit, else words, then the dashboard pointer. */
function spokenCause(cause: string, budget: number): string {
  if (countWords(cause) <= budget) return cause;
  const room = budget - countWords(DETAILS_ON_DASHBOARD);
  if (room <= 0) return budget >= countWords(DETAILS_ON_DASHBOARD) ? DETAILS_ON_DASHBOARD : '';
  let kept = '';
  for (const part of cause.split(/(?<=[.!?])\s+/)) {
    const next = kept ? `${kept} ${part}` : part;
    if (countWords(next) > room) break;
    kept = next;
  }
  if (!kept)
    kept = sentence(
      cause
        .split(/\s+/)
        .slice(0, room)
        .join(' ')
        .replace(/[\s,;:-]+$/, ''),
    );
  return `${kept} ${DETAILS_ON_DASHBOARD}`;
}

/**
 * Text as speech: links become "a link", characters a voice does not say (brackets, slashes, underscores, quotes
 * other than the apostrophe) become spaces, over-long tokens go, and the result is cut to `maxCharacters` at a word.
 */
function speakable(text: string, maxCharacters: number): string {
  const words = text
    // A link ends before the punctuation that ends its sentence.
    .replace(/\bhttps?:\/\/\S+?(?=[.,;:!?)]*(?:\s|$))/g, ' a link')
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}\s.,:;!?'%+-]/gu, ' ')
    .split(/\s+/)
    .filter((word) => word && word.length <= MAX_SPOKEN_WORD);
  let spoken = '';
  for (const word of words) {
    if (spoken.length + word.length + 1 > maxCharacters) break;
    spoken = spoken ? `${spoken} ${word}` : word;
  }
  return spoken;
}

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

const spokenList = (items: string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escaped for XML text and attribute values alike. */
const xml = (text: string): string => text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!);
